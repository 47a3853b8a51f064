// SPDX-License-Identifier: Apache-2.0

// Package disruption decides what a PodDisruptionBudget allows an
// eviction, as kube-apiserver 1.36.3's pods/eviction does: which pods a
// budget selects ([Selects]), whether a pod counts as healthy
// ([PodReady]), which pods no budget guards ([Unguarded]) and which an
// unhealthy-pod policy lets go ([LetsUnhealthyGo]), and the charge of an eviction on the one budget covering
// the pod ([Charge]), or its [Refusal]; it also reads the Eviction
// posted ([ReadEviction], [DecodeEviction]) and marks the evicted pod
// ([SetDisruptionTarget]). [Evict] puts these together into the
// eviction of one pod, over a [Store] through which the server gives
// the budgets of the pod's namespace, writes the charged one as its
// status update and deletes the pod; a Refusal becomes the real server's
// 429 or 403. This package keeps no state and reads no other object.
//
// Guarantees:
//   - A budget whose status.observedGeneration is behind its generation
//     refuses every eviction it guards (Busy): no disruption controller
//     runs, so its status is what clients wrote.
//   - A missing selector selects nothing, an empty one everything, an
//     invalid one nothing.
package disruption
