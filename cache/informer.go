// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"slices"
	"sync"

	"github.com/kubeloop/kubeloop/internal/wait"
	"github.com/kubeloop/kubeloop/kube"
)

// informer is the kind-agnostic engine behind [Informer] and the [Cache]:
// reflectors (one per namespace, or one) that keep a store equal to the
// server's state, and the fan-out of changes to handlers. It implements
// [ObjectInformer]. It owns three parts, which know nothing of it: its
// source (decode.go), with which its reflectors are made and read; its
// store (store.go), which reads use directly; and its hub (hub.go), the
// one place where the store changes, which each reflector's sink
// (sink.go, shards.go) writes through as a [storeWriter]. Its methods
// are in this file, but for SetNamespaces (namespaces.go) and the
// helpers of reads of own writes (fresh.go, freshscope.go).
type informer struct {
	// source is what the informer's reflectors share: its kind,
	// client, log and the reflectors' counters.
	source
	// opts never change, but for opts.NamespaceSelectors, which SetScope
	// replaces under the hub's lock (the reflectors copy their
	// namespace's when made).
	opts InformerOptions
	// store is the hub's store, for reads.
	store *store
	// hub is where the store changes: the handlers, the lock that orders
	// changes with notifications, and the sync.
	hub *hub

	// runs are the running reflectors of an informer that is not sharded,
	// by namespace ("" for all): one for each namespace of the scope, or
	// one for all. Start makes them and SetNamespaces changes them, under
	// the hub's lock; readers counts their goroutines, which Start waits
	// for.
	runs    []*nsRun
	readers sync.WaitGroup

	// fresh counts the waits for own writes (fresh.go).
	fresh freshStats

	// shards holds a sharded informer's shards and runs their reflectors
	// (shards.go); nil until the first AddShard, and for good in an
	// informer not made Sharded. The field is set under the hub's lock
	// and never changes after; the shard set's state is guarded by the
	// same lock.
	shards sharding
}

// testHookCompact makes every informer compact; the package's tests set it
// to run a second time.
var testHookCompact = false

