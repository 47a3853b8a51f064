// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file walks objects with their schema the way structured-merge-diff
// does for the real server's managedFields and server-side apply: which
// fields a value sets, what changed between two values, how a
// configuration merges into an object, and how fields are taken out. The
// schema decides each value's shape (schema.Schema.Shape):
//
//   - a list is atomic (replaced whole, owned as one field), a set (its
//     entries owned as v:<value>) or a map (entries owned as k:{keys},
//     keys defaulted from the entry schema's defaults);
//   - an object is granular (its fields owned one by one) unless
//     x-kubernetes-map-type is atomic;
//   - a value without a schema (x-kubernetes-preserve-unknown-fields) is
//     deduced: objects granular, lists atomic.
//
// Built-in kinds are Go structs in the real server: a struct field that is
// not a pointer is always there, empty or not, and a required list is
// there as null (Schema.ZeroFields). The comparisons see them in every
// object of a built-in kind, so that a field added inside them does not
// make the struct "added" (no "." of its own), as in the real server.

type shapeKind int

const (
	scalarShape shapeKind = iota
	listShape
	mapShape
)

// valueShape is the shape of one value.
type valueShape struct {
	kind   shapeKind
	atomic bool
	set    bool     // a list of scalars owned by value
	keys   []string // a list of objects owned by these keys
}

// rawExtension is the schema of embedded serialized objects (a
// ControllerRevision's data), which the real field manager owns as one
// field whatever they hold.
const rawExtension = "io.k8s.apimachinery.pkg.runtime.RawExtension"

// shapeOf returns the shape of v at schema s (nil: deduced).
func shapeOf(s *schema.Schema, v any) valueShape {
	if s == nil {
		switch v.(type) {
		case obj:
			return valueShape{kind: mapShape}
		case []any:
			return valueShape{kind: listShape, atomic: true}
		}
		return valueShape{kind: scalarShape}
	}
	if s.IntOrString || s.Name == rawExtension {
		return valueShape{kind: scalarShape}
	}
	typ := s.Type
	if typ == "" {
		switch v.(type) {
		case obj:
			typ = "object"
		case []any:
			typ = "array"
		}
	}
	switch typ {
	case "object":
		return valueShape{kind: mapShape, atomic: s.MapType == "atomic"}
	case "array":
		t := s
		if s.Type != "array" {
			c := *s
			c.Type = "array"
			t = &c
		}
		sh := t.Shape()
		switch {
		case sh.ListType == "map" && len(sh.MapKeys) > 0:
			return valueShape{kind: listShape, keys: sh.MapKeys}
		case sh.ListType == "map" || sh.ListType == "set":
			return valueShape{kind: listShape, set: true}
		}
		return valueShape{kind: listShape, atomic: true}
	}
	return valueShape{kind: scalarShape}
}

// fieldSchema returns the schema of the field or map key name of an
// object at s, and whether it is a named field (a property).
func fieldSchema(s *schema.Schema, name string) (*schema.Schema, bool) {
	if s == nil {
		return nil, false
	}
	if p, ok := s.Properties[name]; ok {
		return p, true
	}
	return s.Additional, false
}

// itemElement is the path element of a list entry: k:{...} for a map
// list (key fields missing from the entry take their schema default),
// v:<json> for a set. The errors are the real server's.
func itemElement(s *schema.Schema, sh valueShape, item any) (string, error) {
	if sh.keys == nil {
		switch item.(type) {
		case obj:
			return "", fmt.Errorf("associative list without keys has an element that's a map type")
		case []any:
			return "", fmt.Errorf("not supported: associative list with lists as elements")
		case nil:
			return "", fmt.Errorf("associative list without keys has an element that's an explicit null")
		}
		return "v:" + encodeElementValue(item), nil
	}
	if item == nil {
		return "", fmt.Errorf("associative list with keys may not have a null element")
	}
	m, ok := item.(obj)
	if !ok {
		return "", fmt.Errorf("associative list with keys may not have non-map elements")
	}
	key := make(obj, len(sh.keys))
	elem := s.Items()
	for _, k := range sh.keys {
		if v, ok := m[k]; ok {
			key[k] = v
		} else if p, _ := fieldSchema(elem, k); p != nil && p.HasDefault {
			key[k] = p.Default
		}
	}
	if len(key) == 0 {
		return "", fmt.Errorf("associative list with keys has an element that omits all key fields %q (and doesn't have default values for any key fields)", sh.keys)
	}
	return "k:" + encodeElementValue(key), nil
}

// listEntries indexes a list's entries by path element, in order of first
// appearance; dup holds the elements seen more than once.
func listEntries(s *schema.Schema, sh valueShape, items []any) (order []string, byElem map[string][]any, err error) {
	byElem = make(map[string][]any, len(items))
	for i, it := range items {
		e, ierr := itemElement(s, sh, it)
		if ierr != nil {
			err = fmt.Errorf("element %d: %v", i, ierr)
			continue
		}
		if _, seen := byElem[e]; !seen {
			order = append(order, e)
		}
		byElem[e] = append(byElem[e], it)
	}
	return order, byElem, err
}

