// SPDX-License-Identifier: Apache-2.0

// Package unstructured holds JSON as kube-apiserver's unstructured form
// holds it: objects are map[string]any, an integer in int64's range is an
// int64, kept exactly, and any other number a float64, so that 2^53+1 is
// served as sent and 1.0 as 1.
//
// [DecodeExact] and [DecodeObjectOrNull] decode; [NumberValue] and
// [IntegerValue] read a decoded number back; [String], [StringMap],
// [SortedKeys] and [DeepCopy] read and copy decoded values without
// modifying them, and [Metadata] finds (or adds) an object's metadata. Errors are encoding/json's for the same input, except a
// number out of float64's range, which is a [NumberError].
package unstructured