func newInformer(client *kube.Client, gvk kube.GroupVersionKind, newObj func() kube.Object, opts InformerOptions) (*informer, error) {
	if client == nil {
		return nil, errors.New("new informer: client is nil")
	}
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, errs.Errorf("new informer: kind %q is incomplete: set InformerOptions.Kind", gvk)
	}
	opts, err := opts.normalize()
	if err != nil {
		return nil, errs.Errorf("new informer: %w", err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	_, meta := newObj().(*kube.PartialObjectMetadata)
	var c *codec
	if opts.Compact || testHookCompact {
		c = newCodec(gvk, newObj)
	}
	i := &informer{
		source: source{
			client:            client,
			gvk:               gvk,
			log:               log.With("kind", gvk.Kind),
			newObj:            newObj,
			metadataOnly:      meta,
			keepManagedFields: opts.KeepManagedFields,
			transform:         opts.Transform,
			pageSize:          opts.PageSize,
			watchList:         opts.WatchList,
			failed:            opts.WatchErrorHandler,
		},
		opts:  opts,
		store: newStore(c),
	}
	i.store.scope = opts.Namespaces
	i.hub = newHub(i.store)
	return i, nil
}

// scope returns the namespaces the informer is limited to, empty for
// all: InformerOptions.Namespaces until SetNamespaces changes them. The
// caller must not modify the slice.
func (i *informer) scope() []string {
	i.store.mu.RLock()
	scope := i.store.scope
	i.store.mu.RUnlock()
	return scope
}

// runLocked starts the reflector of namespace ns ("" for all), counted in
// the informer's sync unless it has synced. Call with the hub's lock
// held, the informer running.
func (i *informer) runLocked(ns string) *nsRun {
	ctx, cancel := context.WithCancel(context.Background())
	run := &nsRun{ns: ns, sel: i.selectors(ns), cancel: cancel, done: make(chan struct{}), counted: i.hub.countLocked()}
	i.runs = append(i.runs, run)
	i.readers.Go(func() {
		lw := listWatch{ns: ns, sel: run.sel, shard: i.opts.ShardSelector}
		i.reflector(lw, nsSink{w: i.hub, run: run}, i.log).run(ctx)
		close(run.done)
	})
	return run
}

// Kind implements [ObjectInformer].
func (i *informer) Kind() kube.GroupVersionKind { return i.gvk }

// Start runs the reflector, the resyncs and the handlers' deliveries until
// ctx is done, then waits for all of them to end. It returns an error only
// if the informer was started before.
func (i *informer) Start(ctx context.Context) error {
	h := i.hub
	h.Lock()
	if h.phase != idle {
		h.Unlock()
		return errs.Errorf("start informer for %s: started before", i.gvk.Kind)
	}
	h.startLocked()
	if i.opts.Sharded {
		if i.shards != nil { // shards were added before Start
			i.shards.startLocked()
		}
		h.markSyncedLocked() // each shard has its own sync
	} else {
		i.runs = nil // counted by runLocked, as SetNamespaces may have changed the scope
		for _, ns := range i.scope() {
			i.runLocked(ns)
		}
		if len(i.runs) == 0 {
			i.runLocked("")
		}
	}
	h.Unlock()

	var wg sync.WaitGroup
	wg.Go(func() { i.resyncLoop(ctx) })
	wg.Wait()    // it ends when ctx is done
	<-ctx.Done() // an informer without resyncs runs none

	h.Lock()
	h.phase = stopped
	for _, run := range i.runs {
		run.cancel()
	}
	shards := i.shards
	if shards != nil {
		shards.stopLocked()
	}
	h.Unlock()
	i.readers.Wait()
	if shards != nil {
		shards.stopped()
	}
	h.stop()
	return nil
}

// AddEventHandler implements [ObjectInformer]. A handler added to an informer that
// holds objects first gets an OnAdd(obj, true) for each, in key order. The
// cost is O(n log n) for n cached objects, under the lock that orders
// changes.
func (i *informer) AddEventHandler(h Handler[kube.Object]) (*Registration, error) {
	if h == nil {
		return nil, errors.New("add event handler: handler is nil")
	}
	r, err := i.hub.addHandler(h)
	if err != nil {
		return nil, errs.Errorf("add event handler for %s: %w", i.gvk.Kind, err)
	}
	return r, nil
}

// RemoveEventHandler implements [ObjectInformer]. Notifications not yet delivered
// are dropped; a call of the handler in progress is not waited for.
func (i *informer) RemoveEventHandler(r *Registration) error {
	if !i.hub.removeHandler(r) {
		return errs.Errorf("remove event handler for %s: not registered", i.gvk.Kind)
	}
	return nil
}

// HasSynced implements [ObjectInformer]: the first state is in the store, and the
// handlers there were at that time have been given all of it.
func (i *informer) HasSynced() bool { return i.hub.hasSynced() }

// WaitForSync implements [ObjectInformer]. When ctx ends first the error is a
// [*NotSyncedError] naming the kind and the last list or watch failure.
func (i *informer) WaitForSync(ctx context.Context) error {
	if err := i.hub.waitForSync(ctx); err != nil {
		return i.notSynced(err)
	}
	return nil
}

// resyncLoop gives every handler OnUpdate(obj, obj, true) for every object, in
// key order, every resync period (±10%), once the informer has synced.
func (i *informer) resyncLoop(ctx context.Context) {
	if i.opts.SyncPeriod < 0 {
		return
	}
	select {
	case <-i.hub.synced:
	case <-ctx.Done():
		return
	}
	for wait.Sleep(ctx, resyncDelay(i.opts.SyncPeriod, jitter())) {
		i.hub.resync()
	}
}

// stats returns the informer's counters; see [Stats].
func (i *informer) stats() Stats {
	objects, bytes := i.store.size()
	st := Stats{
		Kind:                i.gvk,
		Namespaces:          i.scope(),
		Objects:             objects,
		Bytes:               bytes,
		Synced:              i.HasSynced(),
		ListRequests:        i.reads.lists.Load(),
		WatchRequests:       i.reads.watches.Load(),
		Relists:             i.reads.relists.Load(),
		Events:              i.reads.events.Load(),
		ShardDropped:        i.reads.shardDropped.Load(),
		LastResourceVersion: i.progress.lastRead(),
		Fresh:               i.fresh.snapshot(),
	}
	regs := i.hub.handlers()
	st.Handlers = len(regs)
	for _, r := range regs {
		q, p := r.pending()
		st.Queued += q
		st.PeakQueued = max(st.PeakQueued, p)
	}
	return st
}

// list calls fn for each stored object opts select; see [ReadOnly.List].
func (i *informer) list(opts kube.ListOptions, fn func(kube.Object)) error {
	if !i.allows(opts.Namespace) {
		return &NotAllowedError{Kind: i.gvk, Namespace: opts.Namespace,
			Reason: fmt.Sprintf("the cache holds namespaces %q only", i.scope())}
	}
	q, err := i.store.compile(opts)
	if err != nil {
		return errs.Errorf("list %s from the cache: %w", i.gvk.Kind, err)
	}
	i.store.run(q, fn)
	return nil
}

// allows reports whether namespace ns (or all, for "") is in the
// informer's scope.
func (i *informer) allows(ns string) bool {
	scope := i.scope()
	return ns == "" || len(scope) == 0 || slices.Contains(scope, ns)
}

// selectors returns the selectors of namespace ns's reads: its own
// (InformerOptions.NamespaceSelectors, changed by SetScope), else the
// informer's. Call with the hub's lock held, or on a sharded informer,
// whose selectors never change.
func (i *informer) selectors(ns string) Selectors {
	if sel, ok := i.opts.NamespaceSelectors[ns]; ok {
		return sel
	}
	return Selectors{Label: i.opts.LabelSelector, Field: i.opts.FieldSelector}
}

// ErrNotSharded is returned by the shard methods of an informer made
// without [InformerOptions.Sharded].
var ErrNotSharded = errors.New("informer is not sharded")

// AddShard adds the shard of sel and, if the informer runs, starts its
// reflectors: one list (or WatchList) and watch of the shard's objects,
// or one for each namespace of an informer limited to namespaces.
// Adding a shard held already changes nothing. The first call makes the
// informer's shard set.
func (i *informer) AddShard(sel kube.ShardSelector) error {
	if !i.opts.Sharded {
		return errs.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, ErrNotSharded)
	}
	if sel.Empty() {
		return errs.Errorf("add shard to the %s informer: the selector is empty", i.gvk.Kind)
	}
	if err := sel.Validate(); err != nil {
		return errs.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, err)
	}
	i.hub.Lock()
	defer i.hub.Unlock()
	if i.hub.phase == stopped {
		return errs.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, ErrStopped)
	}
	if i.shards == nil {
		i.shards = newShardSet(i.hub, &i.source, i.scopeReads(), i.opts.ShardsPending)
	}
	return i.shards.addLocked(sel)
}

