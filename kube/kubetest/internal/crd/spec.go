// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/table"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// Spec is what the server reads of a CRD's spec.
type Spec struct {
	Group, Plural, Singular, Kind, ListKind, Scope string
	ShortNames, Categories                         []string
	Versions                                       []Version
}

// Version is what the server reads of one of a CRD's versions.
type Version struct {
	Name            string
	Served, Storage bool
	Status          bool         // the status subresource
	Scale           *scale.Paths // the scale subresource, nil for none
	Fields          []string     // selectable fields, without the leading "."
	Printer         *table.Printer
}

// Parse reads the spec of the CRD o.
func Parse(o map[string]any) Spec {
	spec, _ := o["spec"].(obj)
	names, _ := spec["names"].(obj)
	cs := Spec{Group: unstructured.String(spec, "group"), Scope: unstructured.String(spec, "scope"),
		Plural: unstructured.String(names, "plural"), Singular: unstructured.String(names, "singular"), Kind: unstructured.String(names, "kind"),
		ListKind: unstructured.String(names, "listKind"), ShortNames: stringList(names, "shortNames"),
		Categories: stringList(names, "categories")}
	vs, _ := spec["versions"].([]any)
	for _, v := range vs {
		m, _ := v.(obj)
		cv := Version{Name: unstructured.String(m, "name"), Printer: table.CRDPrinter(m)}
		cv.Served, _ = m["served"].(bool)
		cv.Storage, _ = m["storage"].(bool)
		if sub, ok := m["subresources"].(obj); ok {
			_, cv.Status = sub["status"]
			cv.Scale = scale.FromCRD(sub)
		}
		fs, _ := m["selectableFields"].([]any)
		for _, f := range fs {
			if fm, ok := f.(obj); ok {
				cv.Fields = append(cv.Fields, strings.TrimPrefix(unstructured.String(fm, "jsonPath"), "."))
			}
		}
		cs.Versions = append(cs.Versions, cv)
	}
	return cs
}

// StorageVersion is the name of the version marked storage, "" for none
// (the last, if a CRD that failed validation marks several).
func (cs Spec) StorageVersion() string {
	storage := ""
	for _, v := range cs.Versions {
		if v.Storage {
			storage = v.Name
		}
	}
	return storage
}

// stringList returns the strings of the list m[k].
func stringList(m obj, k string) []string {
	in, _ := m[k].([]any)
	out := make([]string, 0, len(in))
	for _, v := range in {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