// toFieldSet returns the fields v sets: every scalar, atomic list and
// atomic map; every list entry (and its fields); a map key whose value is
// null or empty, or that is not a named field. An error names the first
// list that cannot be indexed; duplicates are owned as one entry.
func toFieldSet(s *schema.Schema, v any) (*fieldSet, error) {
	out := newFieldSet()
	var first error
	var walk func(n *fieldSet, path []string, s *schema.Schema, v any)
	walk = func(n *fieldSet, path []string, s *schema.Schema, v any) {
		sh := shapeOf(s, v)
		switch sh.kind {
		case scalarShape:
			n.member = true
		case listShape:
			items, isList := v.([]any)
			if sh.atomic {
				n.member = true
				return
			}
			if !isList {
				return
			}
			order, byElem, err := listEntries(s, sh, items)
			if err != nil && first == nil {
				first = fmt.Errorf("%s: %v", PathString(path), err)
			}
			for _, e := range order {
				c := n.descend(e)
				c.member = true
				if len(byElem[e]) == 1 {
					walk(c, append(path, e), s.Items(), byElem[e][0])
					c.member = true
				}
			}
		case mapShape:
			m, isMap := v.(obj)
			if sh.atomic {
				n.member = true
				return
			}
			if !isMap {
				return
			}
			for k, cv := range m {
				cs, named := fieldSchema(s, k)
				e := fieldElement(k)
				c := n.descend(e)
				walk(c, append(path, e), cs, cv)
				if cm, isObj := cv.(obj); cv == nil || (isObj && len(cm) == 0) || !named {
					c.member = true
				}
			}
		}
	}
	walk(out, nil, s, v)
	return out.clone(), first
}

// ensureNamedFields returns set with every named field (a property of a
// struct) on the way to a member made a member too: what pruning removes
// with the fields under it.
func ensureNamedFields(s *schema.Schema, set *fieldSet) *fieldSet {
	out := &fieldSet{member: set != nil && set.member}
	if set == nil {
		return out
	}
	for e, c := range set.children {
		var cs *schema.Schema
		named := false
		switch e[0] {
		case 'f':
			if s != nil {
				cs, named = s.Properties[e[2:]]
				if !named {
					cs = s.Additional
				}
			}
		case 'k':
			cs = s.Items()
		}
		cc := ensureNamedFields(cs, c)
		cc.member = c.member || (named && !c.empty())
		if out.children == nil {
			out.children = map[string]*fieldSet{}
		}
		out.children[e] = cc
	}
	return out
}

// removeFields returns v without the members of set (each with what is
// under it). A map or list left empty by the removal is reported absent
// (ok false), so that its parent drops it.
func removeFields(s *schema.Schema, v any, set *fieldSet) (out any, ok bool) {
	if set.empty() {
		return v, true
	}
	sh := shapeOf(s, v)
	switch {
	case sh.kind == listShape && !sh.atomic:
		items, isList := v.([]any)
		if !isList || len(items) == 0 {
			return v, true
		}
		var kept []any
		for _, it := range items {
			e, err := itemElement(s, sh, it)
			if err != nil {
				kept = append(kept, it)
				continue
			}
			if set.hasMember(e) {
				continue
			}
			if c := set.child(e); !c.empty() {
				nv, keep := removeFields(s.Items(), it, c)
				if !keep {
					nv = obj{}
				}
				it = nv
			}
			kept = append(kept, it)
		}
		return kept, len(kept) > 0
	case sh.kind == mapShape && !sh.atomic:
		m, isMap := v.(obj)
		if !isMap || len(m) == 0 {
			return v, true
		}
		res := make(obj, len(m))
		for k, cv := range m {
			e := fieldElement(k)
			if set.hasMember(e) {
				continue
			}
			if c := set.child(e); !c.empty() {
				cs, _ := fieldSchema(s, k)
				nv, keep := removeFields(cs, cv, c)
				if !keep {
					continue
				}
				cv = nv
			}
			res[k] = cv
		}
		return res, len(res) > 0
	}
	return v, true
}

// DuplicateEntries returns the real server's error for an apply
// configuration with two entries of one key in a set or map list, or an
// entry without keys ("" when there is none).
func DuplicateEntries(s *schema.Schema, v any) string {
	var msg string
	var walk func(path []string, s *schema.Schema, v any)
	walk = func(path []string, s *schema.Schema, v any) {
		if msg != "" {
			return
		}
		sh := shapeOf(s, v)
		switch {
		case sh.kind == listShape && !sh.atomic:
			items, _ := v.([]any)
			seen := map[string]bool{}
			for i, it := range items {
				e, err := itemElement(s, sh, it)
				if err != nil {
					msg = fmt.Sprintf("%s: element %d: %v", PathString(path), i, err)
					return
				}
				if seen[e] {
					msg = fmt.Sprintf("%s: duplicate entries for key %s", PathString(path), strings.TrimPrefix(PathString([]string{e}), "."))
					return
				}
				seen[e] = true
				walk(append(path, e), s.Items(), it)
			}
		case sh.kind == mapShape && !sh.atomic:
			m, _ := v.(obj)
			for _, k := range unstructured.SortedKeys(m) {
				cs, _ := fieldSchema(s, k)
				walk(append(path, fieldElement(k)), cs, m[k])
			}
		}
	}
	walk(nil, s, v)
	return msg
}
