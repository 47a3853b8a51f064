// SPDX-License-Identifier: Apache-2.0

// Package controller runs reconcile loops: sources turn cache events (and
// events from outside the cluster) into requests, a work queue holds
// them, and workers call a [Reconciler] for each, retrying failures with
// backoff. It also holds the [Builder] that wires a controller to a
// manager, and the helpers reconcilers use: owner references and
// create-or-update.
//
// A [Controller] guarantees:
//   - One at a time per object: a request is reconciled by at most one
//     worker at a time (the queue hands it to one worker until Done); up
//     to [Options.MaxConcurrentReconciles] different requests run at once,
//     so a slow reconcile holds up only its own object.
//   - Level-triggered: a request is an object's key, not an event. Events
//     for an object queued many times before a worker takes it make one
//     reconcile; an event during a reconcile makes one more after it.
//   - Results as controller-runtime: an error is retried with the rate
//     limiter's backoff (5ms doubling to 1000s per request by default) and
//     its Result is ignored; a [TerminalError] is not retried;
//     RequeueAfter resets the backoff and requeues after exactly that
//     long; [RequeueRateLimited] retries with backoff; success resets the
//     backoff. Result.Priority is the queue priority of the retry.
//   - Panics are errors: a panic in Reconcile is recovered, counted,
//     logged with its stack and retried like an error, unless
//     [Options.RecoverPanic] says to re-raise it.
//   - Changes first: events for the initial list and for resyncs are
//     queued with [LowPriority], real changes with priority 0, so a
//     change is reconciled at once even while thousands of objects of the
//     initial list wait; the queue's aging rule keeps the backlog moving
//     (see [Change.Priority] and package queue). The objects of a shard a
//     sharded controller takes over are changes (see [Shards]).
//   - Stale-safe: a controller the [Builder] makes with For never
//     reconciles an object on a cache older than this process's own
//     writes to it, or to the objects it owns (their owner references
//     name it), made through the manager's client. Before each reconcile
//     it asks the manager ([Freshness]); a request whose writes the cache
//     does not hold yet is set aside on a goroutine of its own (no worker
//     held, no error, no backoff) and queued again once they are, or once
//     the manager's bound (manager.Options.Cache.MaxFreshWait) passes, when it
//     is reconciled as it would have been. So the reconcile after a
//     reconcile that created a child or patched a status sees both.
//     A write that removed the last finalizer of an object being deleted
//     is held once the object is gone from the cache, so the clean-up a
//     finalizer guards runs once. A wait that passed the bound is not
//     repeated for the same writes; writes the cache cannot see (outside
//     its namespaces, filtered out by its label selector) are not waited
//     for. Counted in kubeloop_reconcile_deferred_stale_total;
//     [Options.ReconcileStale] turns it off. Writes of other clients and
//     processes are not waited for.
//   - Synced before working: Start waits, within
//     [Options.CacheSyncTimeout], until every source has delivered its
//     initial state; a timeout fails Start with an error naming the kind.
//   - Clean shutdown: [New] does no I/O and starts nothing. Start blocks
//     until its context is done, then stops taking work, waits for the
//     reconciles in flight and for its sources, and only then returns.
//   - No global state: controllers share nothing; the uniqueness of names
//     within a manager is the manager's concern (see [Manager]).
//   - Shardable: [Shards] runs a controller on the shards of its kind a
//     ring member of package leader holds (its Work), over a sharded
//     informer: never two replicas reconciling one object at once, every
//     object reconciled by the member a range moves to. [Builder.Sharded]
//     makes one on a manager that runs the ring, beside unsharded
//     controllers of other kinds. Changes of the
//     kinds it owns reach the member holding the owner alone
//     ([Shards.EnqueueOwner]). Shards are by uid (even spread) or by
//     namespace (a namespace's objects on one member); see
//     [kube.ShardField] for which to choose.
//   - Counted: [Controller.Metrics] is a snapshot of controller-runtime's
//     controller_runtime_* metrics and of the queue's workqueue_* ones;
//     [Controller.CollectMetrics] writes them, named and labelled as
//     controller-runtime does, to a manager's metrics endpoint.
//   - No panics from zero values: every exported type's zero value works
//     or returns an error (a zero or nil [Controller] answers
//     "controller.Controller: use controller.New or a Builder", a nil
//     [ReconcilerFunc] an error, a nil [PredicateFunc] filters nothing);
//     a typed nil is treated as nil: a nil [Builder]'s chain ends in an
//     error from Build. The helpers that read NotFound as "gone"
//     ([RemoveFinalizer], [CreateOrUpdate], [CreateOrPatch]) see a server
//     that is not Kubernetes' as the error it is
//     (kube.NotKubernetesError). TestZeroValues walks the exported API.
//
// Events, predicates and handlers: a source makes a [Change] (create,
// update, delete or generic) for each change it sees, hands it on if all
// its [Predicate]s allow it, and an [EventHandler] turns it into requests:
// [EnqueueObject] for the kind reconciled, [EnqueueOwner] for the kinds it
// owns, [EnqueueMapped] for other relations.
//
// The worker loop: [Controller.Start] runs [Options.MaxConcurrentReconciles]
// workers, each this loop over the controller's queue (worker.go has it in
// full, with metrics and logging):
//
//	for {
//		req, ok := q.Get() // blocks; ok is false once the controller stops
//		if !ok {
//			return
//		}
//		res, err := r.Reconcile(ctx, req) // a panic is recovered as an error
//		switch {
//		case errors.Is(err, ErrTerminal):
//			q.Forget(req) // logged and counted, not retried
//		case err != nil: // 5ms doubling to 1000s per request
//			q.AddWithOptions(req, queue.AddOptions{RateLimited: true, Priority: res.Priority})
//		case res.RequeueAfter > 0:
//			q.Forget(req)
//			q.AddWithOptions(req, queue.AddOptions{After: res.RequeueAfter, Priority: res.Priority})
//		case res.IsRateLimited(): // RequeueRateLimited(), not an error
//			q.AddWithOptions(req, queue.AddOptions{RateLimited: true, Priority: res.Priority})
//		default:
//			q.Forget(req) // success: the backoff starts over
//		}
//		q.Done(req) // if req was added during the reconcile, it is queued again now
//	}
//
// and the sources feed the queue, for each change their informer reports:
//
//	c := Change{Type: ChangeUpdate, Old: old, Object: obj, Key: key, Resync: isResync}
//	if every predicate allows c {
//		handler.Handle(ctx, c, q) // q.AddWithOptions(req, queue.AddOptions{Priority: c.Priority()})
//	}
//
// Where it departs from controller-runtime, on purpose:
//   - Changes first cannot be turned off: the initial list and resyncs
//     are always queued at [LowPriority] (controller-runtime's priority
//     queue is an option, UsePriorityQueue, on by default since v0.23),
//     and the queue's aging rule bounds how long they can be passed over.
//   - A resync says it is one ([Change.Resync]); controller-runtime's
//     UpdateEvent does not, and predicates compare resourceVersions.
//   - One [Change] type and one [EventHandler] method, Handle, where
//     controller-runtime has an event type and a handler method for each
//     of create, update, delete and generic.
//   - Metrics are kept by each controller and written by
//     [Controller.CollectMetrics] to whoever asks (the manager), under
//     controller-runtime's names; there is no global registry, so two
//     managers in one process count apart, and names need to be unique
//     only within a manager, not within the process.
//   - [EnsureFinalizer] and [RemoveFinalizer] write (controllerutil's
//     AddFinalizer and RemoveFinalizer only change the object): a patch
//     with the resourceVersion read, made again on the server's copy
//     after a Conflict, so a stale read neither fails nor drops another
//     writer's finalizer; removing from an object already gone is no
//     error.
//   - The package does not import manager: the [Builder] asks for the
//     small [Manager] interface declared here (GetInformer, Mapping,
//     AddController, AddShardedController). Calls go one way: a sharded
//     controller's builder hands the manager the controller and its
//     shards' Work in one call, and the manager calls that Work for each
//     range it holds, as it calls Start.
//
// Binary size: two parts of the builder are reached from [Builder.Build]
// only through an unexported interface field of the Builder that one
// method sets. [Builder.Sharded] sets the sharded controller's machinery
// ([Shards], its source, gate and owner handler); [Builder.Clusters] sets
// the fleet's (a runnable that runs a [Controller] of its own for each
// engaged cluster of a [Clusters]). A program that never calls Sharded
// links none of the first, nor what it reaches in package cache (the
// sharded informer's shard set); one that never calls Clusters links none
// of the second.
//
// Usage:
//  1. Write a [Reconciler]: read the object the [Request] names, act,
//     return a [Result] or an error. The object read from a cache may be
//     a version behind: write what you changed as a patch, so that this
//     costs no Conflict (patch := kube.MergeFrom(&w) before the change,
//     c.Status().Patch(ctx, &w, patch) after; see [kube.MergeFrom]), and
//     use the helpers, which do the same: [CreateOrPatch],
//     [EnsureFinalizer], [RemoveFinalizer].
//  2. With a manager, build and register the controller in one chain:
//     NewBuilder(mgr).For(&Widget{}).Owns(&kube.ConfigMap{}).Complete(r).
//  3. Without one, make it with [New], add sources with [Controller.Watch]
//     ([Kind] over an informer's [cache.ObjectInformer], [Channel] for outside
//     events), run the informers, and run [Controller.Start] until your
//     context is done.
package controller
