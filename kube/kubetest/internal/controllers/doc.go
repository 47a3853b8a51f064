// SPDX-License-Identifier: Apache-2.0

// Package controllers runs, inside kubetest's server, the two controllers
// of kube-controller-manager that clients see as part of the API: the
// garbage collector (package gc) and the namespace controller (package
// nscontroller). It knows the server by a [Store], which it gives each
// controller in the shape that controller declares.
//
// They are driven by the writes themselves. The server hands every
// commit and removal to [Controllers.Observe]: it keeps the garbage
// collector's index of owners to dependents and queues the work the
// change calls for (both kept by package ctlstate). The server calls
// [Controllers.Run] before the lock that made the change is released, so
// the request that deletes an owner or a namespace returns after
// everything it set off has happened or is waiting on a finalizer someone
// else must remove.
//
// Guarantees:
//   - Nothing polls and nothing runs between requests: a test sees the
//     outcome without sleeping, and the same requests always give the
//     same sequence of events.
//   - The owner index is kept by every change whether or not the garbage
//     collector runs, so that turning it on later sees every owner.
//   - One write sets off at most [MaxSteps] pieces of work; the rest is
//     dropped and reported (a cycle of owners cannot hold the server for
//     ever).
//   - Every write the controllers make is kube-controller-manager's,
//     through the server's own write paths (validation, watches,
//     finalizers).
//
// Nothing here is safe for concurrent use: the server holds its lock
// around every call, and every [Store] method is called inside it.
package controllers
