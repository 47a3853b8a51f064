// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file orders the lists a strategic merge patch merges
// (list.go) as kube-apiserver does, and carries out the
// $setElementOrder directives.
//
// Order, when the patch has no $setElementOrder for the list: the items
// the patch names come in the patch's order, the others in the object's;
// the two runs are interleaved by the object's order where it knows both
// items, and a patch item the object did not have comes before the
// object's items that are still waiting. Adding a container to [a b]
// gives [new a b]; patching [x b] into [a b c] gives [x a b c].
//
// With "$setElementOrder/<list>": [items], the items it names come in its
// order and the others follow the same interleaving against the object's
// order. The real server computes that order from its list as deletions
// and additions left it in place (an item deleted shifts the others down,
// an item added takes the freed slot), and so does orderLists:
// listDirectives and mergeItems (list.go) work in place on
// the object's list on purpose.

// partitionBy splits l into the items that order names (by merge key, or
// by value without one) and the others, each in l's order.
func partitionBy(l, order []any, mergeKey string) (named, others []any, err *Error) {
	named, others = make([]any, 0, len(l)), make([]any, 0, len(l))
	if mergeKey == "" {
		in := make(map[any]bool, len(order))
		for _, v := range order {
			in[hashable(v)] = true
		}
		for _, v := range l {
			if in[hashable(v)] {
				named = append(named, v)
			} else {
				others = append(others, v)
			}
		}
		return named, others, nil
	}
	idx := mergeKeyIndex(order, mergeKey)
	for _, v := range l {
		m, ok := v.(obj)
		if !ok {
			return nil, nil, badArgType(smpTypeMap, v)
		}
		key, ok := m[mergeKey]
		if !ok {
			return nil, nil, noMergeKey(m, mergeKey)
		}
		i, err := idx.find(key)
		if err != nil {
			return nil, nil, err
		}
		if i >= 0 {
			named = append(named, v)
		} else {
			others = append(others, v)
		}
	}
	return named, others, nil
}

// arrange orders a merged list: named sorted by order, others by
// serverOrder, then interleaved (see the file comment). maps says the
// items are objects compared by merge key.
func arrange(named, others, order, serverOrder []any, mergeKey string, maps bool) ([]any, *Error) {
	named, err := sortByOrder(named, order, mergeKey, maps)
	if err != nil {
		return nil, err
	}
	if others, err = sortByOrder(others, serverOrder, mergeKey, maps); err != nil {
		return nil, err
	}
	out := make([]any, 0, len(named)+len(others))
	idx := positionIndex(serverOrder, mergeKey, maps)
	i, j := 0, 0
	for i < len(others) || j < len(named) {
		takeOther := j >= len(named)
		if !takeOther && i < len(others) {
			oi, ni := idx.position(others[i], mergeKey, maps), idx.position(named[j], mergeKey, maps)
			takeOther = oi >= 0 && ni >= 0 && oi < ni
		}
		if takeOther {
			out = append(out, others[i])
			i++
		} else {
			out = append(out, named[j])
			j++
		}
	}
	return out, nil
}

// sortByOrder sorts items stably by their position in order. Objects
// must have the merge key (in items and order alike); a $patch delete
// item goes last. The comparison counts an item order does not know as
// smaller than anything, which is not an order: the real server sorts
// with it all the same, and so the result is sort.SliceStable's.
func sortByOrder(items, order []any, mergeKey string, maps bool) ([]any, *Error) {
	var deletes []any
	if maps {
		for _, l := range [][]any{items, order} {
			for _, v := range l {
				m, ok := v.(obj)
				if !ok {
					return nil, badArgType(smpTypeMap, v)
				}
				if _, ok := m[mergeKey]; !ok {
					return nil, noMergeKey(m, mergeKey)
				}
			}
		}
		kept := make([]any, 0, len(items))
		for _, v := range items {
			if v.(obj)[smpDirective] == smpDirectiveDelete {
				deletes = append(deletes, v)
			} else {
				kept = append(kept, v)
			}
		}
		items = kept
	}
	idx := positionIndex(order, mergeKey, maps)
	sort.SliceStable(items, func(i, j int) bool {
		pi := idx.position(items[i], mergeKey, maps)
		if pi < 0 {
			return true
		}
		pj := idx.position(items[j], mergeKey, maps)
		return pj < 0 || pi < pj
	})
	return append(items, deletes...), nil
}

