// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/base64"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file holds what is special about some kinds (namespaces here, CRDs
// in crd.go) behind hooks the generic write paths call. Namespaces get the
// label kubernetes.io/metadata.name and the spec finalizer "kubernetes" on
// create; their deletion is in nscontroller.go.

const labelNamespaceName = "kubernetes.io/metadata.name"

func isNamespaces(res *resource) bool { return res.Group == "" && res.Plural == "namespaces" }

// defaultKind applies the defaults a kind's decoding applies, before
// managedFields are computed: the namespace name label; a Secret's type
// (Opaque) and its write-only stringData, merged into data in base64; a
// Service's spec defaults (service.go); those of Pods and Deployments
// (defaults.go) and of the other workloads (defaults_workloads.go).
func defaultKind(res *resource, o obj) {
	if defaultWorkload(res, o) || defaultHPA(res, o) {
		return
	}
	switch {
	case isPods(res):
		defaultPod(o)
		return
	case res.Group == "apps" && res.Plural == "deployments":
		defaultDeployment(o)
		return
	}
	if res.Group == "" && res.Plural == "secrets" {
		defaultSecret(o)
		return
	}
	if res.Group == "" && res.Plural == "limitranges" {
		defaultLimitRange(o)
		return
	}
	if isServices(res) {
		defaultService(o)
		return
	}
	if !isNamespaces(res) {
		return
	}
	meta := unstructured.Metadata(o)
	labels, _ := meta["labels"].(obj)
	if labels == nil {
		labels = obj{}
		meta["labels"] = labels
	}
	labels[labelNamespaceName] = unstructured.String(meta, "name")
}

func defaultSecret(o obj) {
	if unstructured.String(o, "type") == "" {
		o["type"] = "Opaque"
	}
	sd, _ := o["stringData"].(obj)
	delete(o, "stringData")
	if len(sd) == 0 {
		return
	}
	data, _ := o["data"].(obj)
	if data == nil {
		data = obj{}
		o["data"] = data
	}
	for k, v := range sd {
		if s, ok := v.(string); ok {
			data[k] = base64.StdEncoding.EncodeToString([]byte(s))
		}
	}
}

// defaultLimitRange fills the defaults of Container limits as the real
// server does: a missing default limit from max, then a missing default
// request from the default limit, then from min.
func defaultLimitRange(o obj) {
	spec, _ := o["spec"].(obj)
	limits, _ := spec["limits"].([]any)
	for _, l := range limits {
		item, ok := l.(obj)
		if !ok || item["type"] != "Container" {
			continue
		}
		fill := func(to string, from ...string) {
			dst, _ := item[to].(obj)
			if dst == nil {
				dst = obj{}
			}
			for _, f := range from {
				src, _ := item[f].(obj)
				for k, v := range src {
					if _, ok := dst[k]; !ok {
						dst[k] = v
					}
				}
			}
			if len(dst) > 0 {
				item[to] = dst
			}
		}
		fill("default", "max")
		fill("defaultRequest", "default", "min")
	}
}

// prepareCreateLocked applies a kind's create strategy to o.
func (s *Server) prepareCreateLocked(res *resource, o obj) *kube.StatusError {
	switch {
	case isNamespaces(res):
		spec, _ := o["spec"].(obj)
		if spec == nil {
			spec = obj{}
			o["spec"] = spec
		}
		fins, _ := spec["finalizers"].([]any)
		if !slices.Contains(stringList(spec, "finalizers"), "kubernetes") {
			spec["finalizers"] = append(fins, "kubernetes")
		}
	case isCRDs(res):
		return s.prepareCRDCreate(o)
	case isServices(res):
		return s.allocateServiceLocked(res, o)
	case isPods(res):
		podAdmission(o)
	default:
		workloadAdmission(res, o)
	}
	return nil
}

// prepareUpdateKind applies a kind's defaults and update strategy to
// next.
func (s *Server) prepareUpdateKind(res *resource, next, old obj) {
	if isNamespaces(res) {
		if spec, ok := old["spec"]; ok {
			next["spec"] = unstructured.DeepCopy(spec)
		}
	}
	defaultKind(res, next)
	switch {
	case isCRDs(res):
		prepareCRDUpdate(next)
	case isServices(res):
		keepServiceAllocation(next, old)
	case res.Group == "apps" && res.Plural == "daemonsets":
		keepTemplateGeneration(next, old)
	}
}

// validateUpdateLocked refuses changes a kind does not allow.
func (s *Server) validateUpdateLocked(res *resource, next, old obj) *kube.StatusError {
	if isCRDs(res) {
		return validateCRDUpdate(next, old)
	}
	if errs := validateEvent(res, next, old); len(errs) > 0 {
		return errInvalid(res.kindGroup(), res.Kind, unstructured.String(unstructured.Metadata(next), "name"), errs)
	}
	return validateImmutable(res, next, old)
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
	for _, list := range s.reg.byGV {
		for _, r := range list {
			if cur := out[r.colKey()]; cur == nil || r.Version == r.StorageVersion {
				out[r.colKey()] = r
			}
		}
	}
	return out
}
