// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/conversion"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// CleanupFinalizer is the finalizer of a CRD being deleted until its
// objects are gone.
const CleanupFinalizer = "customresourcecleanup.apiextensions.k8s.io"

// Admit validates the CRD o about to be created and, when it is valid,
// gives it the defaults and the status the real server stores before its
// controllers run (names not yet accepted, the storage version stored).
func Admit(o map[string]any) []fielderr.Error {
	cs := Parse(o)
	if errs := validateCreate(o, cs); len(errs) > 0 {
		return errs
	}
	names := o["spec"].(obj)["names"].(obj)
	if cs.Singular == "" {
		names["singular"] = strings.ToLower(cs.Kind)
	}
	if cs.ListKind == "" {
		names["listKind"] = cs.Kind + "List"
	}
	var stored []any
	for _, v := range cs.Versions {
		if v.Storage {
			stored = append(stored, v.Name)
		}
	}
	o["status"] = obj{"conditions": []any{}, "acceptedNames": obj{"plural": "", "kind": ""}, "storedVersions": stored}
	return nil
}

// validateCreate returns what is wrong with the CRD o, whose spec is cs.
func validateCreate(o obj, cs Spec) []fielderr.Error {
	name := unstructured.String(unstructured.Metadata(o), "name")
	var errs []fielderr.Error
	req := func(field string, v string) {
		if v == "" {
			errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: field})
		}
	}
	req("spec.group", cs.Group)
	req("spec.names.plural", cs.Plural)
	req("spec.names.kind", cs.Kind)
	if cs.Group != "" && cs.Plural != "" && name != cs.Plural+"."+cs.Group {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata.name", Value: name,
			Detail: `must be spec.names.plural+"."+spec.group`})
	}
	if cs.Scope != "Namespaced" && cs.Scope != "Cluster" {
		errs = append(errs, fielderr.Error{Type: "FieldValueNotSupported", Field: "spec.scope", Value: cs.Scope,
			Detail: fielderr.NotSupportedDetail("Cluster", "Namespaced")})
	}
	storage := 0
	for _, v := range cs.Versions {
		if v.Storage {
			storage++
		}
	}
	if len(cs.Versions) == 0 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.versions", Value: []any{},
			Detail: "must have exactly one version marked as storage version"})
	} else if storage != 1 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.versions", Value: storage,
			Detail: "must have exactly one version marked as storage version"})
	}
	errs = append(errs, conversion.Validate(o)...)
	errs = append(errs, table.ValidatePrinterColumns(o)...)
	return append(errs, schema.ValidateCRDSchemas(o)...)
}

// KeepNames keeps the defaults of spec.names in the CRD next about to
// replace a stored one.
func KeepNames(next map[string]any) {
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

// ValidateUpdate returns what is wrong with the CRD next replacing old:
// its scope, group and plural are immutable, and its conversion is
// validated as on create (conversion.Validate).
func ValidateUpdate(next, old map[string]any) []fielderr.Error {
	ns, os := Parse(next), Parse(old)
	var errs []fielderr.Error
	if ns.Scope != os.Scope {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.scope", Value: ns.Scope, Detail: "field is immutable"})
	}
	if ns.Group != os.Group {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.group", Value: ns.Group, Detail: "field is immutable"})
	}
	if ns.Plural != os.Plural {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "status.acceptedNames.plural", Value: ns.Plural, Detail: "field is immutable"})
	}
	errs = append(errs, conversion.Validate(next)...)
	errs = append(errs, table.ValidatePrinterColumns(next)...)
	return append(errs, schema.ValidateCRDSchemas(next)...)
}

// Establish does to the CRD o what the naming and establishing
// controllers do after it is created: accept its names and mark it
// NamesAccepted and Established at now.
func Establish(o map[string]any, now string) {
	spec, _ := o["spec"].(obj)
	st, _ := o["status"].(obj)
	st["acceptedNames"] = unstructured.DeepCopy(spec["names"])
	st["conditions"] = []any{
		obj{"type": "NamesAccepted", "status": "True", "lastTransitionTime": now, "reason": "NoConflicts",
			"message": "no conflicts found"},
		obj{"type": "Established", "status": "True", "lastTransitionTime": now, "reason": "InitialNamesAccepted",
			"message": "the initial names have been accepted"},
	}
}

// AddCleanupFinalizer adds the cleanup finalizer to a CRD being deleted,
// as the real server does then (not at create: a CRD read back after
// create has no finalizer, and a replace with the same CRD is a no-op).
func AddCleanupFinalizer(o map[string]any) {
	meta := unstructured.Metadata(o)
	fins, _ := meta["finalizers"].([]any)
	if !slices.Contains(stringList(meta, "finalizers"), CleanupFinalizer) {
		meta["finalizers"] = append(fins, CleanupFinalizer)
	}
}

// WithoutCleanupFinalizer returns the finalizers of the CRD o but the
// cleanup finalizer, and whether that one was among them.
func WithoutCleanupFinalizer(o map[string]any) (keep []any, had bool) {
	fins := stringList(unstructured.Metadata(o), "finalizers")
	for _, f := range fins {
		if f != CleanupFinalizer {
			keep = append(keep, f)
		}
	}
	return keep, len(keep) != len(fins)
}
