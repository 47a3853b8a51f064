// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves CustomResourceDefinitions created through the API. A CRD
// is accepted and established at once (the real apiextensions controllers
// take a moment): its status gets NamesAccepted and Established, and every
// served version of its resource appears in discovery and can be used.
// Custom resources are schemaless: no validation against the OpenAPI schema,
// no pruning, no defaulting, and versions differ only in apiVersion
// (conversion strategy None). Deleting a CRD deletes its objects (honouring
// their finalizers) and then the CRD, as the customresourcecleanup
// finalizer does.

const crdCleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

func isCRDs(res *resource) bool {
	return res.Group == "apiextensions.k8s.io" && res.Plural == "customresourcedefinitions"
}

// crdSpec is what the fake reads of a CRD's spec.
type crdSpec struct {
	group, plural, singular, kind, listKind, scope string
	shortNames, categories                         []string
	versions                                       []crdVersion
}

type crdVersion struct {
	name            string
	served, storage bool
	status          bool
	scale           *scale.Paths
	fields          []string
	printer         *table.Printer
}

func parseCRDSpec(o obj) crdSpec {
	spec, _ := o["spec"].(obj)
	names, _ := spec["names"].(obj)
	cs := crdSpec{group: unstructured.String(spec, "group"), scope: unstructured.String(spec, "scope"),
		plural: unstructured.String(names, "plural"), singular: unstructured.String(names, "singular"), kind: unstructured.String(names, "kind"),
		listKind: unstructured.String(names, "listKind"), shortNames: stringList(names, "shortNames"),
		categories: stringList(names, "categories")}
	vs, _ := spec["versions"].([]any)
	for _, v := range vs {
		m, _ := v.(obj)
		cv := crdVersion{name: unstructured.String(m, "name"), printer: table.CRDPrinter(m)}
		cv.served, _ = m["served"].(bool)
		cv.storage, _ = m["storage"].(bool)
		if sub, ok := m["subresources"].(obj); ok {
			_, cv.status = sub["status"]
			cv.scale = scale.FromCRD(sub)
		}
		fs, _ := m["selectableFields"].([]any)
		for _, f := range fs {
			if fm, ok := f.(obj); ok {
				cv.fields = append(cv.fields, strings.TrimPrefix(unstructured.String(fm, "jsonPath"), "."))
			}
		}
		cs.versions = append(cs.versions, cv)
	}
	return cs
}

// prepareCRDCreate validates a CRD and gives it the defaults and the status
// the real server stores before its controllers run.
func (s *Server) prepareCRDCreate(o obj) *kube.StatusError {
	meta := unstructured.Metadata(o)
	cs := parseCRDSpec(o)
	name := unstructured.String(meta, "name")
	var errs []fielderr.Error
	req := func(field string, v string) {
		if v == "" {
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: field})
		}
	}
	req("spec.group", cs.group)
	req("spec.names.plural", cs.plural)
	req("spec.names.kind", cs.kind)
	if cs.group != "" && cs.plural != "" && name != cs.plural+"."+cs.group {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.name", Value: name,
			Detail: `must be spec.names.plural+"."+spec.group`})
	}
	if cs.scope != "Namespaced" && cs.scope != "Cluster" {
		errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: "spec.scope", Value: cs.scope,
			Detail: fielderr.NotSupportedDetail("Cluster", "Namespaced")})
	}
	storage := 0
	for _, v := range cs.versions {
		if v.storage {
			storage++
		}
	}
	if len(cs.versions) == 0 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.versions", Value: []any{},
			Detail: "must have exactly one version marked as storage version"})
	} else if storage != 1 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.versions", Value: storage,
			Detail: "must have exactly one version marked as storage version"})
	}
	errs = append(errs, table.ValidatePrinterColumns(o)...)
	errs = append(errs, schema.ValidateCRDSchemas(o)...)
	if len(errs) > 0 {
		return errInvalid("apiextensions.k8s.io", "CustomResourceDefinition", name, errs)
	}
	names := o["spec"].(obj)["names"].(obj)
	if cs.singular == "" {
		names["singular"] = strings.ToLower(cs.kind)
	}
	if cs.listKind == "" {
		names["listKind"] = cs.kind + "List"
	}
	var stored []any
	for _, v := range cs.versions {
		if v.storage {
			stored = append(stored, v.name)
		}
	}
	o["status"] = obj{"conditions": []any{}, "acceptedNames": obj{"plural": "", "kind": ""}, "storedVersions": stored}
	return nil
}

// prepareCRDDelete adds the cleanup finalizer to a CRD being deleted, as
// the real server does then (not at create: a CRD read back after
// create has no finalizer, and a replace with the same CRD is a no-op).
func prepareCRDDelete(o obj) {
	meta := unstructured.Metadata(o)
	fins, _ := meta["finalizers"].([]any)
	if !slices.Contains(stringList(meta, "finalizers"), crdCleanupFinalizer) {
		meta["finalizers"] = append(fins, crdCleanupFinalizer)
	}
}

// prepareCRDUpdate keeps the defaults of spec.names.
func prepareCRDUpdate(next obj) {
	spec, _ := next["spec"].(obj)
	names, _ := spec["names"].(obj)
	if names == nil {
		return
	}
	if unstructured.String(names, "singular") == "" {
		names["singular"] = strings.ToLower(unstructured.String(names, "kind"))
	}
	if unstructured.String(names, "listKind") == "" {
		names["listKind"] = unstructured.String(names, "kind") + "List"
	}
}

