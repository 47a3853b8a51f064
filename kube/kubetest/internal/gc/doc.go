// SPDX-License-Identifier: Apache-2.0

// Package gc is the garbage collector kubetest runs inside its server, as
// kube-controller-manager's does it for what clients can see. It knows
// the server by a [Store] (objects, the owner index, writes, the work
// queue): [Collect] decides the fate of an object from its owners,
// [Process] goes on with an owner held by the orphan or
// foregroundDeletion finalizer, [Finalizers] says which of them a
// deletion keeps. The edits it writes ([DropOwnerRefs],
// [UnblockOwnerRefs], [RemoveFinalizer]) and its Event
// ([InvalidNamespaceEvent]) are functions of the object alone. Nothing
// here keeps state: the owner index and the queue are the server's, and
// the server says when the collector runs.
//
// The collector's rules:
//
//   - an object whose owners are all gone (no object of the reference's
//     kind and name, in the dependent's namespace for a namespaced kind,
//     with the reference's uid) is deleted, in the background, or as its
//     own orphan or foregroundDeletion finalizer says; one that still has
//     an owner loses the references to the missing ones;
//   - an owner deleted with propagationPolicy Foreground keeps the
//     foregroundDeletion finalizer (the API server adds it) while its
//     dependents are deleted, until none that blocks it
//     (blockOwnerDeletion) is left;
//   - an owner deleted with Orphan keeps the orphan finalizer until every
//     dependent has lost its reference to it;
//   - in a cycle of foreground deletions (a dependent that owns its own
//     owner), the dependent's references stop blocking, so that both go;
//   - a reference the collector cannot resolve (a kind not served, a
//     namespaced owner of a cluster-scoped object) keeps its object, as the
//     real collector keeps retrying it; Events are not collected;
//   - a reference whose uid is an object in another namespace dangles, and
//     the collector says so in a Warning Event (OwnerRefInvalidNamespace)
//     about the dependent.
//
// The finalizers of dependents are honoured: a dependent deleted with one
// stays until it is removed, and blocks a foreground owner until then.
package gc
