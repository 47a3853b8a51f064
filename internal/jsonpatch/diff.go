// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"context"
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
// arrays may be compared once per level. [CreateContext] stops when a
// context ends.
func Create(before, after any) []Operation {
	ops, _ := CreateContext(context.Background(), before, after)
	return ops
}

// CreateContext is [Create] that gives up when ctx is done, returning
// ctx's error (context.DeadlineExceeded at a deadline). It looks at ctx
// before each value it compares, so it stops within one [Equal] of two
// values after ctx ends.
func CreateContext(ctx context.Context, before, after any) ([]Operation, error) {
	d := differ{ops: []Operation{}, ctx: ctx}
	d.diff("", before, after)
	if d.err != nil {
		return nil, d.err
	}
	return d.ops, nil
}

// differ holds the operations made so far and the context that bounds
// the work.
type differ struct {
	ops []Operation
	ctx context.Context
	// err is ctx's error once it is done; nothing is added after.
	err error
}

// stopped reports whether the context is done, recording its error.
func (d *differ) stopped() bool {
	if d.err == nil {
		d.err = d.ctx.Err()
	}
	return d.err != nil
}

// diff appends to d.ops the operations that turn a into b at pointer p.
func (d *differ) diff(p string, a, b any) {
	if d.stopped() {
		return
	}
	switch x := a.(type) {
	case map[string]any:
		if y, ok := b.(map[string]any); ok {
			d.diffObjects(p, x, y)
			return
		}
	case []any:
		if y, ok := b.([]any); ok {
			d.diffArrays(p, x, y)
			return
		}
	}
	if !Equal(a, b) {
		d.ops = append(d.ops, Operation{Op: OpReplace, Path: p, Value: mustMarshal(b)})
	}
}

func (d *differ) diffObjects(p string, a, b map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(a)) {
		if _, ok := b[k]; !ok {
			d.ops = append(d.ops, Operation{Op: OpRemove, Path: appendToken(p, k)})
		}
	}
	keys := slices.Sorted(maps.Keys(b))
	for _, k := range keys {
		if av, ok := a[k]; ok {
			d.diff(appendToken(p, k), av, b[k])
		}
	}
	for _, k := range keys {
		if _, ok := a[k]; !ok {
			d.ops = append(d.ops, Operation{Op: OpAdd, Path: appendToken(p, k), Value: mustMarshal(b[k])})
		}
	}
}

func (d *differ) diffArrays(p string, a, b []any) {
	n := min(len(a), len(b))
	prefix := 0
	for prefix < n && !d.stopped() && Equal(a[prefix], b[prefix]) {
		prefix++
	}
	suffix := 0
	for suffix < n-prefix && !d.stopped() && Equal(a[len(a)-1-suffix], b[len(b)-1-suffix]) {
		suffix++
	}
	am, bm := a[prefix:len(a)-suffix], b[prefix:len(b)-suffix]
	common := min(len(am), len(bm))
	for i := range common {
		d.diff(index(p, prefix+i), am[i], bm[i])
	}
	for i := len(am) - 1; i >= common; i-- {
		d.ops = append(d.ops, Operation{Op: OpRemove, Path: index(p, prefix+i)})
	}
	for i := common; i < len(bm); i++ {
		if d.stopped() {
			return
		}
		d.ops = append(d.ops, Operation{Op: OpAdd, Path: index(p, prefix+i), Value: mustMarshal(bm[i])})
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
