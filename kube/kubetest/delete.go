// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"slices"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/crd"
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
	if v := c.q.Get("orphanDependents"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return nil, errBadRequest(fmt.Sprintf("failed to parse orphanDependents: %v", err))
		}
		o.OrphanDependents = &b
	}
	if slices.Contains(o.DryRun, "All") {
		c.dryRun = true
	}
	var errs []fielderr.Error
	if o.OrphanDependents != nil && o.PropagationPolicy != nil {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "propagationPolicy", Value: *o.PropagationPolicy,
			Detail: "orphanDependents and deletionPropagation cannot be both set"})
	}
	if p := o.PropagationPolicy; p != nil && *p != "Foreground" && *p != "Background" && *p != "Orphan" {
		errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported",
			Field: "propagationPolicy", Value: *p, Detail: fielderr.NotSupportedDetail("Foreground", "Background", "Orphan", "nil")})
	}
	if len(errs) > 0 {
		return nil, errInvalid("meta.k8s.io", "DeleteOptions", "", errs)
	}
	return &o, nil
}

// propagation is the deletion policy o asks of res: orphanDependents
// turned into Orphan or, when false, Background (Foreground for a
// namespace, as the real namespace storage reads it), "" for the kind's
// default.
func propagation(res *resource, o *protobuf.DeleteOptions) string {
	switch {
	case o.OrphanDependents != nil && *o.OrphanDependents:
		return "Orphan"
	case o.OrphanDependents != nil && isNamespaces(res):
		return "Foreground"
	case o.OrphanDependents != nil:
		return "Background"
	case o.PropagationPolicy != nil:
		return *o.PropagationPolicy
	}
	return ""
}

// deleteLocked deletes prev, or marks it deleting when finalizers hold it
// (those it has, and the garbage collector's that wr.propagation asks
// for). It answers the record to show the client and whether the object
// is gone. A second delete of an object marked deleting changes only the
// garbage collector's finalizers, and removes the object if that leaves
// none.
func (s *Server) deleteLocked(wr *write, prev *record) (*record, bool, *kube.StatusError) {
	res := wr.res
	if isNamespaces(res) {
		switch prev.name {
		case "default", "kube-system", "kube-public":
			return nil, false, errForbidden("", "namespaces", prev.name, "this namespace may not be deleted")
		}
		if rec, done := s.deleteNamespaceLocked(wr, prev); done {
			return rec, false, nil
		}
	}
	o := mustDecode(prev.raw)
	if isCRDs(res) && !prev.deleting {
		crd.AddCleanupFinalizer(o)
	}
	meta := unstructured.Metadata(o)
	fins, changed := gcFinalizers(res, stringList(meta, "finalizers"), wr.propagation)
	if changed {
		if len(fins) == 0 {
			delete(meta, "finalizers")
		} else {
			meta["finalizers"] = anyList(fins)
		}
	}
	if prev.deleting && !changed {
		return prev, false, nil
	}
	if !hasFinalizers(o) {
		if wr.dryRun {
			return prev, true, nil
		}
		return s.removeLocked(res, wr.col, prev), true, nil
	}
	if !prev.deleting {
		// The real server bumps the generation of kinds that keep one when
		// it marks an object deleting, so that GenerationChanged
		// predicates see it.
		if g, _ := unstructured.IntegerValue(meta["generation"]); g > 0 {
			meta["generation"] = g + 1
		}
		meta["deletionTimestamp"] = nowString()
		meta["deletionGracePeriodSeconds"] = int64(0)
	}
	if wr.dryRun {
		return makeRecord(res, o), false, nil
	}
	rec := s.commitLocked(res, wr.col, "MODIFIED", o, prev)
	if !prev.deleting {
		s.afterMarkDeletingLocked(res, rec)
	}
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
	wr.propagation = propagation(c.res, opts)
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
	code := http.StatusOK
	if !gone && opts.OrphanDependents != nil && !*opts.OrphanDependents {
		code = http.StatusAccepted // the real handler's answer to a cascading delete that waits
	}
	c.respond(code, rec.raw)
}

func (s *Server) serveDeleteCollection(c *call) {
	opts, err := c.parseListOptions(false, true)
	if err != nil {
		writeError(c.w, err)
		return
	}
	delOpts, err := c.parseDeleteOptions()
	if err != nil {
		writeError(c.w, err)
		return
	}
	wr := c.write()
	wr.propagation = propagation(c.res, delOpts)
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
