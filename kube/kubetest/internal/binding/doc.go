// SPDX-License-Identifier: Apache-2.0

// Package binding is what a Binding (core v1) does to the pod it names,
// as a scheduler's binding does through kube-apiserver: [Target] checks
// the Binding's target, [Assign] gives the pod its node, the Binding's
// annotations and a PodScheduled condition, and [Bind] does all of it
// to a pod of the server's, which it finds and stores through [Pods].
// The server reads the request and answers; this package keeps no state
// and reads no other object.
//
// Guarantees:
//   - A pod already assigned to a node is never changed: Assign returns
//     the conflict instead.
//   - A target of another kind than Node, or without a name, is refused
//     with every failure found.
package binding
