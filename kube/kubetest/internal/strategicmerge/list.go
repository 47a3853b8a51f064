// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import "net/http"

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"

// This file merges the lists of a strategic merge patch
// (strategicmerge.go); order.go orders the result.
//

// smpMergeLists merges patch into cur, a list whose strategy is "merge" or
// whose patch is a $deleteFromPrimitiveList (deleting), with items of
// schema item. cur's backing array may be reused.
func smpMergeLists(item *schema.Schema, cur, patch []any, mergeKey string, deleting bool) ([]any, *Error) {
	if len(cur) == 0 && len(patch) == 0 {
		return cur, nil
	}
	kind, err := elementKind(cur, patch)
	if err != nil {
		return nil, err
	}
	var merged []any
	if kind != "map" {
		if deleting {
			return withoutValues(cur, patch), nil
		}
		merged = unionOf(cur, patch)
	} else {
		if mergeKey == "" {
			what := "struct"
			if item != nil && len(item.Properties) == 0 && item.Additional != nil {
				what = "map"
			}
			return nil, smpFailed("cannot merge lists without merge key for %s", what)
		}
		if cur, patch, err = listDirectives(cur, patch, mergeKey); err != nil {
			return nil, err
		}
		if merged, err = mergeItems(item, cur, patch, mergeKey); err != nil {
			return nil, err
		}
	}
	named, others, err := partitionBy(merged, patch, mergeKey)
	if err != nil {
		return nil, err
	}
	return arrange(named, others, patch, cur, mergeKey, kind == "map")
}

// elementKind is the Go kind shared by the items of lists: "map", or a
// scalar kind. Items of different kinds, and lists of lists, are refused.
func elementKind(lists ...[]any) (string, *Error) {
	first := ""
	for _, l := range lists {
		for _, v := range l {
			k := schema.UnstructuredKind(v)
			switch {
			case first == "" && v == nil:
				panic(smpPanic{"runtime error: invalid memory address or nil pointer dereference"})
			case first == "" && k == "slice":
				return "", &Error{Code: http.StatusUnprocessableEntity, Msg: "lists of lists are not supported"}
			case first == "":
				first = k
			case k != first:
				all := make([]any, len(lists))
				for i, l := range lists {
					all[i] = l
				}
				return "", smpFailed("list element types are not identical: %s", schema.GoValueString(all))
			}
		}
	}
	if first == "" {
		return "", smpFailed("no elements in any of the given slices")
	}
	return first, nil
}

// withoutValues is cur without the values of del.
func withoutValues(cur, del []any) []any {
	gone := make(map[any]bool, len(del))
	for _, v := range del {
		gone[hashable(v)] = true
	}
	out := make([]any, 0, len(cur))
	for _, v := range cur {
		if !gone[v] {
			out = append(out, v)
		}
	}
	return out
}

// unionOf is the scalars of cur and add, each once.
func unionOf(cur, add []any) []any {
	seen := make(map[any]bool, len(cur)+len(add))
	out := make([]any, 0, len(cur)+len(add))
	for _, l := range [][]any{cur, add} {
		for _, v := range l {
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// listDirectives carries out the $patch items of a patch list: deletes
// remove the items with their key from cur (in place, see
// removeInPlace), a replace makes the other patch items the list. It
// returns the list to merge into and the patch items left to merge.
func listDirectives(cur, patch []any, mergeKey string) ([]any, []any, *Error) {
	rest := make([]any, 0, len(patch))
	replace := false
	idx := mergeKeyIndex(cur, mergeKey)
	var byKey map[any][]int // the indices of cur's items by hashable key, made on the first delete
	var gone []int          // indices of cur's items to remove, in the order they go
	for _, v := range patch {
		m := v.(obj) // elementKind said so
		d, ok := m[smpDirective]
		if !ok {
			rest = append(rest, v)
			continue
		}
		switch d {
		case smpDirectiveDelete:
			key, ok := m[mergeKey]
			if !ok {
				return nil, nil, noMergeKey(m, mergeKey)
			}
			if _, err := idx.find(key); err != nil { // the first lookup's error or panic
				return nil, nil, err
			}
			if byKey == nil {
				byKey = indicesByKey(cur, mergeKey)
			}
			if isHashableKey(key) {
				gone = append(gone, byKey[key]...)
				delete(byKey, key) // a second delete of the key finds none
			}
		case smpDirectiveReplace:
			replace = true
		case smpDirectiveMerge:
			return nil, nil, smpFailed("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, unknownDirective(d, m)
		}
	}
	cur = removeInPlace(cur, gone)
	if replace {
		return rest, nil, nil
	}
	return cur, rest, nil
}

// indicesByKey maps each hashable merge key value of l's objects to the
// indices of the objects with it, in order.
func indicesByKey(l []any, mergeKey string) map[any][]int {
	out := make(map[any][]int)
	for i, v := range l {
		if k, ok := v.(obj)[mergeKey]; ok && isHashableKey(k) {
			out[k] = append(out[k], i)
		}
	}
	return out
}

// isHashableKey says k is neither a map nor a list.
func isHashableKey(k any) bool {
	switch k.(type) {
	case obj, []any:
		return false
	}
	return true
}

// removeInPlace removes from l the items at the indices gone (distinct),
// leaving l's array as removing them one by one in that order with
// append(l[:i], l[i+1:]...) leaves it, as the real server does: the kept
// items first, in order, then in each freed slot the last item of the
// list when that slot stopped being part of it. orderLists reads that
// array. The cost is O(len(l)), not O(len(l)·len(gone)).
func removeInPlace(l []any, gone []int) []any {
	if len(gone) == 0 {
		return l
	}
	n := len(l)
	dead := make([]bool, n)
	tail := make([]any, len(gone)) // tail[j] ends up in l[n-len(gone)+j]
	last := n - 1                  // the last item still in the list
	for j, i := range gone {
		tail[len(gone)-1-j] = l[last] // removing from a list of n-j items leaves l[n-j-1] as it was
		dead[i] = true
		for last >= 0 && dead[last] {
			last--
		}
	}
	w := 0
	for i, v := range l {
		if !dead[i] {
			l[w] = v
			w++
		}
	}
	copy(l[w:n], tail)
	return l[:w]
}

// mergeItems merges each patch item into the item of cur with its merge
// key, or appends it (as it is, directives and all) to cur.
func mergeItems(item *schema.Schema, cur, patch []any, mergeKey string) ([]any, *Error) {
	idx := mergeKeyIndex(cur, mergeKey)
	for _, v := range patch {
		m := v.(obj)
		key, ok := m[mergeKey]
		if !ok {
			return nil, noMergeKey(m, mergeKey)
		}
		i, err := idx.find(key)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			idx.appended(len(cur), key)
			cur = append(cur, v)
			continue
		}
		merged, err := mergeObjects(item, cur[i].(obj), m)
		if err != nil {
			return nil, err
		}
		cur[i] = merged // the same object
		if _, ok := merged[mergeKey]; !ok {
			idx.lost(cur, i, key, mergeKey) // a null key, which the patch's null removed
		}
	}
	return cur, nil
}
