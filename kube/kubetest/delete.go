// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves DELETE of one object and of a collection: DeleteOptions
// (preconditions, propagationPolicy, dryRun), finalizers, and the answers
// of the real server (a Success Status for an immediate delete, the object
// for one that waits on finalizers).

// parseDeleteOptions reads DeleteOptions from the body and the query.
func (c *call) parseDeleteOptions() (*protobuf.DeleteOptions, *kube.StatusError) {
	var o protobuf.DeleteOptions
	body, err := readBody(c.r)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) > 0 {
		mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
		switch mt {
		case protobuf.MediaType:
			po, err := protobuf.DecodeDeleteOptions(body)
			if err != nil {
				return nil, errBadRequest(err.Error())
			}
			o = *po
		case "", "application/json", "application/yaml":
			m, err := parseApplyBody(body)
			if err == nil {
				err = json.Unmarshal(encodeObject(m), &o)
			}
			if err != nil {
				return nil, errBadRequest("error decoding DeleteOptions: " + err.Error())
			}
		default:
			return nil, errUnsupportedMedia(bodyMediaTypes...)
		}
	}
	if p := c.q.Get("propagationPolicy"); p != "" {
		o.PropagationPolicy = &p
	}
	if slices.Contains(o.DryRun, "All") {
		c.dryRun = true
	}
	if p := o.PropagationPolicy; p != nil && *p != "Foreground" && *p != "Background" && *p != "Orphan" {
		return nil, errInvalid("meta.k8s.io", "DeleteOptions", "", []fielderr.Error{{Type: "FieldValueNotSupported",
			Field: "propagationPolicy", Value: *p, Detail: fielderr.NotSupportedDetail("Foreground", "Background", "Orphan", "nil")}})
	}
	return &o, nil
}

// deleteLocked deletes prev, or marks it deleting when finalizers hold it.
// It answers the record to show the client and whether the object is gone.
func (s *Server) deleteLocked(wr *write, prev *record) (*record, bool, *kube.StatusError) {
	res := wr.res
	if res.Group == "" && res.Plural == "namespaces" {
		switch prev.name {
		case "default", "kube-system", "kube-public":
			return nil, false, errForbidden("", "namespaces", prev.name, "this namespace may not be deleted")
		}
	}
	if prev.deleting {
		return prev, false, nil
	}
	o := mustDecode(prev.raw)
	s.prepareDeleteKind(res, o)
	if !hasFinalizers(o) {
		if wr.dryRun {
			return prev, true, nil
		}
		return s.removeLocked(res, wr.col, prev), true, nil
	}
	meta := unstructured.Metadata(o)
	// The real server bumps the generation of kinds that keep one when it
	// marks an object deleting, so that GenerationChanged predicates see it.
	if g, _ := unstructured.IntegerValue(meta["generation"]); g > 0 {
		meta["generation"] = g + 1
	}
	meta["deletionTimestamp"] = nowString()
	meta["deletionGracePeriodSeconds"] = int64(0)
	if wr.dryRun {
		return makeRecord(res, o), false, nil
	}
	rec := s.commitLocked(res, wr.col, "MODIFIED", o, prev)
	s.afterMarkDeletingLocked(res, rec)
	return rec, false, nil
}

// errPrecondition is the storage's answer to a failed delete precondition:
// a Conflict that names the kind, not the resource.
func errPrecondition(res *resource, name, msg string) *kube.StatusError {
	return statusError(http.StatusConflict, kube.ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", qualified(res.Group, res.Kind), name, msg),
		&kube.StatusDetails{Name: name, Group: res.Group, Kind: res.Kind})
}

func (s *Server) serveDelete(c *call) {
	opts, err := c.parseDeleteOptions()
	if err != nil {
		writeError(c.w, err)
		return
	}
	wr := c.write()
	var rec *record
	var gone bool
	s.withLock(func() {
		prev := c.col.objects[c.key()]
		if prev == nil {
			err = errNotFound(c.res, c.info.Name)
		} else if err = checkPreconditions(c.res, c.info.Name, prev, opts); err == nil {
			rec, gone, err = s.deleteLocked(wr, prev)
		}
	})
	if err != nil {
		writeError(c.w, err)
		return
	}
	if gone && !c.res.ReturnDeleted {
		st := kube.Status{Status: "Success", Details: &kube.StatusDetails{Name: rec.name, Group: c.res.Group,
			Kind: c.res.Plural, UID: rec.uid}}
		writeJSON(c.w, http.StatusOK, encodeStatus(&st))
		return
	}
	c.respond(http.StatusOK, rec.raw)
}

func (s *Server) serveDeleteCollection(c *call) {
	opts, err := c.parseListOptions(false)
	if err != nil {
		writeError(c.w, err)
		return
	}
	if _, err := c.parseDeleteOptions(); err != nil {
		writeError(c.w, err)
		return
	}
	wr := c.write()
	var page *listPage
	s.withLock(func() {
		var deleted []*record
		for _, k := range slices.Clone(c.col.keys()) {
			r := c.col.objects[k]
			if r == nil || !opts.filter.matches(r) {
				continue
			}
			if _, _, err := s.deleteLocked(wr, r); err != nil {
				continue
			}
			deleted = append(deleted, r)
		}
		page = &listPage{items: deleted, rv: s.rv}
	})
	c.writeList(page)
}
