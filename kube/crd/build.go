// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
)

// Options are what a Go type cannot say about its CRD. The zero value
// makes a namespaced resource named after the kind, with the status
// subresource when the type has a status field.
type Options struct {
	// Plural is the resource name; by default the lower-case kind made
	// plural by the regular English rules (Widget: widgets, Policy:
	// policies, Box: boxes). Set it for irregular plurals.
	Plural string
	// Singular defaults to the lower-case kind.
	Singular   string
	ShortNames []string
	Categories []string
	// Scope defaults to Namespaced.
	Scope Scope
	// NoStatusSubresource leaves the status subresource out although the
	// type has a status field: status is then written with the rest of
	// the object, and a status change bumps metadata.generation.
	NoStatusSubresource bool
	// Scale adds the scale subresource.
	Scale *ScaleSubresource
	// PrinterColumns come after those of printColumn tags. When there are
	// columns and none shows .metadata.creationTimestamp, an Age column is
	// added last, as kubectl shows for a CRD without columns.
	PrinterColumns []PrinterColumn
	// SelectableFields come after those of selectableField tags.
	SelectableFields []SelectableField
}

// For builds the CRD of obj's type, a pointer to a struct that embeds
// kube.TypeMeta and kube.ObjectMeta (tagged `json:"metadata"`) and states
// its identity with a GroupVersionKind method: one version, served and
// stored, whose schema is built from the type's fields (see the package
// doc). Of obj's value, only what its GroupVersionKind method reads is
// used.
//
// The error names the Go type and the JSON path of what could not be
// described, or the tag that could not be read. For walks the type with
// reflection each time: build the CRD once, at start-up.
func For(obj kube.Object, opts Options) (*CustomResourceDefinition, error) {
	t := reflect.TypeOf(obj)
	if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("crd: For(%s): want a pointer to a struct", t)
	}
	gvk := obj.GroupVersionKind()
	if gvk.Group == "" || gvk.Version == "" || gvk.Kind == "" {
		return nil, fmt.Errorf("crd: For(%s): its GroupVersionKind %q lacks a group, version or kind", t, gvk)
	}
	wrap := func(err error) error { return fmt.Errorf("crd: schema of %s: %w", t.Elem(), err) }
	w := &walker{}
	root, err := w.structSchema(t.Elem(), place{resource: true})
	if err != nil {
		return nil, wrap(err)
	}
	root.Required = without(root.Required, "apiVersion", "kind", "metadata")

	names := Names{Plural: opts.Plural, Singular: opts.Singular, Kind: gvk.Kind, ListKind: gvk.Kind + "List",
		ShortNames: opts.ShortNames, Categories: opts.Categories}
	if names.Singular == "" {
		names.Singular = strings.ToLower(gvk.Kind)
	}
	if names.Plural == "" {
		names.Plural = Plural(gvk.Kind)
	}
	scope := opts.Scope
	if scope == "" {
		scope = Namespaced
	}
	v := Version{Name: gvk.Version, Served: true, Storage: true, Schema: &Validation{OpenAPIV3Schema: &root}}
	if _, ok := root.Properties["status"]; ok && !opts.NoStatusSubresource {
		v.Subresources = &Subresources{Status: &StatusSubresource{}}
	}
	if opts.Scale != nil {
		if v.Subresources == nil {
			v.Subresources = &Subresources{}
		}
		scale := *opts.Scale
		v.Subresources.Scale = &scale
	}
	v.AdditionalPrinterColumns = append(w.orderedColumns(), opts.PrinterColumns...)
	if len(v.AdditionalPrinterColumns) > 0 && !hasCreationColumn(v.AdditionalPrinterColumns) {
		v.AdditionalPrinterColumns = append(v.AdditionalPrinterColumns,
			PrinterColumn{Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp"})
	}
	v.SelectableFields = append(w.selectable, opts.SelectableFields...)
	if err := checkNames(v); err != nil {
		return nil, wrap(err)
	}

	c := &CustomResourceDefinition{
		ObjectMeta: kube.ObjectMeta{Name: names.Plural + "." + gvk.Group},
		Spec:       Spec{Group: gvk.Group, Names: names, Scope: scope, Versions: []Version{v}},
	}
	c.SetGroupVersionKind(c.GroupVersionKind())
	b, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("crd: encode the CRD of %s: %w", t.Elem(), err)
	}
	if len(b) > maxCRDBytes {
		return nil, fmt.Errorf("crd: the CRD of %s is %d bytes of JSON, more than the %d kube-apiserver stores", t.Elem(), len(b), maxCRDBytes)
	}
	return c, nil
}

// orderedColumns returns the columns of printColumn tags sorted by their
// printColumnOrder, those of one order (0 when not given) in field order.
func (w *walker) orderedColumns() []PrinterColumn {
	idx := make([]int, len(w.columns))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(w.columnOrder[a], w.columnOrder[b]) })
	out := make([]PrinterColumn, len(idx))
	for i, j := range idx {
		out[i] = w.columns[j]
	}
	return out
}

func without(list []string, drop ...string) []string {
	var out []string
	for _, s := range list {
		if !contains(drop, s) {
			out = append(out, s)
		}
	}
	return out
}

func hasCreationColumn(cols []PrinterColumn) bool {
	for _, c := range cols {
		if c.JSONPath == ".metadata.creationTimestamp" {
			return true
		}
	}
	return false
}

// checkNames refuses two printer columns of one name and two selectable
// fields of one path, which the server refuses too, with less context.
func checkNames(v Version) error {
	var errs []error
	seen := map[string]bool{}
	for _, c := range v.AdditionalPrinterColumns {
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("two printer columns named %q", c.Name))
		}
		seen[c.Name] = true
	}
	seen = map[string]bool{}
	for _, f := range v.SelectableFields {
		if seen[f.JSONPath] {
			errs = append(errs, fmt.Errorf("selectable field %s given twice", f.JSONPath))
		}
		seen[f.JSONPath] = true
	}
	return errors.Join(errs...)
}

// Plural returns the lower-case plural of kind by the regular English
// rules: -s, -x, -z, -ch and -sh take -es; a consonant and -y become
// -ies; everything else takes -s. Irregular plurals ("Person") need
// [Options.Plural].
func Plural(kind string) string {
	k := strings.ToLower(kind)
	switch {
	case k == "":
		return ""
	case strings.HasSuffix(k, "s"), strings.HasSuffix(k, "x"), strings.HasSuffix(k, "z"),
		strings.HasSuffix(k, "ch"), strings.HasSuffix(k, "sh"):
		return k + "es"
	case strings.HasSuffix(k, "y") && len(k) > 1 && !strings.ContainsRune("aeiou", rune(k[len(k)-2])):
		return k[:len(k)-1] + "ies"
	}
	return k + "s"
}
