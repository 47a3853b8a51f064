// SPDX-License-Identifier: Apache-2.0

// Package defaulting applies to a decoded object what kube-apiserver 1.36
// applies to it on a write before storing it: the defaults of its kind's
// decoding ([Default]), what the default admission plugins and create
// strategies add ([Admit]) and what an update strategy keeps
// ([KeepOnUpdate]), and refuses what the defaults make easy to write
// wrongly ([Validate]). The server calls them; the objects are the
// caller's maps, modified in place.
//
// Guarantees:
//   - A default fills a field only when it is missing (or null, or ""),
//     so a write that sends the field keeps its value.
//   - A kind this package does not know is left unchanged.
//   - Nothing here reads or writes other objects: each call sees the one
//     object (and, on update, its previous version) it is given.
//
// The values are those the real server stored, captured in
// kube/kubetest/testdata/defaults.json (TestDefaultsAsCaptured in
// kube/kubetest).
package defaulting
