// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is a sharded informer's shards ([InformerOptions.Sharded]):
// the informer's shards field, a *shardSet made by the first AddShard,
// the shards' reflectors in the filtering mode, and the sink they write
// through; shards_fallback.go is the mode for a server that ignores the
// selector. What handlers are told, and what each mode costs, is in
// "Sharding" in the package doc.

// sharding is what an informer's own paths (Start, the reflectors'
// decoding) and its shard methods call of its shards. The informer's
// shards field holds a *shardSet once the first AddShard made it, nil
// before: only AddShard converts a *shardSet to this interface, so
// programs that never add a shard link none of the machinery (see
// "Binary size" in the package doc).
type sharding interface {
	addLocked(sel kube.ShardSelector) error
	remove(sel kube.ShardSelector) (int, error)
	wait(ctx context.Context, sel kube.ShardSelector) error
	keysLocked(sel kube.ShardSelector) ([]kube.Key, error)
	ofLocked(k kube.Key) (kube.ShardSelector, bool)
	// startLocked starts the reflectors of the shards added before
	// Start; stopLocked stops every reflector when Start's context is
	// done, and stopped waits for them.
	startLocked()
	stopLocked()
	stopped()
	// serverIgnores switches to the fallback mode (shards_fallback.go):
	// a shard's reflector saw the server ignore its selector.
	serverIgnores()
}

// shardSet is a sharded informer's shards. Its fields are guarded by
// informer.mu.
type shardSet struct {
	i *informer
	// byID are the shards added and not removed, by selector string.
	byID map[string]*shard
	// owner maps the key of every stored object to the shard whose
	// reflector put it there (each shard's keys are the keys owner maps
	// to it).
	owner map[kube.Key]*shard
	// readers counts the shards' reflectors and the fallback loop; Start
	// waits for it.
	readers sync.WaitGroup
	// fb is set, for good, once the server is seen to ignore the shard
	// selector (shards_fallback.go).
	fb *fallback
	// filtering is set once a shard's first state showed the server
	// filters; until then probe is the one shard whose reflector runs.
	filtering bool
	probe     *shard
}

// shard is one shard of a sharded informer. Its fields but sel are
// guarded by informer.mu.
type shard struct {
	sel kube.ShardSelector
	// keys are the keys of the stored objects this shard's reflector put
	// there and no other shard has replaced: shardSet.owner maps each of
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
		return fmt.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, ErrNotSharded)
	}
	if sel.Empty() {
		return fmt.Errorf("add shard to the %s informer: the selector is empty", i.gvk.Kind)
	}
	if err := sel.Validate(); err != nil {
		return fmt.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, err)
	}
	i.hub.Lock()
	defer i.hub.Unlock()
	if i.hub.phase == stopped {
		return fmt.Errorf("add shard %s to the %s informer: %w", sel, i.gvk.Kind, ErrStopped)
	}
	if i.shards == nil {
		i.shards = &shardSet{i: i, byID: map[string]*shard{}, owner: map[kube.Key]*shard{}}
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
		return 0, fmt.Errorf("remove shard %s from the %s informer: not added", sel, i.gvk.Kind)
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
		return fmt.Errorf("wait for shard %s of the %s informer: not added", sel, i.gvk.Kind)
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
		return nil, fmt.Errorf("keys of shard %s of the %s informer: not added", sel, i.gvk.Kind)
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

// AddShard adds the shard of sel to a sharded informer (see
// [InformerOptions.Sharded]) and, once it runs, lists and watches the
// shard's objects into the store: one list (or WatchList) and watch of
// the shard alone on a server that filters by shard; on one that does
// not, a read of the kind shared with the shards added about the same
// time. Adding a shard held already changes nothing. Handlers get
// OnAdd(obj, true) for the shard's objects.
func (i *Informer[T]) AddShard(sel kube.ShardSelector) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.AddShard(sel)
}

// RemoveShard stops the list and watch of the shard of sel (on a server
// that filters by shard), waits for it to end, and drops the shard's objects from the store, returning how
// many. Handlers are told nothing: the objects were not deleted on the
// server, and a sharded controller must not reconcile them as deletions.
func (i *Informer[T]) RemoveShard(sel kube.ShardSelector) (int, error) {
	if i == nil || i.inf == nil {
		return 0, errNoInformer
	}
	return i.inf.RemoveShard(sel)
}

// WaitForShard waits until the first state of the shard of sel is in the
// store; it fails when ctx ends first (with a [*NotSyncedError]) or the
// shard is removed.
func (i *Informer[T]) WaitForShard(ctx context.Context, sel kube.ShardSelector) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.WaitForShard(ctx, sel)
}

