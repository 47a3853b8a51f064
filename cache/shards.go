// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is a sharded informer's set of shards (see
// [InformerOptions.Sharded]). On a server that filters by shard, each
// shard added has a reflector of its own (one for each namespace of
// [InformerOptions.Namespaces], when set) that lists and watches the
// shard's objects alone and writes them into the informer's one store
// through a shardSink, which replaces only the shard's objects (of its
// namespace) on a relist; removing a shard stops its reflectors and drops
// its objects. Until a shard's first state shows the server filters, one
// shard's reflector runs alone (the probe). Once a reflector sees the
// server ignore the selector, the informer reads the kind once for all
// its shards instead (shards_fallback.go), with the same guarantees.
//
// What handlers are told:
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

// shard is one shard of a sharded informer. Its fields but sel are
// guarded by informer.mu.
type shard struct {
	sel kube.ShardSelector
	// keys are the keys of the stored objects this shard's reflector put
	// there and no other shard has replaced: informer.owner maps each of
	// them to this shard.
	keys map[kube.Key]struct{}
	// unsynced counts the shard's reflectors (one per namespace, or one)
	// that have not stored their first state; synced is closed when it
	// reaches zero: the shard's first state is in the store.
	unsynced int
	synced   chan struct{}
	// removed is set by RemoveShard; the shard's sink changes nothing
	// after it, and gone is closed.
	removed bool
	gone    chan struct{}
	// cancel stops the reflectors and done is closed when they have
	// returned; both are nil until the informer runs them.
	cancel context.CancelFunc
	done   chan struct{}
}

// shardEngine is the entry points of the shards' machinery that the
// informer's own paths call (see informer.engine).
type shardEngine struct {
	run     func() // runShardsLocked: start the reflectors of shards that have none
	ignored func() // serverIgnoresShards: switch to the fallback mode
}

// ErrNotSharded is returned by the shard methods of an informer made
// without [InformerOptions.Sharded].
var ErrNotSharded = errors.New("informer is not sharded")

// AddShard adds the shard of sel and, if the informer runs, starts its
// reflectors: one list (or WatchList) and watch of the shard's objects,
// or one for each namespace of an informer limited to namespaces.
// Adding a shard held already changes nothing.
func (i *informer) AddShard(sel kube.ShardSelector) error {
	if !i.opts.Sharded {
		return fmt.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, ErrNotSharded)
	}
	if sel.Empty() {
		return fmt.Errorf("add shard to the %s informer: the selector is empty", i.gvk.Kind)
	}
	if err := sel.Validate(); err != nil {
		return fmt.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, err)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.phase == stopped {
		return fmt.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, ErrStopped)
	}
	id := sel.String()
	if _, ok := i.shards[id]; ok {
		return nil
	}
	sh := &shard{sel: sel, keys: map[kube.Key]struct{}{}, unsynced: max(len(i.opts.Namespaces), 1),
		synced: make(chan struct{}), gone: make(chan struct{})}
	i.shards[id] = sh
	if i.engine == nil {
		i.engine = &shardEngine{run: i.runShardsLocked, ignored: i.serverIgnoresShards}
	}
	switch {
	case i.phase != running:
	case i.fb != nil:
		i.fb.wakeLocked(true)
	default:
		i.runShardsLocked()
	}
	return nil
}

// runShardsLocked starts the reflectors of the shards that have none,
// in the filtering mode. Until a shard's first state shows that the
// server filters (i.filtering), one shard's reflector runs alone (the
// probe): were the server to ignore the selector, each would read the
// whole kind. Call with i.mu held, the informer running.
func (i *informer) runShardsLocked() {
	if i.fb != nil {
		return
	}
	for _, sh := range i.shards {
		if sh.cancel != nil {
			continue
		}
		if !i.filtering {
			if i.probe != nil {
				return
			}
			i.probe = sh
		}
		i.runShardLocked(sh)
	}
}

