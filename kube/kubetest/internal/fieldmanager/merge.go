// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"

// This file merges an apply configuration into an object, as the real
// server does with the schema: see mergeApplied.

// mergeApplied merges an applied configuration (rhs) into an object
// (lhs): scalars, atomic lists and atomic maps are replaced; maps are
// merged key by key; set and map lists entry by entry, in the real
// server's order (the configuration's order for the entries it has, the
// object's other entries where they were).
func mergeApplied(s *schema.Schema, lhs, rhs any) any {
	sl, sr := shapeOf(s, lhs), shapeOf(s, rhs)
	if sl.kind != sr.kind {
		return rhs
	}
	switch {
	case sr.kind == listShape && !sr.atomic:
		l, _ := lhs.([]any)
		r, _ := rhs.([]any)
		if len(l) == 0 && len(r) == 0 {
			return rhs
		}
		return mergeLists(s, sr, l, r)
	case sr.kind == mapShape && !sr.atomic:
		l, _ := lhs.(obj)
		r, _ := rhs.(obj)
		if len(l) == 0 && len(r) == 0 {
			return rhs
		}
		out := make(obj, len(l)+len(r))
		for k, v := range l {
			out[k] = v
		}
		for k, rv := range r {
			if lv, ok := l[k]; ok {
				cs, _ := fieldSchema(s, k)
				out[k] = mergeApplied(cs, lv, rv)
			} else {
				out[k] = rv
			}
		}
		return out
	}
	return rhs
}

// mergeLists merges the entries of two granular lists. The configuration
// (r) has no duplicate entries; the object's duplicates are kept where
// the configuration does not name them.
func mergeLists(s *schema.Schema, sh valueShape, l, r []any) []any {
	elems := func(items []any) []string {
		out := make([]string, len(items))
		for i, it := range items {
			out[i], _ = itemElement(s, sh, it)
		}
		return out
	}
	le, re := elems(l), elems(r)
	lval := map[string]any{}
	lcount := map[string]int{}
	for i, e := range le {
		if lcount[e] == 0 {
			lval[e] = l[i]
		} else {
			lval[e] = nil
		}
		lcount[e]++
	}
	rval := make(map[string]any, len(r))
	for i, e := range re {
		rval[e] = r[i]
	}
	// shared are the configuration's entries the object has, in the
	// configuration's order: the order they come out in.
	var shared []string
	for _, e := range re {
		if lcount[e] > 0 {
			shared = append(shared, e)
		}
	}
	next := func() string {
		if len(shared) == 0 {
			return ""
		}
		e := shared[0]
		shared = shared[1:]
		return e
	}
	nextShared := next()
	emitted := map[string]bool{}
	out := make([]any, 0, max(len(l), len(r)))
	emit := func(e string) {
		emitted[e] = true
		lv, inL := lval[e]
		if inL && lcount[e] == 1 {
			out = append(out, mergeApplied(s.Items(), lv, rval[e]))
		} else {
			out = append(out, rval[e])
		}
	}
	for li, ri := 0, 0; li < len(l) || ri < len(r); {
		if li < len(l) && ri < len(r) {
			if le[li] == re[ri] {
				emit(re[ri])
				li, ri = li+1, ri+1
				nextShared = next()
				continue
			}
			if _, inR := rval[le[li]]; inR && nextShared != "" && nextShared != le[li] {
				li++
				continue
			}
		}
		if li < len(l) {
			if _, inR := rval[le[li]]; !inR {
				out = append(out, l[li])
				li++
				continue
			} else if emitted[le[li]] {
				li++
			}
		}
		if ri < len(r) {
			e := re[ri]
			emit(e)
			ri++
			if nextShared != "" && nextShared == e {
				nextShared = next()
			}
		}
	}
	return out
}