// ShardKeys returns the keys of the stored objects of the shard of sel,
// in no order. The cost is O(objects of the shard).
func (i *Informer[T]) ShardKeys(sel kube.ShardSelector) ([]kube.Key, error) {
	if i == nil || i.inf == nil {
		return nil, errNoInformer
	}
	return i.inf.ShardKeys(sel)
}

// ShardOf returns the selector of the shard that holds the stored object
// at k, and false when none does.
func (i *Informer[T]) ShardOf(k kube.Key) (kube.ShardSelector, bool) {
	if i == nil || i.inf == nil {
		return kube.ShardSelector{}, false
	}
	return i.inf.ShardOf(k)
}

// addLocked implements [sharding]. Call with informer.mu held, the
// informer not stopped.
func (s *shardSet) addLocked(sel kube.ShardSelector) error {
	i := s.i
	id := sel.String()
	if _, ok := s.byID[id]; ok {
		return nil
	}
	sh := &shard{sel: sel, keys: map[kube.Key]struct{}{}, unsynced: max(len(i.scope()), 1),
		synced: make(chan struct{}), gone: make(chan struct{})}
	s.byID[id] = sh
	switch {
	case i.hub.phase != running:
	case s.fb != nil:
		s.fb.wakeLocked(true)
	default:
		s.runShardsLocked()
	}
	return nil
}

// startLocked implements [sharding].
func (s *shardSet) startLocked() { s.runShardsLocked() }

// runShardsLocked starts the reflectors of the shards that have none,
// in the filtering mode. Until a shard's first state shows that the
// server filters (filtering), one shard's reflector runs alone (the
// probe): were the server to ignore the selector, each would read the
// whole kind. Call with informer.mu held, the informer running.
func (s *shardSet) runShardsLocked() {
	if s.fb != nil {
		return
	}
	for _, sh := range s.byID {
		if sh.cancel != nil {
			continue
		}
		if !s.filtering {
			if s.probe != nil {
				return
			}
			s.probe = sh
		}
		s.runShardLocked(sh)
	}
}

// runShardLocked starts sh's reflectors, one for each namespace of the
// informer (or one for all). Call with informer.mu held, the informer
// running.
func (s *shardSet) runShardLocked(sh *shard) {
	i := s.i
	ctx, cancel := context.WithCancel(context.Background())
	sh.cancel, sh.done = cancel, make(chan struct{})
	namespaces := i.scope()
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	var readers sync.WaitGroup
	for _, ns := range namespaces {
		lw := listWatch{ns: ns, sel: i.selectors(ns), shard: sh.sel, ignores: s.serverIgnores}
		r := i.reflector(lw, shardSink{s: s, sh: sh, ns: ns}, i.log.With("shard", sh.sel.String()))
		readers.Go(func() { r.run(ctx) })
	}
	s.readers.Go(func() {
		readers.Wait()
		close(sh.done)
	})
}

// remove implements [sharding]: see [informer.RemoveShard].
func (s *shardSet) remove(sel kube.ShardSelector) (int, error) {
	i := s.i
	i.hub.Lock()
	sh, ok := s.byID[sel.String()]
	if !ok {
		i.hub.Unlock()
		return 0, fmt.Errorf("remove shard %s from the %s informer: not added", sel, i.gvk.Kind)
	}
	delete(s.byID, sel.String())
	sh.removed = true
	close(sh.gone)
	if s.fb != nil {
		s.fb.wakeLocked(false)
	}
	if s.probe == sh {
		s.probe = nil
		if i.hub.phase == running {
			s.runShardsLocked()
		}
	}
	i.hub.Unlock()
	if sh.cancel != nil {
		sh.cancel()
		<-sh.done
	}
	i.hub.Lock()
	defer i.hub.Unlock()
	n := 0
	for k := range sh.keys {
		i.store.remove(k)
		delete(s.owner, k)
		n++
	}
	clear(sh.keys)
	return n, nil
}

