// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"regexp"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file compiles decoded OpenAPI schemas (OpenAPI v3 components as
// kube-apiserver publishes them, or a CRD's openAPIV3Schema) into the
// schema nodes of schema.go.

// compiler compiles the schemas of one document. Named types are compiled
// once and shared, so recursive types become cycles.
type compiler struct {
	// components holds the document's schemas by name.
	components map[string]any
	// prefix is what references start with: "#/components/schemas/".
	prefix string
	named  map[string]*Schema
}

func NewCompiler(components map[string]any) *compiler {
	return &compiler{components: components, prefix: "#/components/schemas/", named: map[string]*Schema{}}
}

// Named returns the compiled named type, or nil when the document has no
// schema of that name.
func (c *compiler) Named(name string) *Schema {
	if n, ok := c.named[name]; ok {
		return n
	}
	raw, ok := c.components[name].(obj)
	if !ok {
		return nil
	}
	n := &Schema{Name: name}
	c.named[name] = n // before filling: references back to it find it
	c.fill(n, raw)
	return n
}

// Compile compiles an anonymous schema. A reference, or the allOf
// wrapper OpenAPI v3 puts around one to give it a description or a
// default, is the named node itself; a wrapper that gives the field a
// patch strategy or merge key (DeploymentSpec.strategy's retainKeys) is a
// copy of it that carries them, as they are the field's, not the type's.
func (c *compiler) Compile(raw obj) *Schema {
	if raw == nil {
		return nil
	}
	if name := c.refName(raw); name != "" {
		if n := c.Named(name); n != nil {
			strategy, _ := raw["x-kubernetes-patch-strategy"].(string)
			key, _ := raw["x-kubernetes-patch-merge-key"].(string)
			if strategy == "" && key == "" {
				return n
			}
			field := *n
			field.PatchStrategy, field.PatchMergeKey = strategy, key
			return &field
		}
	}
	n := &Schema{}
	c.fill(n, raw)
	return n
}

// refName returns the name raw refers to: a "$ref", or an "allOf" of one
// "$ref" with nothing else but a description, a default or a field's
// patch directives beside it.
func (c *compiler) refName(raw obj) string {
	if ref, ok := raw["$ref"].(string); ok {
		return strings.TrimPrefix(ref, c.prefix)
	}
	all, ok := raw["allOf"].([]any)
	if !ok || len(all) != 1 {
		return ""
	}
	for k := range raw {
		switch k {
		case "allOf", "description", "default", "x-kubernetes-patch-strategy", "x-kubernetes-patch-merge-key":
		default:
			return ""
		}
	}
	inner, _ := all[0].(obj)
	ref, _ := inner["$ref"].(string)
	if ref == "" || len(inner) != 1 {
		return ""
	}
	return strings.TrimPrefix(ref, c.prefix)
}

// fill gives n what raw, a schema of the OpenAPI document, declares.
func (c *compiler) fill(n *Schema, raw obj) {
	c.fillStructure(n, raw)
	c.fillConstraints(n, raw)
	fillExtensions(n, raw)
}

// fillStructure gives n the type, format and the shape of its content
// (properties, additionalProperties, items, required) that raw declares.
func (c *compiler) fillStructure(n *Schema, raw obj) {
	switch t := raw["type"].(type) {
	case string:
		n.Type = t
	case []any: // ["string", "null"]: the first real type
		for _, v := range t {
			if s, _ := v.(string); s != "" && s != "null" {
				n.Type = s
				break
			}
		}
	}
	n.Format, _ = raw["format"].(string)
	if props, ok := raw["properties"].(obj); ok {
		n.Properties = make(map[string]*Schema, len(props))
		for k, v := range props {
			p, _ := v.(obj)
			n.Properties[k] = c.Compile(p)
			if d, ok := p["default"].(obj); ok && len(d) == 0 {
				if n.ZeroFields == nil {
					n.ZeroFields = map[string]bool{}
				}
				n.ZeroFields[k] = true
			}
		}
		n.Names = unstructured.SortedKeys(n.Properties)
	}
	switch ap := raw["additionalProperties"].(type) {
	case obj:
		n.Additional = c.Compile(ap)
	case bool:
		if ap {
			n.Additional = &Schema{}
		}
	}
	if items, ok := raw["items"].(obj); ok {
		n.Elem = c.Compile(items)
	}
	for _, r := range AnyList(raw["required"]) {
		if s, ok := r.(string); ok {
			n.Required = append(n.Required, s)
			if p := n.Properties[s]; p != nil && (p.Type == "array" || p.Type == "object") && !n.ZeroFields[s] {
				if n.ZeroFields == nil {
					n.ZeroFields = map[string]bool{}
				}
				n.ZeroFields[s] = false
			}
		}
	}
}

