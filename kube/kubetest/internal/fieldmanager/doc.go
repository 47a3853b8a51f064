// SPDX-License-Identifier: Apache-2.0

// Package fieldmanager keeps metadata.managedFields and carries out
// server-side apply as kube-apiserver's field manager (structured-merge-diff)
// does, from a kind's schema (package schema):
//   - set.go and path.go: field sets as fieldsV1 writes them, and their
//     path elements (f:, k:, v:, i:) in the real server's order;
//   - walk.go, compare.go and merge.go: which fields a value sets, what
//     changed between two values, how a configuration merges into an
//     object, and how fields are taken out;
//   - managedfields.go: the entries of managedFields ([Entry]), decoded,
//     validated and written back ([SetManagedFields]);
//   - manager.go: an Update's changes recorded ([Manager.RecordUpdate]);
//   - apply.go and apply_kubectl.go: an apply ([Manager.Apply],
//     [Manager.ApplyKubectl]): merge, prune, conflicts ([Conflict],
//     [ApplyError]), and kubectl's client-side to server-side migration.
//
// A [Manager] serves one write; it never touches storage. What it returns
// is the object and entries to store; the server turns an [ApplyError]
// into its 409 or 500 Status.
package fieldmanager
