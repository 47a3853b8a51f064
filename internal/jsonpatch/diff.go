// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// Create returns operations that turn before into after: ApplyValue(before,
// Create(before, after)) is [Equal] to after. Equal documents give an empty,
// non-nil list, which marshals as [] rather than null.
//
// Only add, remove and replace are used, never move, copy or test, and
// each operation's value is after's value marshaled whole:
//   - Objects are diffed member by member, in order of member name:
//     removals, then changes (recursively), then additions.
//   - Arrays are diffed by index after trimming the longest common prefix
//     and suffix (compared with [Equal]): elements at the same index in
//     the differing middles are diffed recursively, then surplus elements
//     are removed from the highest index down, or missing ones added in
//     order. One insertion or removal thus costs one operation; a
//     reordering is not detected as a move and costs an operation per
//     changed element.
//   - A change of JSON type, or of a scalar, is one replace.
//
// Create panics if a value of after cannot be marshaled (a NaN or infinite
// float64, a channel); values decoded by encoding/json never do. The cost
// is O(size of before + size of after), plus for each array the [Equal]
// comparisons that trim its common prefix and suffix; arrays nested in
// arrays may be compared once per level.
func Create(before, after any) []Operation {
	ops := []Operation{}
	diff(&ops, "", before, after)
	return ops
}

// diff appends to ops the operations that turn a into b at pointer p.
func diff(ops *[]Operation, p string, a, b any) {
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			diffObjects(ops, p, x, y)
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			diffArrays(ops, p, x, y)
			return
		}
	}
	if !Equal(a, b) {
		*ops = append(*ops, Operation{Op: OpReplace, Path: p, Value: mustMarshal(b)})
	}
}

func diffObjects(ops *[]Operation, p string, a, b map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[k]; !ok {
			*ops = append(*ops, Operation{Op: OpRemove, Path: appendToken(p, k)})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if av, ok := a[k]; ok {
			diff(ops, appendToken(p, k), av, b[k])
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			*ops = append(*ops, Operation{Op: OpAdd, Path: appendToken(p, k), Value: mustMarshal(b[k])})
		}
	}
}

func diffArrays(ops *[]Operation, p string, a, b []any) {
	n := min(len(a), len(b))
	prefix := 0
	for prefix < n && Equal(a[prefix], b[prefix]) {
		prefix++
	}
	suffix := 0
	for suffix < n-prefix && Equal(a[len(a)-1-suffix], b[len(b)-1-suffix]) {
		suffix++
	}
	am, bm := a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	common := min(len(am), len(bm))
	for i := range common {
		diff(ops, index(p, prefix+i), am[i], bm[i])
	}
	for i := len(am) - 1; i >= common; i-- {
		*ops = append(*ops, Operation{Op: OpRemove, Path: index(p, prefix+i)})
	}
	for i := common; i < len(bm); i++ {
		*ops = append(*ops, Operation{Op: OpAdd, Path: index(p, prefix+i), Value: mustMarshal(bm[i])})
	}
}

func index(p string, i int) string { return fmt.Sprintf("%s/%d", p, i) }

// mustMarshal encodes v for an operation's value; see Create on panics.
func mustMarshal(v any) json.RawMessage {
	b, err := encode(v)
	if err != nil {
		panic(fmt.Sprintf("jsonpatch: create operation: marshal value: %v", err))
	}
	return b
}
