// SPDX-License-Identifier: Apache-2.0

package jsonpatch

// CreateMerge returns the RFC 7386 merge patch that turns before into
// after: MergeValue(before, CreateMerge(before, after)) is [Equal] to
// after but for null members, which a merge patch cannot set and which
// the patch treats as absent (a member null on both sides, or null on
// one and absent on the other, is left out). Equal documents give an
// empty object, which marshals as {}.
//
// When before and after are both objects the patch holds, member by
// member, what changed: a member of after that is new or differs, whole
// unless both sides are objects (then the merge patch of the two,
// recursively, left out when empty), and null for a member of before that
// after lacks. Arrays are never diffed: one that differs in any element
// is sent whole, as a merge patch replaces arrays. When either side is
// not an object the patch is after itself, a deep copy.
//
// Neither input is modified and the result shares nothing with them. The
// cost is O(size of before + size of after).
func CreateMerge(before, after any) any {
	b, bok := before.(map[string]any)
	a, aok := after.(map[string]any)
	if !bok || !aok {
		return DeepCopy(after)
	}
	return mergeDiff(b, a)
}

// mergeDiff is [CreateMerge] of two objects; the result is never nil.
func mergeDiff(before, after map[string]any) map[string]any {
	patch := map[string]any{}
	for k, av := range after {
		bv, had := before[k]
		if av == nil {
			if had && bv != nil {
				patch[k] = nil
			}
			continue
		}
		bm, bok := bv.(map[string]any)
		am, aok := av.(map[string]any)
		switch {
		case bok && aok:
			if sub := mergeDiff(bm, am); len(sub) > 0 {
				patch[k] = sub
			}
		case !had || !Equal(bv, av):
			patch[k] = DeepCopy(av)
		}
	}
	for k, bv := range before {
		if _, ok := after[k]; !ok && bv != nil {
			patch[k] = nil
		}
	}
	return patch
}