// wait implements [sharding]: see [informer.WaitForShard].
func (s *shardSet) wait(ctx context.Context, sel kube.ShardSelector) error {
	i := s.i
	i.hub.Lock()
	sh, ok := s.byID[sel.String()]
	i.hub.Unlock()
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

// keysLocked implements [sharding]: see [informer.ShardKeys]. Call with
// informer.mu held.
func (s *shardSet) keysLocked(sel kube.ShardSelector) ([]kube.Key, error) {
	sh, ok := s.byID[sel.String()]
	if !ok {
		return nil, fmt.Errorf("keys of shard %s of the %s informer: not added", sel, s.i.gvk.Kind)
	}
	keys := make([]kube.Key, 0, len(sh.keys))
	for k := range sh.keys {
		keys = append(keys, k)
	}
	return keys, nil
}

// ofLocked implements [sharding]: see [informer.ShardOf]. Call with
// informer.mu held.
func (s *shardSet) ofLocked(k kube.Key) (kube.ShardSelector, bool) {
	if sh := s.owner[k]; sh != nil {
		return sh.sel, true
	}
	return kube.ShardSelector{}, false
}

// stopLocked implements [sharding]: it cancels every shard's reflector
// and the fallback mode's, when Start's context is done. Call with
// informer.mu held; then call stopped.
func (s *shardSet) stopLocked() {
	if s.fb != nil {
		s.fb.cancel()
	}
	for _, sh := range s.byID {
		if sh.cancel != nil {
			sh.cancel()
		}
	}
}

// stopped implements [sharding]: it waits for the reflectors stopLocked
// stopped.
func (s *shardSet) stopped() { s.readers.Wait() }

// ownLocked records that sh put the object at k, taking k from the shard
// that had it. Call with informer.mu held.
func (s *shardSet) ownLocked(k kube.Key, sh *shard) {
	if o := s.owner[k]; o != nil && o != sh {
		delete(o.keys, k)
	}
	s.owner[k] = sh
	sh.keys[k] = struct{}{}
}

// disownLocked forgets who put the object at k. Call with informer.mu
// held.
func (s *shardSet) disownLocked(k kube.Key) {
	if o := s.owner[k]; o != nil {
		delete(o.keys, k)
		delete(s.owner, k)
	}
}

// shardSink is a sharded informer's [sink] for the reflector of one
// shard (in namespace ns, or "" for all): it writes the shard's objects
// alone, and nothing once the shard is removed.
type shardSink struct {
	s  *shardSet
	sh *shard
	ns string
}

func (s shardSink) newState() *state { return newState(s.s.i.store.codec) }

// apply implements [sink] as [nsSink.apply] does, for the shard's
// objects: a DELETED event removes the object only if this shard put it
// there (the key may have moved to another shard's new object).
func (s shardSink) apply(typ kube.EventType, obj kube.Object, size int32) {
	s.s.i.hub.Lock()
	defer s.s.i.hub.Unlock()
	if !s.sh.removed {
		s.s.applyLocked(s.sh, typ, obj, size)
	}
}

// applyLocked applies one watch event of an object of shard sh. Call
// with informer.mu held.
func (s *shardSet) applyLocked(sh *shard, typ kube.EventType, obj kube.Object, size int32) {
	i := s.i
	meta := obj.GetObjectMeta()
	k := meta.Key()
	switch typ {
	case kube.Added, kube.Modified:
		old, ok := i.store.get(k)
		if ok && s.owner[k] == sh && old.GetObjectMeta().ResourceVersion == meta.ResourceVersion {
			return
		}
		i.store.put(obj, size)
		s.ownLocked(k, sh)
		switch {
		case !ok:
			i.hub.notifyLocked(notification{kind: notifyAdd, obj: obj})
		case old.GetObjectMeta().UID != meta.UID:
			i.hub.notifyLocked(notification{kind: notifyDelete, obj: old, flag: true})
			i.hub.notifyLocked(notification{kind: notifyAdd, obj: obj})
		default:
			i.hub.notifyLocked(notification{kind: notifyUpdate, old: old, obj: obj})
		}
	case kube.Deleted:
		if s.owner[k] != sh {
			return
		}
		i.store.remove(k)
		s.disownLocked(k)
		i.hub.notifyLocked(notification{kind: notifyDelete, obj: obj})
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
	set, sh := s.s, s.sh
	i := set.i
	i.hub.Lock()
	defer i.hub.Unlock()
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
			if k := (kube.Key{Namespace: ns, Name: name}); set.owner[k] != nil && set.owner[k] != sh {
				out = append(out, k)
			}
		}
	}
	prev := i.store.swapKeys(out, next)
	for _, k := range out {
		set.disownLocked(k)
	}
	for ns, names := range next.objects {
		for name := range names {
			set.ownLocked(kube.Key{Namespace: ns, Name: name}, sh)
		}
	}
	i.hub.notifyDiffLocked(prev, next, initial)
	if initial {
		if sh.unsynced--; sh.unsynced == 0 {
			sh.markSyncedLocked()
		}
		if sh == set.probe && sh.unsynced == 0 && i.hub.phase == running {
			set.probe, set.filtering = nil, true
			set.runShardsLocked()
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
