// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
)

// MutationPatch returns the JSON patch a mutating webhook answers: the
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
// into the handler's type as after does. The cost is O(size of the three
// documents), plus O(n²) [jsonpatch.Equal] comparisons for an array of n
// elements with changed elements.
func MutationPatch(original, before, after []byte) ([]jsonpatch.Operation, error) {
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
	return jsonpatch.Create(o, carryOver(o, b, a)), nil
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

// carryOver applies the change from b to a onto o. It shares values with
// its arguments and modifies none of them.
func carryOver(o, b, a any) any {
	if jsonpatch.Equal(b, a) {
		return o
	}
	switch av := a.(type) {
	case map[string]any:
		bv, okb := b.(map[string]any)
		ov, oko := o.(map[string]any)
		if !okb || !oko {
			return a
		}
		return carryOverObject(ov, bv, av)
	case []any:
		bv, okb := b.([]any)
		ov, oko := o.([]any)
		if !okb || !oko || len(ov) != len(bv) {
			return a
		}
		return carryOverArray(ov, bv, av)
	}
	return a
}

func carryOverObject(o, b, a map[string]any) map[string]any {
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
			out[k] = carryOver(ov, bv, av)
		}
	}
	return out
}

// carryOverArray is carryOver for arrays; len(o) == len(b).
func carryOverArray(o, b, a []any) []any {
	out := make([]any, len(a))
	for i, av := range a {
		if i < len(b) && jsonpatch.Equal(b[i], av) {
			out[i] = o[i]
			continue
		}
		if j := indexEqual(b, av); j >= 0 {
			out[i] = o[j]
			continue
		}
		if len(a) == len(b) {
			out[i] = carryOver(o[i], b[i], av)
			continue
		}
		out[i] = av
	}
	return out
}

// indexEqual is the index of the first element of s equal to v, or -1.
func indexEqual(s []any, v any) int {
	for i, e := range s {
		if jsonpatch.Equal(e, v) {
			return i
		}
	}
	return -1
}
