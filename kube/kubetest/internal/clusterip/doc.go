// SPDX-License-Identifier: Apache-2.0

// Package clusterip allocates what kube-apiserver allocates a Service on
// create: a cluster IP from the harness's range 10.0.0.0/24 (the lowest
// free address; the real allocator picks at random), clusterIPs and the
// IP family fields, which nobody's managedFields own ([Allocate]); and
// carries them over to an update that leaves them out ([KeepOnUpdate]).
// Node ports are not allocated. It sees the stored Services through the
// small [Store] interface it declares.
//
// Guarantees:
//   - An ExternalName Service, or one without a spec, is never given
//     anything.
//   - An address a stored Service holds (clusterIP or clusterIPs) is
//     never handed out again, nor the range's network and broadcast
//     addresses.
//   - A full range is reported, never an address outside it.
package clusterip