// RemoveShard stops the reflectors of the shard of sel, waits for them
// to return, and drops the shard's objects from the store without
// telling the handlers (see "Sharding" in the package doc). It returns
// how many objects it dropped. The cost is O(objects of the shard).
func (i *informer) RemoveShard(sel kube.ShardSelector) (int, error) {
	i.hub.Lock()
	s := i.shards
	i.hub.Unlock()
	if s == nil {
		return 0, errs.Errorf("remove shard %s from the %s informer: not added", sel, i.gvk.Kind)
	}
	return s.remove(sel)
}

// WaitForShard waits until the first state of the shard of sel is in the
// store, ctx ends, or the shard is removed.
func (i *informer) WaitForShard(ctx context.Context, sel kube.ShardSelector) error {
	i.hub.Lock()
	s := i.shards
	i.hub.Unlock()
	if s == nil {
		return errs.Errorf("wait for shard %s of the %s informer: not added", sel, i.gvk.Kind)
	}
	return s.wait(ctx, sel)
}

// ShardKeys returns the keys of the stored objects of the shard of sel,
// in no order; the caller owns the slice. The cost is O(objects of the
// shard).
func (i *informer) ShardKeys(sel kube.ShardSelector) ([]kube.Key, error) {
	i.hub.Lock()
	defer i.hub.Unlock()
	if i.shards == nil {
		return nil, errs.Errorf("keys of shard %s of the %s informer: not added", sel, i.gvk.Kind)
	}
	return i.shards.keysLocked(sel)
}

// ShardOf returns the selector of the shard whose reflector stored the
// object at k, and false when none holds it. Cost: O(1).
func (i *informer) ShardOf(k kube.Key) (kube.ShardSelector, bool) {
	i.hub.Lock()
	defer i.hub.Unlock()
	if i.shards == nil {
		return kube.ShardSelector{}, false
	}
	return i.shards.ofLocked(k)
}

// scopeReads returns the lists and watches of the informer's namespaces (one
// for all when it has none), each with its selectors: what a shard set
// reads for each shard. Call with the hub's lock held.
func (i *informer) scopeReads() []listWatch {
	namespaces := i.scope()
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	out := make([]listWatch, len(namespaces))
	for n, ns := range namespaces {
		out[n] = listWatch{ns: ns, sel: i.selectors(ns)}
	}
	return out
}