func validateCRDUpdate(next, old obj) *kube.StatusError {
	ns, os := parseCRDSpec(next), parseCRDSpec(old)
	var errs []fielderr.Error
	if ns.scope != os.scope {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.scope", Value: ns.scope, Detail: "field is immutable"})
	}
	if ns.group != os.group {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.group", Value: ns.group, Detail: "field is immutable"})
	}
	if ns.plural != os.plural {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "status.acceptedNames.plural", Value: ns.plural, Detail: "field is immutable"})
	}
	errs = append(errs, table.ValidatePrinterColumns(next)...)
	errs = append(errs, schema.ValidateCRDSchemas(next)...)
	if len(errs) > 0 {
		return errInvalid("apiextensions.k8s.io", "CustomResourceDefinition", unstructured.String(unstructured.Metadata(next), "name"), errs)
	}
	return nil
}

// establishCRDLocked does what the naming and establishing controllers do
// after a CRD is created: accept its names, mark it Established, and serve
// its resource.
func (s *Server) establishCRDLocked(rec *record) {
	res := s.reg.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	o := mustDecode(rec.raw)
	spec, _ := o["spec"].(obj)
	st, _ := o["status"].(obj)
	now := nowString()
	st["acceptedNames"] = unstructured.DeepCopy(spec["names"])
	st["conditions"] = []any{
		obj{"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts",
			"message": "no conflicts found"},
		obj{"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted",
			"message": "the initial names have been accepted"},
	}
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
	cs := parseCRDSpec(o)
	storage := ""
	for _, v := range cs.versions {
		if v.storage {
			storage = v.name
		}
	}
	if existing := s.reg.lookup(cs.group, storage, cs.plural); existing != nil && existing.CRD == "" {
		return // a built-in resource keeps its name
	}
	s.reg.removeCRD(name)
	for _, v := range cs.versions {
		if !v.served {
			continue
		}
		r := &resource{Group: cs.group, Version: v.name, Plural: cs.plural, Singular: unstructured.String(o["spec"].(obj)["names"].(obj), "singular"),
			Kind: cs.kind, ListKind: cs.kind + "List", Namespaced: cs.scope == "Namespaced",
			ShortNames: cs.shortNames, Categories: cs.categories, Status: v.status, Scale: v.scale, Generation: true,
			ConditionalUpdate: true, Fields: v.fields, CRD: name, StorageVersion: storage,
			MultiVersion: len(cs.versions) > 1, Printer: v.printer,
			Schema: schema.CompileCRD(schema.CRDVersionSchema(o, v.name))}
		if cs.listKind != "" {
			r.ListKind = cs.listKind
		}
		s.reg.add(r)
	}
	key := cs.group + "/" + cs.plural
	if s.cols[key] == nil {
		s.cols[key] = newCollection(s.opts.HistorySize, s.rv)
	}
	s.recoerceStoredLocked(s.reg.lookup(cs.group, storage, cs.plural))
}

// crdTerminatingLocked reports whether the CRD named crd is being deleted.
func (s *Server) crdTerminatingLocked(crd string) bool {
	r := s.cols["apiextensions.k8s.io/customresourcedefinitions"].objects[crd]
	return r != nil && r.deleting
}

// deleteCRDInstancesLocked deletes the objects of a CRD marked deleting and
// then the CRD when none is left.
func (s *Server) deleteCRDInstancesLocked(crd string) {
	for key, res := range s.storedResourcesLocked() {
		col := s.cols[key]
		if res.CRD != crd || col == nil {
			continue
		}
		for _, k := range append([]string(nil), col.keys()...) {
			if r := col.objects[k]; r != nil {
				wr := &write{res: res, col: col, namespace: r.namespace, manager: "kube-apiserver"}
				_, _, _ = s.deleteLocked(wr, r)
			}
		}
	}
	s.finishCRDLocked(crd)
}

// finishCRDLocked removes a terminating CRD whose objects are all gone.
func (s *Server) finishCRDLocked(crd string) {
	crdCol := s.cols["apiextensions.k8s.io/customresourcedefinitions"]
	rec := crdCol.objects[crd]
	if rec == nil || !rec.deleting {
		return
	}
	o := mustDecode(rec.raw)
	cs := parseCRDSpec(o)
	if col := s.cols[cs.group+"/"+cs.plural]; col != nil && len(col.objects) > 0 {
		return
	}
	res := s.reg.lookup("apiextensions.k8s.io", "v1", "customresourcedefinitions")
	fins := stringList(unstructured.Metadata(o), "finalizers")
	if len(fins) == 1 && fins[0] == crdCleanupFinalizer {
		s.removeLocked(res, crdCol, rec)
		return
	}
	var keep []any
	for _, f := range fins {
		if f != crdCleanupFinalizer {
			keep = append(keep, f)
		}
	}
	if len(keep) != len(fins) {
		unstructured.Metadata(o)["finalizers"] = keep
		s.commitLocked(res, crdCol, "MODIFIED", o, rec)
	}
}

// unregisterCRDLocked stops serving the resource of a deleted CRD: its
// watches end and its storage goes.
func (s *Server) unregisterCRDLocked(crd string) {
	var key string
	for _, list := range s.reg.byGV {
		for _, res := range list {
			if res.CRD == crd {
				key = res.colKey()
			}
		}
	}
	s.reg.removeCRD(crd)
	if col := s.cols[key]; col != nil {
		for w := range col.watchers {
			s.stopWatcherLocked(w)
		}
		delete(s.cols, key)
	}
}
