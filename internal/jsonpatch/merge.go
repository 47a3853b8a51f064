// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import "fmt"

// MergeValue applies the RFC 7386 merge patch patch to doc and returns the
// result. A patch that is an object merges into doc member by member (a
// null member deletes, an object member merges recursively, anything else
// replaces), treating a doc that is not an object as {}; any other patch
// replaces doc whole.
//
// Neither doc nor patch is modified, and the result shares nothing with
// patch. It does share with doc every subtree the patch does not touch:
// only the objects on a path to a change are copied (the cost is O(size of
// patch + size of the objects copied)). Treat the result as read-only, or
// DeepCopy it (or doc) before modifying it in place.
//
// Merge patches cannot set a member to null, nor change one element of an
// array: arrays are replaced whole.
func MergeValue(doc, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return DeepCopy(patch)
	}
	d, _ := doc.(map[string]any)
	out := make(map[string]any, len(d)+len(p))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = MergeValue(out[k], v)
	}
	return out
}

// Merge is [MergeValue] on JSON text: it decodes doc and patch (numbers as
// json.Number, so that they keep their digits), merges, and encodes the
// result compactly with object members sorted by name.
func Merge(doc, patch []byte) ([]byte, error) {
	d, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("decode merge patch target: %w", err)
	}
	p, err := decode(patch)
	if err != nil {
		return nil, fmt.Errorf("decode merge patch: %w", err)
	}
	out, err := encode(MergeValue(d, p))
	if err != nil {
		return nil, fmt.Errorf("encode merged document: %w", err)
	}
	return out, nil
}
