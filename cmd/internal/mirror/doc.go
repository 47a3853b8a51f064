// SPDX-License-Identifier: Apache-2.0

// Package mirror is the controller of cmd/mirror: it copies Secrets and
// ConfigMaps into other namespaces and keeps the copies in sync. cmd/mirror
// runs it on a cluster, cmd/demo on an in-process kubetest API server.
//
// A source is a Secret or ConfigMap with either or both of the annotations
//
//	kubeloop.dev/mirror-to: team-a,team-b
//	kubeloop.dev/mirror-to-selector: mirror=yes
//
// Its copies are written with server-side apply (field manager
// "kubeloop-mirror") in every namespace named or selected, except its own,
// and carry the labels kubeloop.dev/mirror-of-namespace, -name and -kind.
// The mirror:
//
//   - updates the copies when the source changes, and puts back a copy
//     changed or deleted by hand;
//   - deletes the copies no longer wanted when the annotations change or a
//     namespace stops matching, and copies into namespaces that appear;
//   - holds the source with the finalizer kubeloop.dev/mirror until its
//     copies are deleted;
//   - never overwrites an object that is not its copy, never copies into
//     the source's own namespace, and never mirrors a copy;
//   - records Events on the source for what it does.
//
// Usage:
//  1. Make the manager with [NewManager] (it caches the mirrored kinds and
//     Namespaces as metadata only).
//  2. Run the mirror on it with [Run], until the context is done.
//
// Or register the controllers with a manager of your own with [Setup].
// See cmd/README.md for the RBAC the mirror needs, and its size.
package mirror
