// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"slices"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// This file compares two versions of an object field by field, as the
// real server does to decide who owns what after a write: a field (or
// list entry, or map) present only in the new version is added, one only
// in the old is removed, a leaf whose value differs is modified. Every
// map, list and entry that is added or removed is itself in the set, with
// everything under it; an atomic list or map is one leaf.

// comparison is what changed between two versions of an object.
type comparison struct {
	added, modified, removed *fieldSet
}

// changed returns the added and modified fields: what a write takes.
func (c *comparison) changed() *fieldSet { return c.added.union(c.modified) }

// filter keeps the comparison to the fields f keeps.
func (c *comparison) filter(f func(*fieldSet) *fieldSet) {
	c.added, c.modified, c.removed = f(c.added), f(c.modified), f(c.removed)
}

// compareObjects compares old (lhs) with new (rhs). typedL and typedR say
// a side is a typed object of a built-in kind, whose structs hold their
// zero fields (Schema.ZeroFields). The error is the first list whose
// entries cannot be told apart; the comparison is then incomplete.
func compareObjects(s *schema.Schema, lhs, rhs obj, typedL, typedR bool) (*comparison, error) {
	w := &comparer{c: comparison{added: newFieldSet(), modified: newFieldSet(), removed: newFieldSet()},
		typedL: typedL, typedR: typedR}
	w.children(nil, s, valueShape{kind: mapShape}, lhs, rhs, true, true)
	return &w.c, w.err
}

type comparer struct {
	c              comparison
	typedL, typedR bool
	err            error
}

// walk compares the values l and r at path; lok and rok say they exist.
func (w *comparer) walk(path []string, s *schema.Schema, l, r any, lok, rok bool) {
	var sh valueShape
	switch {
	case !rok:
		sh = shapeOf(s, l)
	case !lok:
		sh = shapeOf(s, r)
	default:
		sl, sr := shapeOf(s, l), shapeOf(s, r)
		if sl.kind != sr.kind || sl.atomic != sr.atomic {
			// A deduced value changed kind: the old one is modified, what
			// was under it removed and what is under the new one added.
			w.c.modified.insert(path...)
			w.children(path, s, sl, l, nil, true, false)
			w.children(path, s, sr, nil, r, false, true)
			return
		}
		sh = sr
	}
	leaf := sh.kind == scalarShape || sh.atomic
	if !leaf && w.isEmpty(s, sh, l, lok, w.typedL) && w.isEmpty(s, sh, r, rok, w.typedR) {
		leaf = true
	}
	if leaf {
		switch {
		case !lok:
			w.c.added.insert(path...)
		case !rok:
			w.c.removed.insert(path...)
		case !jsonpatch.Equal(l, r):
			w.c.modified.insert(path...)
		}
		return
	}
	w.children(path, s, sh, l, r, lok, rok)
	if !lok {
		w.c.added.insert(path...)
	} else if !rok {
		w.c.removed.insert(path...)
	}
}

// isEmpty reports whether a list or map value is absent or has nothing in
// it (zero fields of a typed struct count as something).
func (w *comparer) isEmpty(s *schema.Schema, sh valueShape, v any, ok, typed bool) bool {
	if !ok {
		return true
	}
	if sh.kind == listShape {
		l, _ := v.([]any)
		return len(l) == 0
	}
	m, _ := v.(obj)
	return len(m) == 0 && !(typed && s != nil && len(s.ZeroFields) > 0 && v != nil)
}

// children compares what is under l and r: the entries of lists, the
// fields of maps.
func (w *comparer) children(path []string, s *schema.Schema, sh valueShape, l, r any, lok, rok bool) {
	switch {
	case sh.kind == listShape && !sh.atomic:
		ll, _ := l.([]any)
		rl, _ := r.([]any)
		lorder, lby, lerr := listEntries(s, sh, ll)
		rorder, rby, rerr := listEntries(s, sh, rl)
		for _, err := range []error{lerr, rerr} {
			if err != nil && w.err == nil {
				w.err = err
			}
		}
		order := lorder
		for _, e := range rorder {
			if _, inL := lby[e]; !inL {
				order = append(order, e)
			}
		}
		elem := s.Items()
		for _, e := range order {
			lv, rv := lby[e], rby[e]
			p := append(path[:len(path):len(path)], e)
			switch {
			case len(lv) <= 1 && len(rv) <= 1:
				w.walk(p, elem, first(lv), first(rv), len(lv) == 1, len(rv) == 1)
			case len(lv) >= 2 && len(rv) >= 2:
				if !jsonpatch.Equal(lv, rv) {
					w.c.modified.insert(p...)
				}
			case len(lv) >= 2:
				if len(rv) == 1 {
					w.walk(p, elem, nil, rv[0], false, true)
				}
				w.c.removed.insert(p...)
			default:
				if len(lv) == 1 {
					w.walk(p, elem, lv[0], nil, true, false)
				}
				w.c.added.insert(p...)
			}
		}
	case sh.kind == mapShape && !sh.atomic:
		lm, _ := l.(obj)
		rm, _ := r.(obj)
		if lok && w.typedL {
			lm = typedFields(s, lm)
		}
		if rok && w.typedR {
			rm = typedFields(s, rm)
		}
		for k, lv := range lm {
			cs, _ := fieldSchema(s, k)
			rv, inR := rm[k]
			w.walk(append(path[:len(path):len(path)], fieldElement(k)), cs, lv, rv, true, inR)
		}
		for k, rv := range rm {
			if _, inL := lm[k]; !inL {
				cs, _ := fieldSchema(s, k)
				w.walk(append(path[:len(path):len(path)], fieldElement(k)), cs, nil, rv, false, true)
			}
		}
	}
}

func first(l []any) any {
	if len(l) == 0 {
		return nil
	}
	return l[0]
}

// typedFields returns the fields of m as a typed object of a built-in
// kind has them: with the zero fields of its struct schema it lacks (an
// empty struct, or null for a list, map or pointer), and without empty
// strings of optional fields, which the encoding of a Go string with
// omitempty drops. An empty string that the field's enum allows is kept:
// such a field is a pointer (a hostPath volume's type).
func typedFields(s *schema.Schema, m obj) obj {
	if s == nil || len(s.Properties) == 0 {
		return m
	}
	var out obj
	copied := func() {
		if out == nil {
			out = make(obj, len(m)+len(s.ZeroFields))
			for mk, mv := range m {
				out[mk] = mv
			}
		}
	}
	for k, isStruct := range s.ZeroFields {
		if _, ok := m[k]; ok {
			continue
		}
		copied()
		if isStruct {
			out[k] = obj{}
		} else {
			out[k] = nil
		}
	}
	for k, v := range m {
		if v == "" && !slices.Contains(s.Required, k) && !enumHasEmpty(s.Properties[k]) {
			copied()
			delete(out, k)
		}
	}
	if out == nil {
		return m
	}
	return out
}

// enumHasEmpty reports whether the string enum of s allows "".
func enumHasEmpty(s *schema.Schema) bool {
	return s != nil && slices.Contains(s.Enum, any(""))
}
