// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"maps"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// mutationPatch returns the JSON patch a mutating webhook answers: the
// operations that make, out of original (the object as the API server
// sent it), the object the handler wants.
//
// A handler works on a typed copy that may declare only some of the
// object's fields: before is original decoded into the handler's type and
// encoded again, after is the same copy once the handler changed it. A
// patch from original to after would remove every field the type does not
// declare; a patch from before to after could address members that exist
// in the typed view only (a non-omitempty zero value) and fail on the
// server. So the change from before to after is carried over onto
// original, member by member:
//   - what the handler did not change keeps original's value, fields the
//     type does not declare included, wherever they are;
//   - a member the handler changed, added or removed is changed, added or
//     removed in original; objects are merged recursively;
//   - in an array, an element the handler left in place or only moved
//     (equal to an element of before) keeps original's element; a changed
//     element of an array whose length did not change is merged with the
//     original element at its index; any other changed element is taken
//     from after whole.
//
// ApplyValue(original, ops) then gives the merged object, which decodes
// into the handler's type as after does.
//
// The cost is O(size of the three documents) for flat arrays, whatever
// their elements became: an element of after that is not in place is
// looked up among before's by [jsonpatch.Hash], not compared with each.
// Values nested n levels deep may be compared once per level. The work
// stops when ctx is done (the API server's timeout has passed): the error
// then wraps ctx's error, context.DeadlineExceeded at a deadline.
func mutationPatch(ctx context.Context, original, before, after []byte) ([]jsonpatch.Operation, error) {
	o, err := decodeJSON(original)
	if err != nil {
		return nil, fmt.Errorf("decode original object: %w", err)
	}
	b, err := decodeJSON(before)
	if err != nil {
		return nil, fmt.Errorf("decode object before the change: %w", err)
	}
	a, err := decodeJSON(after)
	if err != nil {
		return nil, fmt.Errorf("decode object after the change: %w", err)
	}
	c := carrier{ctx: ctx, seed: maphash.MakeSeed()}
	merged := c.carryOver(o, b, a)
	if c.err != nil {
		return nil, fmt.Errorf("carry the change over to the original object: %w", c.err)
	}
	ops, err := jsonpatch.CreateContext(ctx, o, merged)
	if err != nil {
		return nil, fmt.Errorf("diff the original and changed objects: %w", err)
	}
	return ops, nil
}

// decodeJSON decodes a document keeping numbers exact.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// carrier carries a change over onto the original object (see
// mutationPatch), until its context is done.
type carrier struct {
	ctx context.Context
	// err is ctx's error once it is done; the result is then partial
	// and must be dropped.
	err  error
	seed maphash.Seed
}

// stopped reports whether the context is done, recording its error.
func (c *carrier) stopped() bool {
	if c.err == nil {
		c.err = c.ctx.Err()
	}
	return c.err != nil
}

// carryOver applies the change from b to a onto o. It shares values with
// its arguments and modifies none of them.
func (c *carrier) carryOver(o, b, a any) any {
	if c.stopped() || jsonpatch.Equal(b, a) {
		return o
	}
	switch av := a.(type) {
	case map[string]any:
		bv, okb := b.(map[string]any)
		ov, oko := o.(map[string]any)
		if !okb || !oko {
			return a
		}
		return c.carryOverObject(ov, bv, av)
	case []any:
		bv, okb := b.([]any)
		ov, oko := o.([]any)
		if !okb || !oko || len(ov) != len(bv) {
			return a
		}
		return c.carryOverArray(ov, bv, av)
	}
	return a
}

func (c *carrier) carryOverObject(o, b, a map[string]any) map[string]any {
	out := maps.Clone(o)
	for k := range b {
		if _, ok := a[k]; !ok {
			delete(out, k)
		}
	}
	for k, av := range a {
		bv, inB := b[k]
		ov, inO := o[k]
		switch {
		case !inB:
			out[k] = av
		case !inO:
			// Present in the typed view only (a zero value the type
			// writes): add it only if the handler changed it.
			if !jsonpatch.Equal(bv, av) {
				out[k] = av
			}
		default:
			out[k] = c.carryOver(ov, bv, av)
		}
	}
	return out
}

// carryOverArray is carryOver for arrays; len(o) == len(b). An element
// of a is, by the first rule that holds: o's element at its index when b
// has it there unchanged; o's element at the first index where b has it
// (it moved); merged with o's element at its index when the length did
// not change; else a's element.
func (c *carrier) carryOverArray(o, b, a []any) []any {
	out := make([]any, len(a))
	var where map[uint64][]int // b's indexes by hash, made when first needed
	for i, av := range a {
		if c.stopped() {
			return out
		}
		if i < len(b) && jsonpatch.Equal(b[i], av) {
			out[i] = o[i]
			continue
		}
		if where == nil {
			where = c.indexByHash(b)
		}
		if j := c.find(where, b, av); j >= 0 {
			out[i] = o[j]
			continue
		}
		if len(a) == len(b) {
			out[i] = c.carryOver(o[i], b[i], av)
			continue
		}
		out[i] = av
	}
	return out
}

// indexByHash maps the hash of each element of s to its indexes, in
// increasing order. The cost is O(size of s).
func (c *carrier) indexByHash(s []any) map[uint64][]int {
	m := make(map[uint64][]int, len(s))
	for i, e := range s {
		h := jsonpatch.Hash(c.seed, e)
		m[h] = append(m[h], i)
	}
	return m
}

// find is the first index of s whose element equals v, or -1; where is
// indexByHash(s).
func (c *carrier) find(where map[uint64][]int, s []any, v any) int {
	for _, i := range where[jsonpatch.Hash(c.seed, v)] {
		if jsonpatch.Equal(s[i], v) {
			return i
		}
	}
	return -1
}
