// SPDX-License-Identifier: Apache-2.0

package kubetest

import "net/http"

// This file merges the lists of a strategic merge patch
// (strategicmerge.go); strategicmerge_order.go orders the result.
//

// smpMergeLists merges patch into cur, a list whose strategy is "merge" or
// whose patch is a $deleteFromPrimitiveList (deleting), with items of
// schema item. cur's backing array may be reused.
func smpMergeLists(item *schema, cur, patch []any, mergeKey string, deleting bool) ([]any, *smpError) {
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
func elementKind(lists ...[]any) (string, *smpError) {
	first := ""
	for _, l := range lists {
		for _, v := range l {
			k := unstructuredKind(v)
			switch {
			case first == "" && v == nil:
				panic(smpPanic{"runtime error: invalid memory address or nil pointer dereference"})
			case first == "" && k == "slice":
				return "", &smpError{code: http.StatusUnprocessableEntity, msg: "lists of lists are not supported"}
			case first == "":
				first = k
			case k != first:
				all := make([]any, len(lists))
				for i, l := range lists {
					all[i] = l
				}
				return "", smpFailed("list element types are not identical: %s", goValueString(all))
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
// remove the items with their key from cur (in place), a replace makes the
// other patch items the list. It returns the list to merge into and the
// patch items left to merge.
func listDirectives(cur, patch []any, mergeKey string) ([]any, []any, *smpError) {
	rest := make([]any, 0, len(patch))
	replace := false
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
			for {
				i, err := indexByKey(cur, mergeKey, key)
				if err != nil {
					return nil, nil, err
				}
				if i < 0 {
					break
				}
				cur = append(cur[:i], cur[i+1:]...)
			}
		case smpDirectiveReplace:
			replace = true
		case smpDirectiveMerge:
			return nil, nil, smpFailed("merging lists cannot yet be specified in the patch")
		default:
			return nil, nil, unknownDirective(d, m)
		}
	}
	if replace {
		return rest, nil, nil
	}
	return cur, rest, nil
}

// mergeItems merges each patch item into the item of cur with its merge
// key, or appends it (as it is, directives and all) to cur.
func mergeItems(item *schema, cur, patch []any, mergeKey string) ([]any, *smpError) {
	for _, v := range patch {
		m := v.(obj)
		key, ok := m[mergeKey]
		if !ok {
			return nil, noMergeKey(m, mergeKey)
		}
		i, err := indexByKey(cur, mergeKey, key)
		if err != nil {
			return nil, err
		}
		if i < 0 {
			cur = append(cur, v)
			continue
		}
		merged, err := mergeObjects(item, cur[i].(obj), m)
		if err != nil {
			return nil, err
		}
		cur[i] = merged
	}
	return cur, nil
}

// indexByKey is the index of the first object of l whose merge key is
// key, or -1.
func indexByKey(l []any, mergeKey string, key any) (int, *smpError) {
	for i, v := range l {
		m, ok := v.(obj)
		if !ok {
			return 0, smpFailed("value for key %d is not a map", i)
		}
		if k, ok := m[mergeKey]; ok && same(k, key) {
			return i, nil
		}
	}
	return -1, nil
}
