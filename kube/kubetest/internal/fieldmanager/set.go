// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"fmt"
	"slices"
)

// This file is the set of field paths that managedFields record, in the
// shape fieldsV1 writes it: a tree whose edges are path elements and whose
// nodes say whether the path ending there is a member. Path elements are
// strings as fieldsV1 spells them:
//
//	f:name                 a field of a struct or a key of a map
//	k:{"name":"c"}         the entry of a map list with those keys
//	v:"x"                  the entry of a set
//	i:3                    a list index (read, never written)
//
// A node with member set and children is written with a "." key, as the
// real server does. Sets are small (one object's fields): every operation
// builds a new set or returns one of its operands: a set is not changed
// once built.

// fieldSet is a set of field paths. The zero value and nil are empty.
type fieldSet struct {
	// member says the path from the root to this node is in the set; the
	// root's own member is unused.
	member   bool
	children map[string]*fieldSet
}

// newFieldSet returns an empty set.
func newFieldSet() *fieldSet { return &fieldSet{} }

// child returns the subset under element e (nil when there is none).
func (s *fieldSet) child(e string) *fieldSet {
	if s == nil {
		return nil
	}
	return s.children[e]
}

// descend returns the node for element e, creating it.
func (s *fieldSet) descend(e string) *fieldSet {
	if s.children == nil {
		s.children = map[string]*fieldSet{}
	}
	c := s.children[e]
	if c == nil {
		c = &fieldSet{}
		s.children[e] = c
	}
	return c
}

// insert adds path (one or more elements) to s.
func (s *fieldSet) insert(path ...string) {
	n := s
	for _, e := range path {
		n = n.descend(e)
	}
	n.member = true
}

// has reports whether path is a member of s.
func (s *fieldSet) has(path ...string) bool {
	n := s
	for _, e := range path {
		if n = n.child(e); n == nil {
			return false
		}
	}
	return len(path) > 0 && n.member
}

// hasMember reports whether the child e of s is itself a member.
func (s *fieldSet) hasMember(e string) bool {
	c := s.child(e)
	return c != nil && c.member
}

// empty reports whether s has no member below its root.
func (s *fieldSet) empty() bool {
	if s == nil {
		return true
	}
	for _, c := range s.children {
		if c.member || !c.empty() {
			return false
		}
	}
	return true
}

// clone returns a deep copy of s without empty branches.
func (s *fieldSet) clone() *fieldSet {
	return s.combine(nil, func(a, _ bool) bool { return a })
}

// union returns the paths of s or o.
func (s *fieldSet) union(o *fieldSet) *fieldSet {
	switch {
	case o.empty() && s != nil:
		return s
	case s.empty() && o != nil:
		return o
	}
	return s.combine(o, func(a, b bool) bool { return a || b })
}

// difference returns the paths of s that o does not have.
func (s *fieldSet) difference(o *fieldSet) *fieldSet {
	if o.empty() && s != nil {
		return s
	}
	return s.combine(o, func(a, b bool) bool { return a && !b })
}

// intersection returns the paths of both s and o.
func (s *fieldSet) intersection(o *fieldSet) *fieldSet {
	if s.empty() || o.empty() {
		return newFieldSet()
	}
	return s.combine(o, func(a, b bool) bool { return a && b })
}

// combine builds the set whose members are the paths for which keep
// holds of their membership in s and o. Branches left empty are dropped.
func (s *fieldSet) combine(o *fieldSet, keep func(inS, inO bool) bool) *fieldSet {
	out := &fieldSet{}
	add := func(e string, a, b *fieldSet) {
		c := a.combine(b, keep)
		c.member = keep(a != nil && a.member, b != nil && b.member)
		if c.member || len(c.children) > 0 {
			if out.children == nil {
				out.children = map[string]*fieldSet{}
			}
			out.children[e] = c
		}
	}
	if s != nil {
		for e, a := range s.children {
			add(e, a, o.child(e))
		}
	}
	if o != nil {
		for e, b := range o.children {
			if s.child(e) == nil {
				add(e, nil, b)
			}
		}
	}
	return out
}

// without returns s less every path under (or at) a member of prefixes:
// the real server's filter of the fields a strategy resets.
func (s *fieldSet) without(prefixes *fieldSet) *fieldSet {
	if s == nil {
		return &fieldSet{}
	}
	out := &fieldSet{member: s.member}
	for e, c := range s.children {
		p := prefixes.child(e)
		if p != nil && p.member {
			continue
		}
		var cc *fieldSet
		if p == nil {
			cc = c.clone()
			cc.member = c.member
		} else {
			cc = c.without(p)
		}
		if cc.member || len(cc.children) > 0 {
			if out.children == nil {
				out.children = map[string]*fieldSet{}
			}
			out.children[e] = cc
		}
	}
	return out
}

// paths returns the members of s in the order the real server iterates
// them: at each node its member children first, then the subtrees of its
// children, each in path element order.
func (s *fieldSet) paths() [][]string {
	var out [][]string
	var walk func(n *fieldSet, prefix []string)
	walk = func(n *fieldSet, prefix []string) {
		names := n.sortedChildren()
		for _, e := range names {
			if n.children[e].member {
				out = append(out, append(slices.Clip(prefix), e))
			}
		}
		for _, e := range names {
			walk(n.children[e], append(slices.Clip(prefix), e))
		}
	}
	if s != nil {
		walk(s, nil)
	}
	return out
}

func (s *fieldSet) sortedChildren() []string {
	names := make([]string, 0, len(s.children))
	for e := range s.children {
		names = append(names, e)
	}
	slices.SortFunc(names, compareElements)
	return names
}

// fieldsV1 encodes s as a fieldsV1 object.
func (s *fieldSet) fieldsV1() obj {
	out := obj{}
	if s == nil {
		return out
	}
	for e, c := range s.children {
		if !c.member && c.empty() {
			continue
		}
		m := c.fieldsV1()
		if c.member && len(m) > 0 {
			m["."] = obj{}
		}
		out[e] = m
	}
	return out
}

// parseFieldsV1 decodes a fieldsV1 value as the real server does: "."
// marks a member, keys of unknown element types are dropped, and a key
// that is not a path element, or a value that is not an object, is an
// error.
func parseFieldsV1(v any) (*fieldSet, error) {
	s := &fieldSet{}
	switch t := v.(type) {
	case nil:
		return s, nil
	case obj:
		for k, cv := range t {
			if k == "." {
				continue
			}
			if err := checkElement(k); err != nil {
				if err == errUnknownElement {
					continue
				}
				return nil, err
			}
			c, err := parseFieldsV1(cv)
			if err != nil {
				return nil, err
			}
			child, isMap := cv.(obj)
			_, dot := child["."]
			c.member = !isMap || dot || len(c.children) == 0
			if s.children == nil {
				s.children = map[string]*fieldSet{}
			}
			s.children[canonicalElement(k)] = c
		}
		return s, nil
	}
	return nil, fmt.Errorf("expected an object, got %s", encodeElementValue(v))
}
