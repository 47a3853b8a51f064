// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
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

var errUnknownElement = fmt.Errorf("unknown path element type")

// checkElement checks a fieldsV1 key.
func checkElement(e string) error {
	if len(e) < 2 {
		return fmt.Errorf("key must be 2 characters long: %q", e)
	}
	if e[1] != ':' {
		return fmt.Errorf("missing colon: %v", e)
	}
	switch e[0] {
	case 'f':
		return nil
	case 'v':
		var v any
		return json.Unmarshal([]byte(e[2:]), &v)
	case 'k':
		var m map[string]any
		return json.Unmarshal([]byte(e[2:]), &m)
	case 'i':
		_, err := strconv.Atoi(e[2:])
		return err
	}
	return errUnknownElement
}

// canonicalElement re-encodes a key or value element as this package
// writes them, so that equal elements are equal strings.
func canonicalElement(e string) string {
	switch e[0] {
	case 'k':
		var m map[string]any
		if json.Unmarshal([]byte(e[2:]), &m) == nil {
			return "k:" + encodeElementValue(m)
		}
	case 'v':
		var v any
		if json.Unmarshal([]byte(e[2:]), &v) == nil {
			return "v:" + encodeElementValue(v)
		}
	}
	return e
}

// fieldElement is the element of a struct field or map key.
func fieldElement(name string) string { return "f:" + name }

// encodeElementValue writes a key's fields (sorted by name) or a set
// entry as JSON; whole numbers are written as integers.
func encodeElementValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// elementValue decodes the JSON of a k: or v: element.
func elementValue(e string) any {
	var v any
	_ = json.Unmarshal([]byte(e[2:]), &v)
	return v
}

// compareElements orders path elements as the real server does: fields,
// then keys, then values, then indexes; each kind by its value.
func compareElements(a, b string) int {
	rank := func(e string) int { return strings.IndexByte("fkvi", e[0]) }
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch a[0] {
	case 'f':
		return strings.Compare(a[2:], b[2:])
	case 'i':
		x, _ := strconv.Atoi(a[2:])
		y, _ := strconv.Atoi(b[2:])
		return x - y
	case 'k':
		ka, _ := elementValue(a).(obj)
		kb, _ := elementValue(b).(obj)
		na, nb := sortedKeys(ka), sortedKeys(kb)
		for i := 0; i < len(na) && i < len(nb); i++ {
			if c := strings.Compare(na[i], nb[i]); c != 0 {
				return c
			}
			if c := compareValues(ka[na[i]], kb[nb[i]]); c != 0 {
				return c
			}
		}
		return len(na) - len(nb)
	}
	return compareValues(elementValue(a), elementValue(b))
}

// compareValues orders JSON values: numbers, strings, booleans, lists,
// maps, null.
func compareValues(a, b any) int {
	rank := func(v any) int {
		switch v.(type) {
		case float64:
			return 0
		case string:
			return 1
		case bool:
			return 2
		case []any:
			return 3
		case obj:
			return 4
		}
		return 5
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case float64:
		y := b.(float64)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	}
	return strings.Compare(encodeElementValue(a), encodeElementValue(b))
}

// pathString renders a path as apply conflicts name it:
// .status.conditions[type="Ready"], .metadata.finalizers[="x"].
func pathString(path []string) string {
	var b strings.Builder
	for _, e := range path {
		switch e[0] {
		case 'f':
			b.WriteString("." + e[2:])
		case 'i':
			b.WriteString("[" + e[2:] + "]")
		case 'v':
			b.WriteString("[=" + valueString(elementValue(e)) + "]")
		case 'k':
			m, _ := elementValue(e).(obj)
			parts := make([]string, 0, len(m))
			for _, k := range sortedKeys(m) {
				parts = append(parts, k+"="+valueString(m[k]))
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		}
	}
	return b.String()
}

// valueString renders a key value as the real server's messages do:
// strings quoted, whole numbers as integers.
func valueString(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<63 {
			return strconv.FormatInt(int64(t), 10)
		}
		return fmt.Sprintf("%v", t)
	case bool:
		return strconv.FormatBool(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = valueString(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case obj:
		var parts []string
		for _, k := range sortedKeys(t) {
			parts = append(parts, k+"="+valueString(t[k]))
		}
		return strings.Join(parts, "")
	}
	return fmt.Sprint(v)
}