// orderLists carries out the $setElementOrder directives of patch: the
// list each names is merged here (and its patch consumed), then ordered.
func orderLists(s *schema.Schema, cur, patch obj) *Error {
	for _, key := range unstructured.SortedKeys(patch) {
		ov, ok := patch[key]
		if !ok || !strings.HasPrefix(key, smpSetElementOrder) {
			continue
		}
		delete(patch, key)
		order, ok := ov.([]any)
		if !ok {
			return badArgType(smpTypeList, ov)
		}
		name, err := directiveTarget(key, smpSetElementOrder)
		if err != nil {
			return err
		}
		var curList, patchList []any
		cv, inCur := cur[name]
		if inCur = inCur && !isAbsent(cv); inCur {
			if curList, ok = cv.([]any); !ok {
				return badArgType(smpTypeList, cv)
			}
		}
		pv, inPatch := patch[name]
		if inPatch {
			if patchList, ok = pv.([]any); !ok {
				return badArgType(smpTypeList, pv)
			}
		}
		item, strategy, mergeKey, err := lookupPatchField(s, name, true)
		if err != nil {
			return err
		}
		if err := checkOrder(patchList, order, mergeKey); err != nil {
			return err
		}
		var merged []any
		switch {
		case inCur && !inPatch:
			merged = curList
		case !inCur && inPatch:
			v, _ := withoutDirectives(patchList)
			merged = v.([]any)
		case inCur && inPatch && strategy == smpDirectiveMerge:
			if merged, err = smpMergeLists(item, curList, patchList, mergeKey, false); err != nil {
				return err
			}
		case inCur && inPatch:
			merged = patchList
		default:
			continue
		}
		named, others, err := partitionBy(merged, order, mergeKey)
		if err != nil {
			return err
		}
		kind, err := elementKind(curList, patchList)
		if err != nil {
			return err
		}
		// curList is the object's list as the merge left its array.
		ordered, err := arrange(named, others, order, curList, mergeKey, kind == "map")
		if err != nil {
			return err
		}
		cur[name] = ordered
		delete(patch, name)
	}
	return nil
}

// checkOrder checks that the items of a patch list (but deletes and other
// directives) come in a $setElementOrder list, in its order.
func checkOrder(patchList, order []any, mergeKey string) *Error {
	if len(order) == 0 || len(patchList) == 0 {
		return nil
	}
	items := patchList
	if mergeKey != "" {
		items = make([]any, 0, len(patchList))
		for _, v := range patchList {
			m, ok := v.(obj)
			if !ok {
				return badArgType(smpTypeMap, v)
			}
			if m[smpDirective] != smpDirectiveDelete {
				items = append(items, v)
			}
		}
	}
	i, j := 0, 0
	for i < len(items) && j < len(order) {
		if m, ok := items[i].(obj); ok {
			if _, directive := m[smpDirective]; directive {
				i++
				continue
			}
		}
		eq, err := sameItem(items[i], order[j], mergeKey)
		if err != nil {
			return err
		}
		if eq {
			i++
		}
		j++
	}
	if i < len(items) {
		return smpFailed("The order in patch list:\n%s\n doesn't match %s list:\n%s\n",
			schema.GoValueString(patchList), smpSetElementOrder, schema.GoValueString(order))
	}
	return nil
}

// sameItem says two list items are the same: equal scalars, or objects
// with equal merge keys (which both must have).
func sameItem(a, b any, mergeKey string) (bool, *Error) {
	if mergeKey == "" {
		return same(a, b), nil
	}
	ma, ok := a.(obj)
	if !ok {
		return false, badArgType(smpTypeMap, a)
	}
	mb, ok := b.(obj)
	if !ok {
		return false, badArgType(smpTypeMap, b)
	}
	ka, ok := ma[mergeKey]
	if !ok {
		return false, noMergeKey(ma, mergeKey)
	}
	kb, ok := mb[mergeKey]
	if !ok {
		return false, noMergeKey(mb, mergeKey)
	}
	return same(ka, kb), nil
}
