// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"regexp"
	"strings"
)

// obj is a decoded JSON object.
type obj = map[string]any

// Schema is one compiled node of an OpenAPI v3 schema: references are
// resolved (nodes of named types are shared, and may form cycles), and the
// allOf wrapper that OpenAPI v3 puts around a reference is flattened.
type Schema struct {
	// Name is the component name of a named type
	// ("io.k8s.api.core.v1.Container"); empty for anonymous schemas.
	Name string
	// Type is "object", "array", "string", "integer", "number",
	// "boolean", or "" (any type).
	Type   string
	Format string
	// Properties are the named fields of an object (a Go struct); names
	// are their names in order.
	Properties map[string]*Schema
	Names      []string
	// Additional is the schema of the values of a map
	// (additionalProperties); nil when the object has none.
	Additional *Schema
	// Items is the schema of the elements of a list.
	Elem     *Schema
	Required []string

	Nullable   bool
	HasDefault bool
	Default    any // a decoded JSON value; never modified

	Enum                               []any
	Minimum, Maximum, MultipleOf       *float64
	ExclusiveMinimum, ExclusiveMaximum bool
	MinLength, MaxLength               *int64
	MinItems, MaxItems                 *int64
	MinProperties, MaxProperties       *int64
	UniqueItems                        bool
	Pattern                            string
	pattern                            *regexp.Regexp // compiled Pattern; nil if it does not compile

	// AllOf, AnyOf, OneOf and Not are value validations only (structural
	// schemas forbid types and properties under them).
	AllOf, AnyOf, OneOf []*Schema
	Not                 *Schema

	// Kubernetes extensions.
	IntOrString      bool     // x-kubernetes-int-or-string
	PreserveUnknown  bool     // x-kubernetes-preserve-unknown-fields
	EmbeddedResource bool     // x-kubernetes-embedded-resource
	ListType         string   // x-kubernetes-list-type: atomic, set, map
	ListMapKeys      []string // x-kubernetes-list-map-keys
	MapType          string   // x-kubernetes-map-type: granular, atomic
	PatchStrategy    string   // x-kubernetes-patch-strategy
	PatchMergeKey    string   // x-kubernetes-patch-merge-key

	// goFields is, for a built-in struct, what the real server's Go
	// decoder says of its fields beyond their schemas (gotype.go),
	// by field name.
	goFields map[string]GoField

	// ZeroFields are, for a struct of a built-in kind, the properties
	// that are not scalars and that its Go zero value holds: true for a
	// struct that is not a pointer (published with "default": {}), false
	// for a list, map or pointer the JSON encoding keeps as null (a
	// required field). Server-side apply sees them in every object of the
	// kind, as the real server's typed objects have them
	// (package kubetest's managed fields). Custom resources ignore them.
	ZeroFields map[string]bool

	// hasEmbedded and hasSetLists say, at the root of a custom resource,
	// whether it has embedded resources and set or map lists to check.
	hasEmbedded, hasSetLists bool

	// userMeta is, at the root of a custom resource, the metadata schema
	// its CRD gave (rules for name and generateName only): validation
	// applies it, while Properties["metadata"] is ObjectMeta.
	userMeta *Schema
}

// FieldShape is what strategic merge patch and server-side apply need to
// know of a field. The zero value (Known false) is a field without a
// schema.
type FieldShape struct {
	// Known says the field has a schema.
	Known bool
	// Type is "object", "array", "string", "integer", "number", "boolean",
	// or "" (any: int-or-string, preserved unknown fields, quantities).
	Type string
	// Struct says an object has named fields (a Go struct, or a CRD
	// object with properties); Map says its keys are free
	// (additionalProperties). An object may be neither (any fields).
	Struct, Map bool
	// ListType is how server-side apply merges a list: "atomic", "set" or
	// "map". It is x-kubernetes-list-type when given; otherwise "map" for
	// a patch strategy "merge" with a merge key, "set" for "merge" without
	// one, and "atomic" for the rest (the rules of kube-openapi's schema
	// conversion for structured-merge-diff).
	ListType string
	// MapKeys are the keys of a "map" list: x-kubernetes-list-map-keys,
	// else the merge key.
	MapKeys []string
	// MapType is "atomic" or "granular" (x-kubernetes-map-type; granular
	// when absent) for objects.
	MapType string
	// PatchStrategy and MergeKey are the strategic merge patch directives
	// of the field as published (x-kubernetes-patch-strategy, e.g. "merge",
	// "retainKeys", "merge,retainKeys"; x-kubernetes-patch-merge-key).
	PatchStrategy, MergeKey string
	// IntOrString, PreserveUnknown and EmbeddedResource are the
	// x-kubernetes-* flags of the same names.
	IntOrString, PreserveUnknown, EmbeddedResource bool
}

// Field returns the schema of the field or map key name of an object: its
// property, else the value schema of a map; nil when unknown.
func (s *Schema) Field(name string) *Schema {
	if s == nil {
		return nil
	}
	if p, ok := s.Properties[name]; ok {
		return p
	}
	return s.Additional
}

// Items returns the schema of a list's elements; nil when unknown.
func (s *Schema) Items() *Schema {
	if s == nil {
		return nil
	}
	return s.Elem
}

// Lookup walks path from s: each element names a field or map key; a list
// on the way is stepped through to its elements (Kubernetes has no lists
// of lists). A path that leaves the schema returns nil.
func (s *Schema) Lookup(path ...string) *Schema {
	cur := s
	for _, p := range path {
		for cur != nil && cur.Type == "array" {
			cur = cur.Elem
		}
		cur = cur.Field(p)
	}
	return cur
}

// Shape summarizes s for merges.
func (s *Schema) Shape() FieldShape {
	if s == nil {
		return FieldShape{}
	}
	sh := FieldShape{Known: true, Type: s.Type, Struct: len(s.Properties) > 0, Map: s.Additional != nil,
		PatchStrategy: s.PatchStrategy, MergeKey: s.PatchMergeKey, IntOrString: s.IntOrString,
		PreserveUnknown: s.PreserveUnknown, EmbeddedResource: s.EmbeddedResource}
	switch s.Type {
	case "array":
		sh.ListType, sh.MapKeys = s.ListType, s.ListMapKeys
		merge := strings.Contains(s.PatchStrategy, "merge")
		switch {
		case sh.ListType != "":
		case merge && s.PatchMergeKey != "":
			sh.ListType, sh.MapKeys = "map", []string{s.PatchMergeKey}
		case merge:
			sh.ListType = "set"
		default:
			sh.ListType = "atomic"
		}
		if sh.ListType == "map" && len(sh.MapKeys) == 0 && s.PatchMergeKey != "" {
			sh.MapKeys = []string{s.PatchMergeKey}
		}
	case "object":
		sh.MapType = s.MapType
		if sh.MapType == "" {
			sh.MapType = "granular"
		}
	}
	return sh
}

// anyNode reports whether f holds for s or a node under it, visiting each
// node once (named types may form cycles).
func (s *Schema) anyNode(f func(*Schema) bool) bool {
	seen := map[*Schema]bool{}
	var walk func(n *Schema) bool
	walk = func(n *Schema) bool {
		if n == nil || seen[n] {
			return false
		}
		seen[n] = true
		if f(n) || walk(n.Additional) || walk(n.Elem) {
			return true
		}
		for _, p := range n.Properties {
			if walk(p) {
				return true
			}
		}
		return false
	}
	return walk(s)
}
