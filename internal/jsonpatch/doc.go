// SPDX-License-Identifier: Apache-2.0

// Package jsonpatch applies and creates JSON patches on encoding/json's
// generic values: RFC 7386 merge patches ([MergeValue], [Merge]), RFC 6902
// JSON patches ([ApplyValue], [Apply]), and the diffs that make one
// ([CreateMerge], [Create]).
//
// A generic value is what json.Unmarshal produces into an any:
// map[string]any, []any, string, float64 or json.Number, bool and nil.
// Integers of Go's int and uint types and float32 are accepted as numbers
// too.
//
// Guarantees:
//   - Inputs are never modified. [ApplyValue] works on a deep copy;
//     [MergeValue] copies the objects it changes. Who owns what is
//     returned is said on each function.
//   - [ApplyValue] is all or nothing: on error it returns no document.
//   - Errors are typed: a pointer that does not resolve, or is not a valid
//     RFC 6901 pointer, is a [*PathError]; a "test" that does not hold is a
//     [*TestFailedError]; copies past [ApplyValueLimit]'s bound are a
//     [*CopyLimitError]. All are found with errors.As through the
//     wrapping that names the failing operation.
//   - Bounded where asked: [ApplyValueLimit] caps the bytes that copy
//     operations add, which a short patch can otherwise double per
//     operation.
//   - Numbers compare by value ([Equal]): float64 1, json.Number "1.0" and
//     int 1 are equal. Numbers read from patch bytes are json.Number, so
//     integers beyond 2^53 survive a round trip.
//   - [ApplyValue](before, [Create](before, after)) is [Equal] to after;
//     [MergeValue](before, [CreateMerge](before, after)) is too, but for
//     null members (which a merge patch treats as absent).
//     [CreateContext] gives up when its context ends.
//   - [Hash] agrees with [Equal], to find equal values among many in
//     linear time.
//
// Usage:
//  1. A fake server applies a client's merge patch:
//     stored = jsonpatch.MergeValue(stored, patch).
//  2. A webhook answers with the operations that turn the object it
//     received into the one it wants: ops := jsonpatch.Create(before, after),
//     then json.Marshal(ops).
//  3. A server applies those: obj, err := jsonpatch.Apply(doc, patch).
package jsonpatch
