// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/csr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/events"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategy"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file holds what is special about some kinds (namespaces here, CRDs
// in crd.go) behind hooks the generic write paths call. Namespaces get the
// label kubernetes.io/metadata.name and the spec finalizer "kubernetes" on
// create; their deletion is in controllers.go.

func isNamespaces(res *resource) bool { return res.Group == "" && res.Plural == "namespaces" }

// defaultKind applies the defaults a kind's decoding applies
// (strategy.DefaultKind).
func defaultKind(res *resource, o obj) { strategy.DefaultKind(res.Group, res.Version, res.Plural, o) }

// prepareCreateLocked applies a kind's create strategy to o.
func (s *Server) prepareCreateLocked(res *resource, o obj) *kube.StatusError {
	switch {
	case isNamespaces(res):
		strategy.PrepareNamespace(o)
	case isCRDs(res):
		return s.prepareCRDCreate(o)
	case isServices(res):
		return s.allocateServiceLocked(res, o)
	default:
		defaulting.Admit(res.Group, res.Plural, o)
	}
	return nil
}

// prepareUpdateKind applies a kind's defaults and update strategy to
// next (strategy.KeepOnUpdate).
func (s *Server) prepareUpdateKind(res *resource, next, old obj) {
	strategy.KeepOnUpdate(res.Group, res.Version, res.Plural, next, old)
}

// validateUpdateLocked refuses changes a kind does not allow.
func (s *Server) validateUpdateLocked(res *resource, next, old obj) *kube.StatusError {
	if isCRDs(res) {
		return validateCRDUpdate(next, old)
	}
	if isCSRs(res) {
		if errs := csr.ValidateConditions(next, old, s.facts.CSRExclusive); len(errs) > 0 {
			return apierr.Invalid(res.KindGroup(), res.Kind, unstructured.String(unstructured.Metadata(next), "name"), errs)
		}
	}
	if errs := events.Validate(res.Group, res.Plural, next, old); len(errs) > 0 {
		return apierr.Invalid(res.KindGroup(), res.Kind, unstructured.String(unstructured.Metadata(next), "name"), errs)
	}
	if errs := validation.Immutable(res.Group, res.Plural, next, old); len(errs) > 0 {
		return apierr.Invalid(res.KindGroup(), res.Kind, unstructured.String(unstructured.Metadata(next), "name"), errs)
	}
	return nil
}

// afterCreateLocked runs what the real cluster does after a create.
func (s *Server) afterCreateLocked(res *resource, rec *record) {
	if isCRDs(res) {
		s.establishCRDLocked(rec)
	}
}

// afterUpdateLocked runs what the real cluster does after an update.
func (s *Server) afterUpdateLocked(res *resource, rec *record) {
	if isCRDs(res) {
		s.registerCRDLocked(mustDecode(rec.raw))
	}
}

// afterMarkDeletingLocked runs what acts on an object marked deleting: CRD
// instance cleanup (namespaces are the namespace controller's, queued by
// observeLocked).
func (s *Server) afterMarkDeletingLocked(res *resource, rec *record) {
	if isCRDs(res) {
		s.deleteCRDInstancesLocked(rec.name)
	}
}

// afterRemoveLocked runs what the removal of rec finishes: a terminating
// CRD whose last object went away, a CRD's resources.
func (s *Server) afterRemoveLocked(res *resource, rec *record) {
	switch {
	case isCRDs(res):
		s.unregisterCRDLocked(rec.name)
	case res.CRD != "":
		s.finishCRDLocked(res.CRD)
	}
}

// storedResourcesLocked returns one served resource per collection,
// preferring the storage version.
func (s *Server) storedResourcesLocked() map[string]*resource {
	out := map[string]*resource{}
	for _, list := range s.reg.ByGV {
		for _, r := range list {
			if cur := out[r.colKey()]; cur == nil || r.Version == r.StorageVersion {
				out[r.colKey()] = r
			}
		}
	}
	return out
}
