// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"reflect"
	"slices"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file updates objects: PUT, and the second half of every patch and
// apply. The rules are the generic registry's: optimistic concurrency on
// metadata.resourceVersion, system fields kept, the status subresource
// split, generation, finalizers of deleting objects, and no write at all
// when nothing changes.

// updateResult is what an update did.
type updateResult struct {
	rec     *record
	created bool // the object did not exist and was created (201)
}

// updateLocked replaces the object named by wr with o. managed records the
// write in managedFields (nil: an Update by wr.manager).
func (s *Server) updateLocked(wr *write, o obj, managed func(meta, prev, next obj, now string)) (updateResult, *kube.StatusError) {
	res, col := wr.res, wr.col
	coerceObject(res, o)
	meta := unstructured.Metadata(o)
	switch name := unstructured.String(meta, "name"); {
	case name == "":
		return updateResult{}, errBadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", wr.name))
	case name != wr.name:
		return updateResult{}, errBadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, wr.name))
	}
	if err := ensureNamespace(meta, wr.namespace); err != nil {
		return updateResult{}, err
	}
	prev := col.objects[objectKey(wr.namespace, wr.name)]
	if uid := unstructured.String(meta, "uid"); prev == nil && uid != "" && s.facts.uidPreconditionOnAbsent {
		return updateResult{}, errUIDPreconditionOnAbsent(res, wr.namespace, wr.name, uid)
	}
	if prev == nil {
		if !res.CreateOnUpdate || wr.sub != "" {
			return updateResult{}, errNotFound(res, wr.name)
		}
		delete(meta, "resourceVersion")
		rec, err := s.createLocked(wr, o)
		return updateResult{rec: rec, created: true}, err
	}
	if err := s.checkNamespaceLocked(wr, wr.name, false); err != nil {
		return updateResult{}, err
	}
	switch rv := unstructured.String(meta, "resourceVersion"); {
	case rv == "" && res.ConditionalUpdate:
		return updateResult{}, errInvalid(res.Group, res.Plural, wr.name, []fielderr.Error{{Type: "FieldValueInvalid",
			Field: "metadata.resourceVersion", Value: uint64(0), Detail: "must be specified for an update"}})
	case rv != "" && rv != formatRV(prev.rv):
		return updateResult{}, errConflict(res, wr.name, msgModified)
	}
	old := res.fromStored(mustDecode(prev.raw))
	requested, hasRequested := meta["managedFields"]
	next := s.prepareUpdate(res, wr.sub, o, old)
	nextMeta := unstructured.Metadata(next)
	errs := append(validation.Metadata(res.Names, nextMeta, wr.name, s.facts.ownerRefs), validateCustomResource(res, wr.sub, next, old)...)
	if errs = slices.Concat(errs, validation.Data(res.Group, res.Plural, next), defaulting.Validate(res.Group, res.Plural, next)); len(errs) > 0 {
		return updateResult{}, errInvalid(res.kindGroup(), res.Kind, wr.name, errs)
	}
	if err := s.validateUpdateLocked(res, next, old); err != nil {
		return updateResult{}, err
	}
	if prev.deleting {
		if extra := newFinalizers(stringList(unstructured.Metadata(old), "finalizers"), stringList(nextMeta, "finalizers")); len(extra) > 0 {
			return updateResult{}, errInvalid(res.kindGroup(), res.Kind, wr.name, []fielderr.Error{{Type: "FieldValueForbidden",
				Field:  "metadata.finalizers",
				Detail: "no new finalizers can be added if the object is being deleted, found new finalizers " + goStringList(extra)}})
		}
	}
	now := nowString()
	if managed == nil {
		s.fieldManagerOf(wr, now).RecordUpdate(nextMeta, old, next, requested, hasRequested, wr.manager)
	} else {
		managed(nextMeta, old, next, now)
	}
	if sameObject(old, next) {
		return updateResult{rec: prev}, nil
	}
	if res.Generation && specChanged(res, old, next) {
		g, _ := unstructured.IntegerValue(unstructured.Metadata(old)["generation"])
		nextMeta["generation"] = g + 1
	}
	next = res.toStored(next)
	next["apiVersion"] = res.storageAPIVersion()
	if prev.deleting && !hasFinalizers(next) {
		// The object goes (its DELETED event carries the last stored
		// state); the answer is the object as this write left it, as the
		// real server answers a PUT that empties the finalizers.
		if !wr.dryRun {
			s.removeLocked(res, col, prev)
		}
		return updateResult{rec: makeRecord(res, next)}, nil
	}
	if wr.dryRun {
		return updateResult{rec: makeRecord(res, next)}, nil
	}
	rec := s.commitLocked(res, col, "MODIFIED", next, prev)
	s.afterUpdateLocked(res, rec)
	return updateResult{rec: rec}, nil
}

