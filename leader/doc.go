// SPDX-License-Identifier: Apache-2.0

// Package leader elects one leader among the replicas of a controller with
// a coordination.k8s.io/v1 Lease.
package leader
