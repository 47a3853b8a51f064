// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/deleteopts"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves DELETE of one object and of a collection: DeleteOptions
// (preconditions, propagationPolicy, dryRun), finalizers, and the answers
// of the real server (a Success Status for an immediate delete, the object
// for one that waits on finalizers).

// parseDeleteOptions reads DeleteOptions from the body and the query
// (deleteopts.Read); dryRun=All in them makes the call a dry run.
func (c *call) parseDeleteOptions() (*protobuf.DeleteOptions, *kube.StatusError) {
	o, err := deleteopts.Read(c.r, c.q)
	if err == nil && slices.Contains(o.DryRun, "All") {
		c.dryRun = true
	}
	return o, err
}

// propagation is the deletion policy o asks of res (deleteopts.Propagation).
func propagation(res *resource, o *protobuf.DeleteOptions) string {
	return deleteopts.Propagation(o, isNamespaces(res))
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
			return nil, false, apierr.Forbidden("", "namespaces", prev.name, "this namespace may not be deleted")
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
		strategy.SetFinalizers(meta, fins)
	}
	if prev.deleting && !changed {
		return prev, false, nil
	}
	if !strategy.HasFinalizers(o) {
		if wr.dryRun {
			return prev, true, nil
		}
		return s.removeLocked(res, wr.col, prev), true, nil
	}
	if !prev.deleting {
		strategy.MarkDeleting(meta, nowString())
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
	return apierr.New(http.StatusConflict, kube.ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", apierr.Qualified(res.Group, res.Kind), name, msg),
		&kube.StatusDetails{Name: name, Group: res.Group, Kind: res.Kind})
}

func (s *Server) serveDelete(c *call) {
	opts, err := c.parseDeleteOptions()
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	wr := c.write()
	wr.propagation = propagation(c.res, opts)
	rec, gone, err := s.admittedDelete(wr, opts, func(prev *record) (rec *record, gone bool, err *kube.StatusError) {
		if prev == nil {
			err = apierr.NotFound(c.res.Group, c.res.Plural, c.info.Name)
		} else if err = checkPreconditions(c.res, c.info.Name, prev, opts); err == nil {
			rec, gone, err = s.deleteLocked(wr, prev)
		}
		return rec, gone, err
	})
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	if gone && !c.res.ReturnDeleted {
		st := kube.Status{Status: "Success", Details: &kube.StatusDetails{Name: rec.name, Group: c.res.Group,
			Kind: c.res.Plural, UID: rec.uid}}
		apierr.WriteJSON(c.w, http.StatusOK, encode.Status(&st))
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
		apierr.Write(c.w, err)
		return
	}
	delOpts, err := c.parseDeleteOptions()
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	wr := c.write()
	wr.propagation = propagation(c.res, delOpts)
	var page *listPage
	admitted := false
	s.withLock(func() {
		if admitted = s.admitsDeletesLocked(wr); admitted {
			return
		}
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
	if admitted {
		if page, err = s.deleteCollectionAdmitted(wr, delOpts, opts.filter.matches); err != nil {
			apierr.Write(c.w, err)
			return
		}
	}
	c.writeList(page)
}
