// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"slices"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file changes objects to fit their schema as the real server does
// when it decodes them: pruning of unknown fields (custom resources
// unless x-kubernetes-preserve-unknown-fields; built-in kinds, whose
// decoding into Go types drops them), the removal of nulls the schema
// does not allow, and defaulting (custom resources: on create, update,
// patch, apply, and on reads of objects stored before the default
// existed).

// metaFields are the fields every object has, which the schema of a
// resource root or an embedded resource need not list.
var metaFields = map[string]bool{"apiVersion": true, "kind": true, "metadata": true}

// pruner removes unknown fields, recording their paths when track is set.
type pruner struct {
	track   bool
	unknown []string
	// metaUnknown are the unknown fields of embedded objects' metadata,
	// which the real server reports after the others.
	metaUnknown []string
	inMeta      bool
	// builtin says the schema is a built-in kind's: an object without
	// properties or additionalProperties holds anything (RawExtension,
	// JSON), as its Go type does.
	builtin bool
}

// Prune removes the fields of the object o that s does not know and
// returns their paths, sorted ("spec.foo", "spec.items[0].bar"), when
// track is set. The root keeps apiVersion, kind and metadata.
func Prune(s *Schema, o obj, track, builtin bool) []string {
	p := &pruner{track: track, builtin: builtin}
	p.object(s, o, "", true)
	slices.Sort(p.unknown)
	return append(p.unknown, p.metaUnknown...)
}

// child and index build paths only when they are tracked: pruning
// objects without unknown fields allocates nothing for them.
func (p *pruner) child(path, key string) string {
	if !p.track {
		return ""
	}
	return child(path, key)
}

func (p *pruner) index(path string, i int) string {
	if !p.track {
		return ""
	}
	return path + "[" + strconv.Itoa(i) + "]"
}

func (p *pruner) record(path, key string) {
	switch {
	case !p.track:
	case p.inMeta:
		p.metaUnknown = append(p.metaUnknown, child(path, key))
	default:
		p.unknown = append(p.unknown, child(path, key))
	}
}

func (p *pruner) value(s *Schema, x any, path string) {
	switch t := x.(type) {
	case obj:
		p.object(s, t, path, false)
	case []any:
		var items *Schema
		if s != nil {
			items = s.Elem
		}
		for i, v := range t {
			p.value(items, v, p.index(path, i))
		}
	}
}

// object prunes o. At the root, and in an embedded resource, apiVersion,
// kind and metadata are left alone.
func (p *pruner) object(s *Schema, o obj, path string, root bool) {
	embedded := root || (s != nil && s.EmbeddedResource)
	if m, ok := o["metadata"].(obj); ok && embedded && !root && s != nil {
		// An embedded object's metadata is ObjectMeta.
		builtin, inMeta := p.builtin, p.inMeta
		p.builtin, p.inMeta = true, true
		p.object(OpenAPI().ObjectMeta, m, p.child(path, "metadata"), false)
		p.builtin, p.inMeta = builtin, inMeta
	}
	if s != nil && s.PreserveUnknown {
		for k, v := range o {
			if embedded && metaFields[k] {
				continue
			}
			if prop, ok := s.Properties[k]; ok {
				p.value(prop, v, p.child(path, k))
			} else if s.Additional != nil {
				p.value(s.Additional, v, p.child(path, k))
			}
		}
		return
	}
	if s != nil && p.builtin && len(s.Properties) == 0 && s.Additional == nil {
		return // a built-in "any": RawExtension, JSON
	}
	for k, v := range o {
		if embedded && metaFields[k] && s != nil {
			continue
		}
		switch {
		case s == nil:
			p.record(path, k)
			delete(o, k)
		case s.Properties[k] != nil:
			p.value(s.Properties[k], v, p.child(path, k))
		case s.Additional != nil:
			p.value(s.Additional, v, p.child(path, k))
		default:
			if !metaFields[k] || path != "" {
				p.record(path, k)
			}
			delete(o, k)
		}
	}
}

// dropNulls removes the nulls of x that s neither allows (nullable) nor
// defaults, as the real server does before it defaults.
func dropNulls(s *Schema, x any) {
	switch t := x.(type) {
	case obj:
		for k, v := range t {
			var fs *Schema
			if s != nil {
				fs = s.Field(k)
			}
			if v == nil && fs != nil && !fs.Nullable && !fs.HasDefault {
				delete(t, k)
				continue
			}
			dropNulls(fs, v)
		}
	case []any:
		var items *Schema
		if s != nil {
			items = s.Elem
		}
		for _, v := range t {
			dropNulls(items, v)
		}
	}
}

// applyDefaults sets the defaults of s in x: a missing field (or a null
// one that is not nullable) takes its default, then defaults apply inside
// every value, defaulted ones included.
func applyDefaults(s *Schema, x any) {
	if s == nil {
		return
	}
	isDefaultableNull := func(v any, fs *Schema) bool { return v == nil && fs != nil && !fs.Nullable && fs.HasDefault }
	switch t := x.(type) {
	case obj:
		for k, prop := range s.Properties {
			if !prop.HasDefault {
				continue
			}
			if v, ok := t[k]; !ok || isDefaultableNull(v, prop) {
				t[k] = unstructured.DeepCopy(prop.Default)
			}
		}
		for k, v := range t {
			if prop, ok := s.Properties[k]; ok {
				applyDefaults(prop, v)
			} else if s.Additional != nil {
				if isDefaultableNull(v, s.Additional) {
					t[k] = unstructured.DeepCopy(s.Additional.Default)
				}
				applyDefaults(s.Additional, t[k])
			}
		}
	case []any:
		for i, v := range t {
			if isDefaultableNull(v, s.Elem) {
				t[i] = unstructured.DeepCopy(s.Elem.Default)
			}
			applyDefaults(s.Elem, t[i])
		}
	}
}
