// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/conversion"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves CustomResourceDefinitions created through the API
// (package crd validates, defaults and establishes them). A CRD
// is accepted and established at once (the real apiextensions controllers
// take a moment): its status gets NamesAccepted and Established, and every
// served version of its resource appears in discovery and can be used.
// A version that is not the storage version of a CRD with conversion
// strategy Webhook gets the CRD's webhook (internal/conversion), which the
// request paths call; with strategy None versions differ only in
// apiVersion. Deleting a CRD deletes its objects (honouring
// their finalizers) and then the CRD, as the customresourcecleanup
// finalizer does.

func isCRDs(res *resource) bool {
	return res.Group == "apiextensions.k8s.io" && res.Plural == "customresourcedefinitions"
}

// prepareCRDCreate validates a CRD and gives it the defaults and the status
// the real server stores before its controllers run (crd.Admit).
func (s *Server) prepareCRDCreate(o obj) *kube.StatusError {
	if errs := crd.Admit(o); len(errs) > 0 {
		return apierr.Invalid("apiextensions.k8s.io", "CustomResourceDefinition", unstructured.String(unstructured.Metadata(o), "name"), errs)
	}
	return nil
}

func validateCRDUpdate(next, old obj) *kube.StatusError {
	if errs := crd.ValidateUpdate(next, old); len(errs) > 0 {
		return apierr.Invalid("apiextensions.k8s.io", "CustomResourceDefinition", unstructured.String(unstructured.Metadata(next), "name"), errs)
	}
	return nil
}

// establishCRDLocked does what the naming and establishing controllers do
// after a CRD is created: accept its names, mark it Established, and serve
// its resource.
func (s *Server) establishCRDLocked(rec *record) {
	res := s.reg.Lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	o := mustDecode(rec.raw)
	now := nowString()
	crd.Establish(o, now)
	old := mustDecode(rec.raw)
	s.fieldManagerOf(&write{res: res, sub: "status"}, now).RecordUpdate(unstructured.Metadata(o), old, o, nil, false, "kube-apiserver")
	rec = s.commitLocked(res, s.cols[res.colKey()], "MODIFIED", o, rec)
	s.registerCRDLocked(mustDecode(rec.raw))
}

// registerCRDLocked serves the resource of the CRD o (again, after an
// update), one resource per served version.
func (s *Server) registerCRDLocked(o obj) {
	name := unstructured.String(unstructured.Metadata(o), "name")
	if o["metadata"].(obj)["deletionTimestamp"] != nil {
		return
	}
	cs := crd.Parse(o)
	storage := cs.StorageVersion()
	if existing := s.reg.Lookup(cs.Group, storage, cs.Plural); existing != nil && existing.CRD == "" {
		return // a built-in resource keeps its name
	}
	s.reg.RemoveCRD(name)
	hook := conversion.Parse(o, s.opts.WebhookServices, s.opts.Minor)
	for _, k := range cs.Resources(name, o) {
		r := &resource{Resource: *k}
		if hook != nil && k.Version != storage {
			r.Conversion = hook
		}
		s.reg.Add(r)
	}
	key := cs.Group + "/" + cs.Plural
	if s.cols[key] == nil {
		s.cols[key] = newCollection(s.opts.HistorySize, s.rv)
	}
	s.recoerceStoredLocked(s.reg.Lookup(cs.Group, storage, cs.Plural))
}

// crdTerminatingLocked reports whether the CRD named name is being deleted.
func (s *Server) crdTerminatingLocked(name string) bool {
	r := s.cols["apiextensions.k8s.io/customresourcedefinitions"].objects[name]
	return r != nil && r.deleting
}

// deleteCRDInstancesLocked deletes the objects of a CRD marked deleting and
// then the CRD when none is left.
func (s *Server) deleteCRDInstancesLocked(name string) {
	for key, res := range s.storedResourcesLocked() {
		col := s.cols[key]
		if res.CRD != name || col == nil {
			continue
		}
		for _, k := range append([]string(nil), col.keys()...) {
			if r := col.objects[k]; r != nil {
				wr := &write{res: res, col: col, namespace: r.namespace, manager: "kube-apiserver"}
				_, _, _ = s.deleteLocked(wr, r)
			}
		}
	}
	s.finishCRDLocked(name)
}

// finishCRDLocked removes a terminating CRD whose objects are all gone.
func (s *Server) finishCRDLocked(name string) {
	crdCol := s.cols["apiextensions.k8s.io/customresourcedefinitions"]
	rec := crdCol.objects[name]
	if rec == nil || !rec.deleting {
		return
	}
	o := mustDecode(rec.raw)
	cs := crd.Parse(o)
	if col := s.cols[cs.Group+"/"+cs.Plural]; col != nil && len(col.objects) > 0 {
		return
	}
	res := s.reg.Lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	if fins := stringList(unstructured.Metadata(o), "finalizers"); len(fins) == 1 && fins[0] == crd.CleanupFinalizer {
		s.removeLocked(res, crdCol, rec)
		return
	}
	if keep, had := crd.WithoutCleanupFinalizer(o); had {
		unstructured.Metadata(o)["finalizers"] = keep
		s.commitLocked(res, crdCol, "MODIFIED", o, rec)
	}
}

// unregisterCRDLocked stops serving the resource of a deleted CRD: its
// watches end and its storage goes.
func (s *Server) unregisterCRDLocked(name string) {
	var key string
	for _, list := range s.reg.ByGV {
		for _, res := range list {
			if res.CRD == name {
				key = res.colKey()
			}
		}
	}
	s.reg.RemoveCRD(name)
	if col := s.cols[key]; col != nil {
		for w := range col.watchers {
			s.stopWatcherLocked(w)
		}
		delete(s.cols, key)
	}
}
