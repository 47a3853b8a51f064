// SPDX-License-Identifier: Apache-2.0

// Package strategicmerge applies a strategic merge patch
// (application/strategic-merge-patch+json) to an object of a built-in
// kind as kube-apiserver does. The schema says how each field merges:
// x-kubernetes-patch-strategy and x-kubernetes-patch-merge-key, which the
// real server reads from the same Go struct tags they are published from.
//
// [Merge] is the entry point. What a patch does, field by field (lists:
// list.go and order.go):
//   - An object merges key by key; null removes a key; a key the object
//     lacks takes the patch's value, its nulls dropped and its directives
//     removed.
//   - A list whose strategy is "merge" merges: lists of objects by merge
//     key (an item merges into the item with its key, or is added), lists
//     of scalars as sets. Any other list is replaced.
//   - Directives: {"$patch": "replace"} replaces an object with the rest
//     of its patch, {"$patch": "delete"} empties it; in a merged list an
//     item {"$patch": "delete", <key>: v} removes the items with key v and
//     {"$patch": "replace"} makes the rest of the patch list the list.
//     "$retainKeys": [names] removes every other key of the object;
//     "$setElementOrder/<list>": [items] orders a merged list;
//     "$deleteFromPrimitiveList/<list>": [values] removes values from a
//     list of scalars. {"$patch": "merge"} is refused, as it is there.
//
// Directives are consumed by the merge and never stored. Where the real
// merge leaves one in place (inside an item it adds to a list, a replaced
// object or list, an unknown "$key"), it is an unknown field of the
// result: dropped, with a warning or a Strict error, as there. The result
// is then what the real server's Go types make of it (settle): a null
// left in it is its type's zero value, and empty lists and maps are
// omitted.
//
// Errors ([Error]) are the real server's, word for word: 400 for a malformed
// directive name or $retainKeys, 422 for lists of lists, and 500 with no
// reason for the rest (a missing merge key, an unknown $patch, a
// $setElementOrder that contradicts its list...). Where the real merge
// panics (it compares objects with ==, or hashes them, in lists without
// merge key), the real server drops the connection; kubetest answers 500
// with the Go runtime's message instead.
//
// The patch is consumed: maps of the patch become parts of the result,
// and directives and nulls are deleted from it as the merge goes. What is
// left of it is what the real server quotes in the 422 errors of the
// patched object.
//
// Cost: O(size of object and patch) for objects; merging a patch list of
// m items into a list of n is O(n + m), plus O((n + m) log(n + m)) to
// order it: items are found by merge key through an index (index.go)
// where the real server scans the list, with the same answers, errors
// and panics included.
package strategicmerge
