// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/csr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/podsub"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
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
		return updateResult{}, apierr.BadRequest(fmt.Sprintf("the name of the object (%s based on URL) was undeterminable: name must be provided", wr.name))
	case name != wr.name:
		return updateResult{}, apierr.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, wr.name))
	}
	if err := ensureNamespace(meta, wr.namespace); err != nil {
		return updateResult{}, err
	}
	prev := col.objects[objectKey(wr.namespace, wr.name)]
	if uid := unstructured.String(meta, "uid"); prev == nil && uid != "" && s.facts.UIDPreconditionOnAbsent {
		return updateResult{}, errUIDPreconditionOnAbsent(res, wr.namespace, wr.name, uid)
	}
	if prev == nil {
		if !res.CreateOnUpdate || wr.sub != "" {
			return updateResult{}, apierr.NotFound(res.Group, res.Plural, wr.name)
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
		return updateResult{}, apierr.Invalid(res.Group, res.Plural, wr.name, []fielderr.Error{{Type: "FieldValueInvalid",
			Field: "metadata.resourceVersion", Value: uint64(0), Detail: "must be specified for an update"}})
	case rv != "" && rv != formatRV(prev.rv):
		return updateResult{}, apierr.Conflict(res.Group, res.Plural, wr.name, apierr.MsgModified)
	}
	old, err := res.Conversion.Read(res.fromStored(mustDecode(prev.raw)), res.APIVersion(), false)
	if err != nil {
		return updateResult{}, err
	}
	requested, hasRequested := meta["managedFields"]
	next := s.prepareUpdate(res, wr.sub, o, old)
	nextMeta := unstructured.Metadata(next)
	if err := s.checkUpdateLocked(wr, prev.deleting, next, old); err != nil {
		return updateResult{}, err
	}
	s.recordUpdateFields(wr, o, next, old, requested, hasRequested, managed)
	if s.facts.NullCreationTimestamp {
		defaulting.NullTemplateTimestamps(res.Group, res.Plural, next)
	}
	if strategy.SameObject(old, next) {
		return updateResult{rec: prev}, nil
	}
	if res.Generation && strategy.SpecChanged(res.Status, old, next) {
		g, _ := unstructured.IntegerValue(unstructured.Metadata(old)["generation"])
		nextMeta["generation"] = g + 1
	}
	if next, err = res.Conversion.ToStorage(res.toStored(next), res.storageAPIVersion()); err != nil {
		return updateResult{}, err
	}
	next["apiVersion"] = res.storageAPIVersion()
	if prev.deleting && !strategy.HasFinalizers(next) {
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

// checkUpdateLocked refuses next, the update of old, as the real server's
// validation does (deleting: old is being deleted, and may gain no
// finalizer). The caller holds s.mu.
func (s *Server) checkUpdateLocked(wr *write, deleting bool, next, old obj) *kube.StatusError {
	res, nextMeta := wr.res, unstructured.Metadata(next)
	errs := append(validation.Metadata(res.Names, nextMeta, wr.name, s.facts.OwnerRefs), validateCustomResource(res, wr.sub, next, old, s.facts.OldCRDWording)...)
	errs = append(errs, podSubErrors(res, wr.sub, next, old)...)
	if res.Plural != "pods" { // a Pod's containers cannot change
		errs = append(errs, validation.PodSpec(res.Group, res.Plural, next)...)
	}
	if errs = slices.Concat(errs, validation.Data(res.Group, res.Plural, next), defaulting.Validate(res.Group, res.Plural, next)); len(errs) > 0 {
		return apierr.Invalid(res.KindGroup(), res.Kind, wr.name, fielderr.InGoSyntax(errs, s.facts.GoSyntaxValues))
	}
	if err := s.validateUpdateLocked(res, next, old); err != nil {
		return err
	}
	if !deleting {
		return nil
	}
	if extra := strategy.NewFinalizers(stringList(unstructured.Metadata(old), "finalizers"), stringList(nextMeta, "finalizers")); len(extra) > 0 {
		return apierr.Invalid(res.KindGroup(), res.Kind, wr.name, []fielderr.Error{{Type: "FieldValueForbidden",
			Field:  "metadata.finalizers",
			Detail: "no new finalizers can be added if the object is being deleted, found new finalizers " + goStringList(extra)}})
	}
	return nil
}

// recordUpdateFields records in next's managedFields what the update
// (body o, of old) changed, by managed when not nil (an apply's), else
// by the write's field manager; requested is the body's managedFields,
// when it had them (hasRequested).
func (s *Server) recordUpdateFields(wr *write, o, next, old obj, requested any, hasRequested bool, managed func(meta, prev, next obj, now string)) {
	now, nextMeta := nowString(), unstructured.Metadata(next)
	switch {
	case managed == nil && wr.sub == "status" && wr.res.CRD != "" && s.facts.CRStatusRecordsMetadata:
		// 1.33 records the metadata sent, which the strategy did not keep.
		sent := strategy.PrepareStatusUpdate(false, nil, o, old)
		s.fieldManagerOf(wr, now).RecordUpdate(unstructured.Metadata(sent), old, sent, requested, hasRequested, wr.manager)
		nextMeta["managedFields"] = unstructured.Metadata(sent)["managedFields"]
	case managed == nil:
		s.fieldManagerOf(wr, now).RecordUpdate(nextMeta, old, next, requested, hasRequested, wr.manager)
	default:
		managed(nextMeta, old, next, now)
	}
}

// prepareUpdate builds the object to store from the body o and the stored
// old, keeping what the client may not change through this endpoint
// (internal/strategy), with the kind's own update strategy.
func (s *Server) prepareUpdate(res *resource, sub string, o, old obj) obj {
	switch sub {
	case "status":
		next := strategy.PrepareStatusUpdate(res.CRD != "", strategy.StatusResetMeta(res.Group, res.Plural), o, old)
		if isCSRs(res) {
			csr.StampConditions(next, old, nowString())
		}
		return next
	case "ephemeralcontainers":
		return podsub.PrepareEphemeral(o, old)
	case "resize":
		return podsub.PrepareResize(o, old)
	case "approval":
		next := csr.PrepareApproval(o, old, nowString())
		strategy.KeepSystemMeta(unstructured.Metadata(next), unstructured.Metadata(old))
		return next
	}
	return strategy.PrepareUpdate(res.Status, sub, o, old, func(next obj) { s.prepareUpdateKind(res, next, old) })
}

func (s *Server) serveUpdate(c *call) {
	o, err := c.decodeBody()
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	var out updateResult
	out, err = s.admitted(c.write(), false, o, s.updateStore)
	c.respondUpdate(out, err)
}

// respondUpdate answers a PUT or an apply: the error, or the object stored,
// with 201 when the write created it and 200 otherwise.
func (c *call) respondUpdate(out updateResult, err *kube.StatusError) {
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	code := http.StatusOK
	if out.created {
		code = http.StatusCreated
	}
	c.respond(code, out.rec.raw)
}

// goStringList formats names as Go's %#v formats a []string, the way the
// real message quotes them.
func goStringList(names []string) string { return fmt.Sprintf("%#v", names) }