// prepareUpdate builds the object to store from the body o and the stored
// old, keeping what the client may not change through this endpoint.
func (s *Server) prepareUpdate(res *resource, sub string, o, old obj) obj {
	oldMeta := unstructured.Metadata(old)
	if sub == "status" {
		next := unstructured.DeepCopy(old).(obj)
		if st, ok := o["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
		return next
	}
	if sub == "finalize" {
		// A namespace's finalize subresource: the body but its status, and
		// its spec (its finalizers) too, which an update keeps.
		spec, hasSpec := o["spec"]
		next := s.prepareUpdate(res, "", o, old)
		if hasSpec {
			next["spec"] = spec
		} else {
			delete(next, "spec")
		}
		return next
	}
	next := o
	meta := unstructured.Metadata(next)
	for _, k := range []string{"uid", "creationTimestamp", "generation", "deletionTimestamp",
		"deletionGracePeriodSeconds", "managedFields", "resourceVersion"} {
		if v, ok := oldMeta[k]; ok {
			meta[k] = v
		} else {
			delete(meta, k)
		}
	}
	if unstructured.String(meta, "generateName") == "" {
		if gn, ok := oldMeta["generateName"]; ok {
			meta["generateName"] = gn
		}
	}
	if res.Status {
		if st, ok := old["status"]; ok {
			next["status"] = st
		} else {
			delete(next, "status")
		}
	}
	s.prepareUpdateKind(res, next, old)
	return next
}

// sameObject reports whether an update changes nothing but the
// resourceVersion, in which case the real server writes nothing.
func sameObject(old, next obj) bool {
	om, nm := unstructured.Metadata(old), unstructured.Metadata(next)
	orv, nrv := om["resourceVersion"], nm["resourceVersion"]
	delete(om, "resourceVersion")
	delete(nm, "resourceVersion")
	oav, nav := old["apiVersion"], next["apiVersion"]
	next["apiVersion"] = oav
	same := jsonpatch.Equal(old, next)
	next["apiVersion"] = nav
	restore := func(m obj, k string, v any) {
		if v != nil {
			m[k] = v
		}
	}
	restore(om, "resourceVersion", orv)
	restore(nm, "resourceVersion", nrv)
	return same
}

// specChanged reports whether anything but metadata (and status, for kinds
// with the status subresource) differs: what bumps metadata.generation.
func specChanged(res *resource, old, next obj) bool {
	for k, v := range next {
		if k == "metadata" || k == "apiVersion" || (k == "status" && res.Status) {
			continue
		}
		if ov, ok := old[k]; !ok || !reflect.DeepEqual(ov, v) {
			return true
		}
	}
	for k := range old {
		if k == "metadata" || k == "apiVersion" || (k == "status" && res.Status) {
			continue
		}
		if _, ok := next[k]; !ok {
			return true
		}
	}
	return false
}

// hasFinalizers reports whether o still waits for a finalizer: one in
// metadata.finalizers, or for a namespace in spec.finalizers.
func hasFinalizers(o obj) bool {
	if len(stringList(unstructured.Metadata(o), "finalizers")) > 0 {
		return true
	}
	if unstructured.String(o, "kind") == "Namespace" {
		if spec, ok := o["spec"].(obj); ok && len(stringList(spec, "finalizers")) > 0 {
			return true
		}
	}
	return false
}

func (s *Server) serveUpdate(c *call) {
	o, err := c.decodeBody()
	if err != nil {
		writeError(c.w, err)
		return
	}
	var out updateResult
	s.withLock(func() { out, err = s.updateLocked(c.write(), o, nil) })
	c.respondUpdate(out, err)
}

// respondUpdate answers a PUT or an apply: the error, or the object stored,
// with 201 when the write created it and 200 otherwise.
func (c *call) respondUpdate(out updateResult, err *kube.StatusError) {
	if err != nil {
		writeError(c.w, err)
		return
	}
	code := http.StatusOK
	if out.created {
		code = http.StatusCreated
	}
	c.respond(code, out.rec.raw)
}

// newFinalizers returns the finalizers of next that old does not have: an
// object being deleted may lose finalizers but not gain them.
func newFinalizers(old, next []string) []string {
	var extra []string
	for _, f := range next {
		if !slices.Contains(old, f) && !slices.Contains(extra, f) {
			extra = append(extra, f)
		}
	}
	return extra
}

// goStringList formats names as Go's %#v formats a []string, the way the
// real message quotes them.
func goStringList(names []string) string { return fmt.Sprintf("%#v", names) }
