// SPDX-License-Identifier: Apache-2.0

// Package cache keeps in-memory copies of the objects of a Kubernetes API
// server, up to date through list and watch, and tells handlers about
// their changes: the reflector, the indexed store, the informer, and the
// multi-kind [Cache] that serves a controller's reads.
//
// Guarantees:
//   - Consistent: after every list and every watch event, the store holds
//     exactly the server's state at one resourceVersion (one per
//     namespace for an informer limited to several). A relist builds the
//     new state apart and swaps it in whole; readers never see a mix.
//   - Nothing lost: a watch that ends (timeout, cut, garbage on the
//     stream, an object that does not decode) resumes from the last
//     resourceVersion seen, bookmarks included. Only a 410 (the version
//     left the server's history, during a watch or a paged list) makes the
//     reflector read the whole state again, one relist per 410, after the
//     backoff below (so a server whose every watch ends in 410 gets a few
//     relists a minute, not a storm); objects that vanished in the gap get
//     OnDelete(last known state, finalStateUnknown=true).
//   - Exact notifications: handlers see every change once, as adds,
//     updates (old and new) and deletes; a relist notifies only what
//     differs from the cache.
//   - Defined order: per object, versions come in the order the server
//     made them (never an older after a newer; a relist skips the
//     versions it missed, and an object deleted and created again while
//     the watch was down gets OnDelete, then OnAdd). Across objects, watch
//     events come in the order the server sent them (resourceVersion
//     order), and what walks a whole state (the changes a list or relist
//     finds, the adds a handler added late first gets, a resync) comes in
//     key order: by namespace, then by name, as the API server lists. An
//     informer of several namespaces watches each apart: the events of
//     different namespaces interleave in the order they arrive.
//   - Isolated handlers: each handler has its own unbounded queue and
//     goroutine (see [Registration]). A slow handler delays only itself;
//     the reflector never waits for a handler and no event is dropped.
//   - Bounded retries: failures (410s included) back off exponentially
//     from 800ms to 30s with jitter, reset after two quiet minutes;
//     watches ask for a random 5 to 10 minute timeout, so that clients do
//     not reconnect together;
//     resyncs (OnUpdate(obj, obj, true) for every object, default every 10h)
//     are jittered ±10%.
//   - Lean: the raw JSON is not kept; at most one page of a list is held
//     besides the state being built; the kind's strings are shared by
//     every object, and the metadata strings that repeat (namespaces,
//     label keys and values, owner kinds, finalizers) are interned.
//     Compact informers ([InformerOptions.Compact]) go further and keep
//     each object as its JSON, decoded on every read: for 50,000
//     ConfigMaps of 1 KiB, 1,360 bytes an object against 1,792 decoded
//     (both without managedFields; 1,488 and 1,968 with them).
//   - Any kind, typed or not: an [Informer] stores your own structs (only
//     the fields they declare are kept), [kube.Unstructured], or
//     [kube.PartialObjectMetadata] for metadata-only caches (the server
//     sends only metadata).
//   - Shardable: an informer limited to a shard of its kind
//     ([InformerOptions.ShardSelector]) lists and watches only that shard
//     on kube-apiserver 1.36 with ShardedListAndWatch on, and filters
//     with the server's hash itself when the server ignores the selector:
//     the same objects either way. A sharded informer
//     ([InformerOptions.Sharded]) takes and drops shards at run time: on
//     a server that filters, adding one costs one list and watch of that
//     shard alone (one per namespace for an informer limited to
//     namespaces) and a relist replaces that shard's objects alone; on
//     one that ignores the selector, the informer reads and watches the
//     kind once for all its shards, and shards added close together cost
//     one more read of the kind. Either way removing one drops its
//     objects without telling handlers they were deleted (they were not).
//   - Reading your own writes: a [Cache] whose client reports its writes
//     ([Cache.RecordWrite], wired to kube.ClientOptions.OnWrite; a
//     manager does this) answers a Get or List with a state that includes
//     every write through that client the server had answered before the
//     read began. The read waits, bounded by its context and by
//     [Options.MaxFreshWait] (5s by default), until the informer has read
//     past the write's resourceVersion (an event or a bookmark) or holds
//     the object at it; a delete is held once the object is gone or
//     marked with a deletionTimestamp. A List waits only for the writes
//     that may change its answer (in its namespace; by label, those whose
//     labels as written or as cached match). Writes answered after the
//     read began are not waited for. resourceVersions are compared as
//     decimal integers (KEP-5504, stable since Kubernetes 1.35); where a
//     server's are not, or a wait passes its bound, the read answers from
//     the cache as it is, counted in [Stats].Fresh and logged once per
//     informer, never an error. Each write is forgotten once seen, so
//     what is remembered is bounded by the writes not yet seen; a read
//     with nothing pending costs one atomic load more. It does not
//     promise anything about writes of other clients or other processes:
//     their changes arrive when the watch brings them.
//   - Observable: Stats give objects, approximate bytes, requests, relists,
//     the last resourceVersion read, the waits for own writes and handler
//     queue lengths per kind, as plain values for metrics.
//   - Owned objects: stored objects are never modified. Reads return deep
//     copies the caller owns, except through [ReadOnly], the zero-copy
//     path, whose objects must not be modified. Handlers get the stored
//     objects: they must not modify them either.
//   - Clean shutdown: constructors do no I/O and start nothing; Start
//     blocks until its context is done and returns only after every
//     goroutine it started has ended.
//
// The informer loop: an informer runs a reflector for each namespace it is
// limited to (or one for all), each in a goroutine of its own, reading
// through a list and watch function and writing into the store. In outline
// (reflector.go has it in full):
//
//	rv := "" // the resourceVersion to resume from
//	for ctx.Err() == nil {
//		var err error
//		if rv == "" { // at start, and after a 410
//			// A WatchList stream up to its initial-events-end bookmark
//			// or, if the server refuses WatchList, paged lists (a failed
//			// page is asked for again after a backoff). The state is built
//			// apart from the store.
//			var state []kube.Object
//			state, rv, err = readAll(ctx)
//			if err == nil {
//				replace(state) // swapped in whole; handlers hear what differs
//			}
//		}
//		if err == nil {
//			// Each event changes the store, queues a notification to
//			// every handler and moves rv on, as bookmarks do. The watch
//			// ends when the server ends it (after the 5 to 10 minutes
//			// asked for) or fails; a healthy end is no error.
//			err = watchFrom(ctx, &rv, apply)
//		}
//		if kube.IsGone(err) {
//			rv = "" // rv has left the server's history: read it all again
//		}
//		if err != nil {
//			// A failed request, a broken stream or garbage on it, a 410,
//			// a watch that ended at once with nothing.
//			wait.Sleep(ctx, backoff.next()) // 0.4-0.8s, doubling to 15-30s
//		}
//	}
//
// Where it departs from client-go, on purpose:
//   - No queue of deltas between the reflector and the store (client-go's
//     DeltaFIFO or RealFIFO): the reflector writes the store through a
//     narrow sink and each change is queued to every handler as it is
//     made, under one lock. Handlers get objects, not deltas.
//   - A relist notifies only what differs from the cache; client-go's
//     gives every object listed an OnUpdate, changed or not.
//   - A deletion missed while the watch was down is OnDelete(last known
//     state, finalStateUnknown=true), not a DeletedFinalStateUnknown
//     wrapper every handler must unwrap.
//   - A resync says it is one: OnUpdate(obj, obj, isResync=true), where
//     client-go's handlers compare resourceVersions to tell.
//   - An informer limited to several namespaces is one informer: a
//     reflector per namespace, one store, one set of handlers
//     (controller-runtime runs an informer per namespace).
//   - Objects are your own structs, decoded from JSON without a scheme;
//     only their declared fields are kept, and a compact informer keeps
//     them as JSON (see [InformerOptions.Compact]).
//   - Whole states are walked in key order (see the order above), where
//     client-go's resyncs and a relist's deletions follow its store's map.
//
// Usage:
//  1. Make a [kube.Client].
//  2. For one kind, make an [Informer] with [NewInformer]; for a
//     controller's reads of many kinds, make a [Cache] with [New].
//  3. Add handlers with AddEventHandler and indexes with AddIndex or
//     [Cache.IndexField].
//  4. Run Start(ctx) in a goroutine; WaitForSync(ctx) before trusting
//     reads.
//  5. Read with Get and List (copies) or [ReadOnly] (no copies).
package cache
