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
//     a watch that stays silent (no event, no bookmark, its headers not
//     come) past that timeout and a minute, which a healthy server never
//     does (it ends the watch at its timeout, and kube-apiserver sends a
//     bookmark about every minute), is closed and reopened from the last
//     resourceVersion, after the backoff, as a failure; a list the server
//     never answers fails at kube.HeaderTimeout (70 s) and is retried;
//     resyncs (OnUpdate(obj, obj, true) for every object, default every 10h)
//     are jittered ±10%.
//   - Bounded reads: a state the server sends without end (a list, a
//     page of one, the initial events of a WatchList) is read up to the
//     client's bound (kube.ClientOptions.MaxListSize, 1 GiB by default)
//     and no further: the read fails with an error that wraps
//     [kube.ErrListTooLarge] and names the kind and the bytes read, which
//     the informer logs (warn), tells WatchErrorHandler of, and tries
//     again after its backoff (it stays unsynced meanwhile). Pages are
//     bounded each, not together.
//   - Lean: the raw JSON is not kept; at most one page of a list is held
//     besides the state being built; the kind's strings are shared by
//     every object, and the metadata strings that repeat (namespaces,
//     label and annotation keys and values, owner kinds, finalizers) are
//     interned by the client as it decodes them, never built twice
//     (strings a Transform sets are kept as it sets them); managedFields
//     are not decoded at all unless kept (KeepManagedFields).
//     Compact informers ([InformerOptions.Compact]) go further and keep
//     each object as its JSON, decoded on every read: for 50,000
//     ConfigMaps of 1 KiB, 1,360 bytes an object against 1,792 decoded
//     (both without managedFields; 1,488 and 1,968 with them).
//   - Any kind, typed or not: an [Informer] stores your own structs (only
//     the fields they declare are kept), [kube.Unstructured], or
//     [kube.PartialObjectMetadata] for metadata-only caches (the server
//     sends only metadata). A struct's fields are filled as the API
//     server reads them: keys matched exactly (see package kube), so that
//     "replicaſ" or "Replicas", kept as unknown fields of a custom
//     resource, never reach a cached object's replicas, plain or compact.
//   - Shardable: an informer limited to a shard of its kind lists and
//     watches only that shard on kube-apiserver 1.36 with
//     ShardedListAndWatch on, and filters with the server's hash itself
//     when the server ignores the selector: the same objects either way.
//     A sharded informer takes and drops shards at run time, reading the
//     shards added alone on a server that filters, the kind once for a
//     burst of them on one that does not; removing one drops its objects
//     without telling handlers they were deleted (they were not). See
//     Sharding below.
//   - No panics from zero values: every exported type's zero value works
//     or returns an error (a zero or nil [Cache] answers "cache.Cache: use
//     cache.New", an [Informer] "cache.Informer: use cache.NewInformer");
//     a typed nil is treated as nil. TestZeroValues walks the exported
//     API for this.
//   - A scope that changes while running: a kind's namespaces change
//     without a relist of those kept and without deletes for the objects
//     that leave, and an informer no handler uses can be removed with
//     nothing of it left running or held. See Changing the scope below.
//   - Reading your own writes: a [Cache] whose client reports its writes
//     ([Cache.RecordWrite], wired to kube.ClientOptions.OnWrite, as
//     [NewCluster] wires them; a manager and each cluster of a fleet are a
//     [Cluster]) answers a Get or List with a state that includes
//     every write through that client the server had answered before the
//     read began. The read waits, bounded by its context and by
//     [Options.MaxFreshWait] (5s by default), until the informer has read
//     past the write's resourceVersion (an event or a bookmark) or holds
//     the object at it; a delete is held once the object is gone or
//     marked with a deletionTimestamp; a write after which the server
//     deletes the object (it removed the last finalizer of an object
//     being deleted, answered at the version the object already had) is
//     held once the object is gone. A write that changes nothing answers
//     the version the cache holds: no read waits for it; dry runs are not
//     reported. A List waits only for the writes that may change its
//     answer (in its namespace; by label, those whose labels as written
//     or as cached match). Writes answered after the read began are not
//     waited for, nor writes the cache cannot see: in a namespace outside
//     the kind's, or of an object not cached whose labels as written its
//     label selector filters out (those are not remembered at all). A
//     field selector or a shard is not checked: a write they filter out
//     is waited for once, until the bound. resourceVersions are compared
//     as decimal integers (KEP-5504, stable since Kubernetes 1.35); where
//     a server's are not, or a wait passes its bound, the read answers
//     from the cache as it is, counted in [Stats].Fresh and logged once
//     per informer, never an error, and the writes it waited for are
//     forgotten: no later read waits for them again. Each write is
//     forgotten once seen; what is remembered is bounded by
//     [Options.MaxFreshRecords] and [Options.MaxFreshRecordBytes] (10,000
//     records and 8 MiB by default, about 300 bytes a write, 1.3 KB with
//     an owner of its own): past either, the oldest are dropped (reads no
//     longer wait for them), counted in [Cache.FreshRecords] and logged
//     once. 100,000 writes in a namespace the cache does not watch hold
//     nothing. A read with nothing pending costs one atomic load more. It
//     does not promise anything about writes of other clients or other
//     processes: their changes arrive when the watch brings them.
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
//			// One list (or pages of one, or a WatchList stream up to
//			// its initial-events-end bookmark: InformerOptions.WatchList;
//			// a failed page is asked for again after a backoff). The
//			// state is built apart from the store.
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
//     [Cache.IndexField]; the index of dependents by their controller is
//     one call, [Cache.IndexOwner], read with [OwnedBy].
//  4. Run Start(ctx) in a goroutine; WaitForSync(ctx) before trusting
//     reads.
//  5. Read with Get and List (copies) or [ReadOnly] (no copies).
//  6. While it runs, change a kind's namespaces with
//     [Cache.SetNamespaces], and drop an informer no handler uses with
//     [Cache.RemoveInformer] (see Changing the scope).
//
// # Sharding
//
// An informer limited to a shard of its kind
// ([InformerOptions.ShardSelector]) asks the server, in every list and
// watch (WatchList included), for the objects whose hash of the shard
// field (uid or namespace) falls in the selector's ranges: kube-apiserver
// 1.36's sharded list and watch. A server that ignores the selector (the
// ShardedListAndWatch gate off, or older) sends every object; the
// informer then drops the others itself with the same hash
// ([kube.ShardSelector.Matches]), so that the store and the handlers see
// the same objects either way and only the bytes read differ
// ([Stats].ShardDropped counts the objects dropped). The hashed fields
// never change, so an object never moves in or out.
//
// A sharded informer ([InformerOptions.Sharded]; [Cache.ShardKind] makes
// a kind's informers sharded, as a manager does for a sharded controller)
// changes its shards at run time: it holds no object until a shard is
// added ([Informer.AddShard]), then keeps the objects of each shard
// added, in one store, until the shard is removed
// ([Informer.RemoveShard]). It is synced as soon as it runs; each shard
// has its own sync ([Informer.WaitForShard]). What handlers are told:
//   - Adding a shard: its objects arrive as OnAdd(obj, true), as a first
//     list's do; then its changes, as any informer's.
//   - Removing a shard: nothing. Its objects leave the store silently:
//     they were not deleted on the server, only dropped from this cache,
//     and a sharded controller must not reconcile them as deletions (the
//     member that takes the shard over reconciles them). A handler that
//     keeps state derived from the objects drops a shard's share of it
//     itself. From the moment RemoveShard is called no change of the
//     shard reaches a handler.
//   - An object whose key moves from one shard to another (deleted and
//     created again with a new uid that hashes elsewhere, both shards
//     held): OnDelete(old, true) and OnAdd(new) when the new one arrives
//     first, and the old one's DELETED event changes nothing.
//
// What it costs depends on the server:
//   - A server that filters: each shard has a reflector of its own, one
//     list or WatchList and watch of the shard alone, writing the shard's
//     objects into the one store (a relist replaces that shard's objects
//     alone), so taking or moving a shard reads that shard alone. Until
//     the first shard's first state is stored, its reflector runs alone
//     (a probe), so the others start one read later.
//   - A server that ignores the selector: once the informer sees an
//     object outside a shard it asked for, or a list without
//     metadata.shardInfo, it stops the shards' reflectors for good and
//     reads and watches the kind with one reflector for all its shards,
//     keeping their objects alone (shards_fallback.go): each event is
//     received once, the kind is read once at the switch, and once more
//     for each burst of shards added (coalesced over a quarter second of
//     quiet, at most two seconds, or five while
//     [InformerOptions.ShardsPending] announces more, as a ring member's
//     claims waiting for their holders' releases do), while the shards
//     held keep being served. Memory is the shards' share; the bytes read
//     and decoded at start are about an unsharded informer's, and taking
//     ranges later costs a read of the kind, not of the ranges.
//
// With Namespaces, each reflector above is one per namespace. On a server
// that filters, a member holds namespaces × shards watches (on one that
// ignores the selector, namespaces): with 10 namespaces, a member of a
// ring of three holding 21 of 64 ranges has 210 watches (640 on the
// server for the ring), where an unsharded replica has 10. Each is an
// HTTP/2 stream on the client and a watcher (a goroutine and a buffer) on
// the server; the server's watch cache checks an event against the
// watchers of its namespace alone, so the cost per event is that of all
// namespaces sharded (one check per range), and a relist after a 410
// reads one namespace's share of one shard. Keep the product small: few
// namespaces, or fewer ranges (see package leader). Without Namespaces a
// shard needs one watch, but the right to list and watch the kind
// cluster-wide.
//
// # Changing the scope
//
// A running cache grows and shrinks without a restart:
//   - [Cache.SetNamespaces] (or [Informer.SetNamespaces]) changes the
//     namespaces a kind is cached for. A namespace added gets a reflector
//     of its own: its objects arrive as OnAdd(obj, true), as a first
//     list's do, and the call returns once they are stored. A namespace
//     kept is not read again and its handlers hear nothing: its
//     reflector goes on as it was. A namespace removed stops being
//     watched (its reflector has ended when the call returns) and its
//     objects leave the store without OnDelete, for the reason a shard
//     removed gives none: they were not deleted on the server, and a
//     controller must not reconcile them as deletions (clean-up of
//     external state would follow). From the call on, no change of a
//     removed namespace reaches a handler; a handler that keeps state
//     derived from the objects drops the namespace's share itself.
//     Between all namespaces and some, the namespaces kept are read
//     again (one list of all namespaces, or one of each namespace, is
//     what the server offers): the read is compared with the store as a
//     relist is, so objects that did not change bring no notification.
//     The namespaces kept keep their selectors
//     ([InformerOptions.NamespaceSelectors]); a namespace added has the
//     informer's. A sharded informer's namespaces are fixed.
//   - [Cache.SetScope] (or [Informer.SetScope]) changes the namespaces
//     and their selectors at once. A namespace whose selectors changed
//     (compared as written) is read again with the new ones by a
//     reflector of its own, the old one stopped; its first list replaces
//     the namespace's objects in the store and is compared with them as
//     a relist is: an object that no longer matches gets
//     OnDelete(obj, true) (it left the cache's view; it was not
//     necessarily deleted on the server, the flag says the final state
//     is unknown), a new match OnAdd(obj, true), an object kept at
//     another resourceVersion OnUpdate, one kept unchanged nothing. A
//     namespace kept with the same selectors is not read again. The
//     namespaces added and removed go as with SetNamespaces.
//   - [Cache.RemoveInformer] stops one informer and takes it out of the
//     cache: its watches end, its goroutines return, its objects are
//     released. It refuses an informer that handlers are registered on
//     ([ErrInUse]) rather than taking them with it: a controller whose
//     source lost its informer would wait, without an error, for changes
//     that never come. Stop the controller first (its sources remove
//     their handlers; see manager.Manager.RemoveController).
//
// Inside an informer: the informer (informer.go) owns three parts, and
// calls go one way, from the informer to them, never back:
//   - its source (decode.go): what its reflectors share (the client, the
//     kind, how objects are decoded, the read counters and progress);
//     source.reflector makes every reflector, and listWatch is their
//     listerWatcher. The reflector (reflector.go) knows only a
//     listerWatcher and a sink.
//   - its store (store.go, state.go, query.go): the objects and their
//     indexes, which reads use directly, under the store's own lock.
//   - its hub (hub.go): where the store changes. It holds the store, the
//     handlers' registrations, the lock that orders every change with
//     the notifications it causes and with handler registration, and the
//     count of reflectors the sync waits for. The reflectors' sinks
//     (nsSink in sink.go; shardSink in shards.go and fallbackSink in
//     shards_fallback.go) and the shard set reach it only as a
//     storeWriter: its lock, its store, and methods to notify, to
//     count a first state and to tell whether the informer runs. SetNamespaces (namespaces.go) and
//     RemoveInformer (remove.go) change it through the informer.
//
// Binary size: SetNamespaces, SetScope and RemoveInformer are their own
// entry points (namespaces.go, remove.go): a program that calls none links
// only what every informer runs anyway, a cancel func and a done channel
// for each reflector and each informer of a Cache (about 5 KB of the
// README's controller). The sharded informer's machinery (the shards' reflectors
// and sink, the fallback mode) is reached only through the informer's
// unexported shards field, an interface that is nil until the first
// [Informer.AddShard] (or AddShard of the informer behind a Cache's
// ObjectInformer, which controller.Shards calls) stores the informer's
// shard set in it. A
// program that never adds a shard links none of it (cmd/mirror's
// TestOptionalPartsNotLinked checks).
package cache