// runShardLocked starts sh's reflectors, one for each namespace of the
// informer (or one for all). Call with i.mu held, the informer running.
func (i *informer) runShardLocked(sh *shard) {
	ctx, cancel := context.WithCancel(context.Background())
	sh.cancel, sh.done = cancel, make(chan struct{})
	namespaces := i.opts.Namespaces
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	var readers sync.WaitGroup
	for _, ns := range namespaces {
		r := &reflector{
			lw:        listWatch{i: i, ns: ns, shard: sh.sel},
			sink:      shardSink{i: i, sh: sh, ns: ns},
			log:       i.log.With("shard", sh.sel.String()),
			stats:     &i.reads,
			pageSize:  i.opts.PageSize,
			watchList: !i.opts.DisableWatchList,
			progress:  &i.progress,
			scope:     ns,
		}
		readers.Go(func() { r.run(ctx) })
	}
	i.shardReaders.Go(func() {
		readers.Wait()
		close(sh.done)
	})
}

// RemoveShard stops the reflector of the shard of sel, waits for it to
// return, and drops the shard's objects from the store without telling
// the handlers (see the top of this file). It returns how many objects
// it dropped. The cost is O(objects of the shard).
func (i *informer) RemoveShard(sel kube.ShardSelector) (int, error) {
	i.mu.Lock()
	sh, ok := i.shards[sel.String()]
	if !ok {
		i.mu.Unlock()
		return 0, fmt.Errorf("remove shard %s from the %s informer: not added", sel, i.gvk.Kind)
	}
	delete(i.shards, sel.String())
	sh.removed = true
	close(sh.gone)
	if i.fb != nil {
		i.fb.wakeLocked(false)
	}
	if i.probe == sh {
		i.probe = nil
		if i.phase == running {
			i.runShardsLocked()
		}
	}
	i.mu.Unlock()
	if sh.cancel != nil {
		sh.cancel()
		<-sh.done
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	n := 0
	for k := range sh.keys {
		i.store.remove(k)
		delete(i.owner, k)
		n++
	}
	clear(sh.keys)
	return n, nil
}

// WaitForShard waits until the first state of the shard of sel is in the
// store, ctx ends, or the shard is removed.
func (i *informer) WaitForShard(ctx context.Context, sel kube.ShardSelector) error {
	i.mu.Lock()
	sh, ok := i.shards[sel.String()]
	i.mu.Unlock()
	if !ok {
		return fmt.Errorf("wait for shard %s of the %s informer: not added", sel, i.gvk.Kind)
	}
	select {
	case <-sh.synced:
		return nil
	case <-sh.gone:
		return fmt.Errorf("wait for shard %s of the %s informer: removed", sel, i.gvk.Kind)
	case <-ctx.Done():
		return i.notSynced(ctx.Err())
	}
}

// ShardKeys returns the keys of the stored objects of the shard of sel,
// in no order; the caller owns the slice. The cost is O(objects of the
// shard).
func (i *informer) ShardKeys(sel kube.ShardSelector) ([]kube.Key, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	sh, ok := i.shards[sel.String()]
	if !ok {
		return nil, fmt.Errorf("keys of shard %s of the %s informer: not added", sel, i.gvk.Kind)
	}
	keys := make([]kube.Key, 0, len(sh.keys))
	for k := range sh.keys {
		keys = append(keys, k)
	}
	return keys, nil
}

// ShardOf returns the selector of the shard whose reflector stored the
// object at k, and false when none holds it. Cost: O(1).
func (i *informer) ShardOf(k kube.Key) (kube.ShardSelector, bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if sh := i.owner[k]; sh != nil {
		return sh.sel, true
	}
	return kube.ShardSelector{}, false
}

// stopShardsLocked cancels every shard's reflector and the fallback
// mode's, when Start's context is done. Call with i.mu held; then wait
// for i.shardReaders.
func (i *informer) stopShardsLocked() {
	if i.fb != nil {
		i.fb.cancel()
	}
	for _, sh := range i.shards {
		if sh.cancel != nil {
			sh.cancel()
		}
	}
}

// ownLocked records that sh put the object at k, taking k from the shard
// that had it. Call with i.mu held.
func (i *informer) ownLocked(k kube.Key, sh *shard) {
	if o := i.owner[k]; o != nil && o != sh {
		delete(o.keys, k)
	}
	i.owner[k] = sh
	sh.keys[k] = struct{}{}
}

// disownLocked forgets who put the object at k. Call with i.mu held.
func (i *informer) disownLocked(k kube.Key) {
	if o := i.owner[k]; o != nil {
		delete(o.keys, k)
		delete(i.owner, k)
	}
}

// shardSink is a sharded informer's [sink] for the reflector of one
// shard (in namespace ns, or "" for all): it writes the shard's objects
// alone, and nothing once the shard is removed.
type shardSink struct {
	i  *informer
	sh *shard
	ns string
}

func (s shardSink) newState() *state { return newState(s.i.store.codec) }

// apply implements [sink] as [nsSink.apply] does, for the shard's
// objects: a DELETED event removes the object only if this shard put it
// there (the key may have moved to another shard's new object).
func (s shardSink) apply(typ kube.EventType, obj kube.Object, size int32) {
	s.i.mu.Lock()
	defer s.i.mu.Unlock()
	if !s.sh.removed {
		s.i.applyShardLocked(s.sh, typ, obj, size)
	}
}

// applyShardLocked applies one watch event of an object of shard sh.
// Call with i.mu held.
func (i *informer) applyShardLocked(sh *shard, typ kube.EventType, obj kube.Object, size int32) {
	meta := obj.GetObjectMeta()
	k := meta.Key()
	switch typ {
	case kube.Added, kube.Modified:
		old, ok := i.store.get(k)
		if ok && i.owner[k] == sh && old.GetObjectMeta().ResourceVersion == meta.ResourceVersion {
			return
		}
		i.store.put(obj, size)
		i.ownLocked(k, sh)
		switch {
		case !ok:
			i.notifyLocked(notification{kind: notifyAdd, obj: obj})
		case old.GetObjectMeta().UID != meta.UID:
			i.notifyLocked(notification{kind: notifyDelete, obj: old, flag: true})
			i.notifyLocked(notification{kind: notifyAdd, obj: obj})
		default:
			i.notifyLocked(notification{kind: notifyUpdate, old: old, obj: obj})
		}
	case kube.Deleted:
		if i.owner[k] != sh {
			return
		}
		i.store.remove(k)
		i.disownLocked(k)
		i.notifyLocked(notification{kind: notifyDelete, obj: obj})
	}
}

// replace implements [sink]: it swaps the shard's objects (of its
// namespace, for an informer limited to namespaces) for next's (and
// takes over the keys of next held by other shards), as one change
// readers see whole, and tells the handlers what changed as
// [nsSink.replace] does. The shard is synced once each of its reflectors
// has stored its first state. The cost under the lock is O(old + new objects of the shard ·
// index funcs), and the sort of their keys.
func (s shardSink) replace(next *state, initial bool) {
	i, sh := s.i, s.sh
	i.mu.Lock()
	defer i.mu.Unlock()
	if sh.removed {
		return
	}
	out := make([]kube.Key, 0, len(sh.keys))
	for k := range sh.keys {
		if s.ns == "" || k.Namespace == s.ns {
			out = append(out, k)
		}
	}
	for ns, names := range next.objects {
		for name := range names {
			if k := (kube.Key{Namespace: ns, Name: name}); i.owner[k] != nil && i.owner[k] != sh {
				out = append(out, k)
			}
		}
	}
	prev := i.store.swapKeys(out, next)
	for _, k := range out {
		i.disownLocked(k)
	}
	for ns, names := range next.objects {
		for name := range names {
			i.ownLocked(kube.Key{Namespace: ns, Name: name}, sh)
		}
	}
	i.notifyDiffLocked(prev, next, initial)
	if initial {
		if sh.unsynced--; sh.unsynced == 0 {
			sh.markSyncedLocked()
		}
		if sh == i.probe && sh.unsynced == 0 && i.phase == running {
			i.probe, i.filtering = nil, true
			i.runShardsLocked()
		}
	}
}

// isSyncedLocked reports whether the shard's first state is stored. Call
// with informer.mu held.
func (sh *shard) isSyncedLocked() bool {
	select {
	case <-sh.synced:
		return true
	default:
		return false
	}
}

// markSyncedLocked closes sh.synced, once. Call with informer.mu held.
func (sh *shard) markSyncedLocked() {
	if !sh.isSyncedLocked() {
		close(sh.synced)
	}
}