// fillConstraints gives n the value constraints raw declares (nullable,
// default, enum, bounds, pattern, allOf/anyOf/oneOf/not).
func (c *compiler) fillConstraints(n *Schema, raw obj) {
	n.Nullable, _ = raw["nullable"].(bool)
	if d, ok := raw["default"]; ok {
		n.HasDefault, n.Default = true, d
	}
	n.Enum = AnyList(raw["enum"])
	n.Minimum, n.Maximum, n.MultipleOf = numberPtr(raw["minimum"]), numberPtr(raw["maximum"]), numberPtr(raw["multipleOf"])
	n.ExclusiveMinimum, _ = raw["exclusiveMinimum"].(bool)
	n.ExclusiveMaximum, _ = raw["exclusiveMaximum"].(bool)
	n.MinLength, n.MaxLength = intPtr(raw["minLength"]), intPtr(raw["maxLength"])
	n.MinItems, n.MaxItems = intPtr(raw["minItems"]), intPtr(raw["maxItems"])
	n.MinProperties, n.MaxProperties = intPtr(raw["minProperties"]), intPtr(raw["maxProperties"])
	n.UniqueItems, _ = raw["uniqueItems"].(bool)
	if p, ok := raw["pattern"].(string); ok {
		n.Pattern = p
		n.pattern, _ = regexp.Compile(p)
	}
	for _, l := range []struct {
		key string
		to  *[]*Schema
	}{{"allOf", &n.AllOf}, {"anyOf", &n.AnyOf}, {"oneOf", &n.OneOf}} {
		for _, v := range AnyList(raw[l.key]) {
			if m, ok := v.(obj); ok {
				*l.to = append(*l.to, c.Compile(m))
			}
		}
	}
	if not, ok := raw["not"].(obj); ok {
		n.Not = c.Compile(not)
	}
}

// fillExtensions gives n the x-kubernetes- extensions raw declares; an
// untyped int-or-string format is IntOrString.
func fillExtensions(n *Schema, raw obj) {
	n.IntOrString, _ = raw["x-kubernetes-int-or-string"].(bool)
	n.PreserveUnknown, _ = raw["x-kubernetes-preserve-unknown-fields"].(bool)
	n.EmbeddedResource, _ = raw["x-kubernetes-embedded-resource"].(bool)
	n.ListType, _ = raw["x-kubernetes-list-type"].(string)
	for _, k := range AnyList(raw["x-kubernetes-list-map-keys"]) {
		if s, ok := k.(string); ok {
			n.ListMapKeys = append(n.ListMapKeys, s)
		}
	}
	n.MapType, _ = raw["x-kubernetes-map-type"].(string)
	n.PatchStrategy, _ = raw["x-kubernetes-patch-strategy"].(string)
	n.PatchMergeKey, _ = raw["x-kubernetes-patch-merge-key"].(string)
	if n.Type == "" && n.Format == "int-or-string" {
		n.IntOrString = true
	}
}

func AnyList(v any) []any {
	l, _ := v.([]any)
	return l
}

func numberPtr(v any) *float64 {
	f, ok := unstructured.NumberValue(v)
	if !ok {
		return nil
	}
	return &f
}

func intPtr(v any) *int64 {
	f, ok := unstructured.NumberValue(v)
	if !ok {
		return nil
	}
	i := int64(f)
	if n, ok := v.(int64); ok {
		i = n
	}
	return &i
}
