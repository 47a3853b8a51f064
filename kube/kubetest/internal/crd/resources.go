// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// Resources are the resources the CRD o, named name and read as cs,
// serves: one per served version, each with its version's schema,
// printer, subresources and selectable fields, stored at the storage
// version.
func (cs Spec) Resources(name string, o map[string]any) []*kinds.Resource {
	storage := cs.StorageVersion()
	var out []*kinds.Resource
	for _, v := range cs.Versions {
		if !v.Served {
			continue
		}
		r := &kinds.Resource{Group: cs.Group, Version: v.Name, Plural: cs.Plural, Singular: cs.Singular,
			Kind: cs.Kind, ListKind: cs.Kind + "List", Namespaced: cs.Scope == "Namespaced",
			ShortNames: cs.ShortNames, Categories: cs.Categories, Status: v.Status, Scale: v.Scale, Generation: true,
			ConditionalUpdate: true, Fields: v.Fields, CRD: name, StorageVersion: storage,
			MultiVersion: len(cs.Versions) > 1, Printer: v.Printer,
			Schema: schema.CompileCRD(schema.CRDVersionSchema(o, v.Name))}
		if cs.ListKind != "" {
			r.ListKind = cs.ListKind
		}
		out = append(out, r)
	}
	return out
}
