// SPDX-License-Identifier: Apache-2.0

package strategicmerge

// This file finds the items of a list by merge key (or by value) for the
// strategic merge (list.go, order.go) in
// O(1) per lookup after an O(n) build, where a scan from the start would
// make merging a patch list of m items into a list of n O(n·m).
//
// An index answers exactly what the scan answered, errors and panics
// included: the first item whose key is == the one looked for (Go's ==,
// which panics for two maps or two lists, as the real merge does), and
// for a lookup by merge key the error of the first item that is not an
// object, where the scan stopped.

// keyIndex is an index of one list's keys. It sees the items the list
// had when it was built, and those added with appended.
type keyIndex struct {
	// first is the first index of each key that is not a map or a list.
	first map[any]int
	// firstMap and firstList are the first index of a key that is a map,
	// a list; -1 when there is none. Looking such a key up panics.
	firstMap, firstList int
	// notMap is the index of the first item that is not an object, where
	// a lookup by merge key stops (-1: none, or a lookup by position).
	// Keys are indexed before it only.
	notMap int
}

// mergeKeyIndex indexes l as indexByKey scans it: items up to the first
// that is not an object, by their mergeKey value, skipping those without.
func mergeKeyIndex(l []any, mergeKey string) *keyIndex {
	x := &keyIndex{first: make(map[any]int, len(l)), firstMap: -1, firstList: -1, notMap: -1}
	for i, v := range l {
		m, ok := v.(obj)
		if !ok {
			x.notMap = i
			break
		}
		if k, ok := m[mergeKey]; ok {
			x.appended(i, k)
		}
	}
	return x
}

// positionIndex indexes l as position scans it: objects by their mergeKey
// value (nil for other items and those without) when maps, items by value
// otherwise.
func positionIndex(l []any, mergeKey string, maps bool) *keyIndex {
	x := &keyIndex{first: make(map[any]int, len(l)), firstMap: -1, firstList: -1, notMap: -1}
	for i, v := range l {
		x.appended(i, positionKey(v, mergeKey, maps))
	}
	return x
}

// positionKey is what position compares of v.
func positionKey(v any, mergeKey string, maps bool) any {
	if !maps {
		return v
	}
	m, _ := v.(obj)
	return m[mergeKey]
}

// appended records that the item at index i, after those indexed, has key
// k.
func (x *keyIndex) appended(i int, k any) {
	switch k.(type) {
	case obj:
		if x.firstMap < 0 {
			x.firstMap = i
		}
	case []any:
		if x.firstList < 0 {
			x.firstList = i
		}
	default:
		if _, ok := x.first[k]; !ok {
			x.first[k] = i
		}
	}
}

// lost records that l[i], the first object of a merge key index with key
// (a hashable one), no longer has a merge key: the next object of l with
// key becomes the first. Objects lose their keys in order, so the
// searches cost O(len(l)) in all.
func (x *keyIndex) lost(l []any, i int, key any, mergeKey string) {
	delete(x.first, key)
	for j := i + 1; j < len(l); j++ {
		m, _ := l[j].(obj)
		if k, ok := m[mergeKey]; ok && same(k, key) {
			x.first[key] = j
			return
		}
	}
}

// find is the index of the first item whose key is key, or -1. A map key
// panics when an item's key is a map (a list, a list), as Go's == does in
// the scan; for a merge key index, a key not found before an item that is
// not an object is that item's error.
func (x *keyIndex) find(key any) (int, *Error) {
	switch key.(type) {
	case obj:
		if x.firstMap >= 0 {
			panic(smpPanic{"runtime error: comparing uncomparable type " + smpTypeMap})
		}
	case []any:
		if x.firstList >= 0 {
			panic(smpPanic{"runtime error: comparing uncomparable type " + smpTypeList})
		}
	default:
		if i, ok := x.first[key]; ok {
			return i, nil
		}
	}
	if x.notMap >= 0 {
		return 0, smpFailed("value for key %d is not a map", x.notMap)
	}
	return -1, nil
}

// position is find for a position index, which has no errors.
func (x *keyIndex) position(v any, mergeKey string, maps bool) int {
	i, _ := x.find(positionKey(v, mergeKey, maps))
	return i
}
