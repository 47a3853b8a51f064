// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"github.com/kubeloop/kubeloop/internal/errs"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is a sharded informer's shards ([InformerOptions.Sharded]):
// the informer's shards field, a *shardSet made by the first AddShard,
// the shards' reflectors in the filtering mode, and the sink they write
// through; shards_fallback.go is the mode for a server that ignores the
// selector. What handlers are told, and what each mode costs, is in
// "Sharding" in the package doc.

// sharding is what an informer's own paths (Start) and its shard
// methods (informer.go) call of its shards. The informer's
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
}

// shardSet is a sharded informer's shards. It knows the informer as a
// [storeWriter] and a [source], nothing more. Its fields but the first
// four and readers are guarded by the storeWriter's lock.
type shardSet struct {
	// w is the informer's hub, src makes the shards' reflectors, and
	// reads are the lists and watches of the informer's namespaces (one
	// for all when it has none), with their selectors: the shard set
	// adds the shard's selector. pending is
	// [InformerOptions.ShardsPending]. All four are fixed.
	w       storeWriter
	src     *source
	reads   []listWatch
	pending func() bool
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
// guarded by the hub's lock.
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

// newShardSet returns the shard set of a sharded informer: see the
// fields of [shardSet].
func newShardSet(w storeWriter, src *source, reads []listWatch, pending func() bool) *shardSet {
	return &shardSet{w: w, src: src, reads: reads, pending: pending, byID: map[string]*shard{}, owner: map[kube.Key]*shard{}}
}

// addLocked implements [sharding]. Call with the hub's lock held, the
// informer not stopped.
func (s *shardSet) addLocked(sel kube.ShardSelector) error {
	id := sel.String()
	if _, ok := s.byID[id]; ok {
		return nil
	}
	sh := &shard{sel: sel, keys: map[kube.Key]struct{}{}, unsynced: len(s.reads),
		synced: make(chan struct{}), gone: make(chan struct{})}
	s.byID[id] = sh
	switch {
	case !s.w.runningLocked():
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
// whole kind. Call with the hub's lock held, the informer running.
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
// informer (or one for all). Call with the hub's lock held, the informer
// running.
func (s *shardSet) runShardLocked(sh *shard) {
	ctx, cancel := context.WithCancel(context.Background())
	sh.cancel, sh.done = cancel, make(chan struct{})
	log := s.src.log.With("shard", sh.sel.String())
	var readers sync.WaitGroup
	for _, lw := range s.reads {
		lw.shard, lw.ignores = sh.sel, s.serverIgnores
		r := s.src.reflector(lw, shardSink{s: s, sh: sh, ns: lw.ns}, log)
		readers.Go(func() { r.run(ctx) })
	}
	s.readers.Go(func() {
		readers.Wait()
		close(sh.done)
	})
}

// remove implements [sharding]: see [informer.RemoveShard].
func (s *shardSet) remove(sel kube.ShardSelector) (int, error) {
	s.w.Lock()
	sh, ok := s.byID[sel.String()]
	if !ok {
		s.w.Unlock()
		return 0, errs.Errorf("remove shard %s from the %s informer: not added", sel, s.src.gvk.Kind)
	}
	delete(s.byID, sel.String())
	sh.removed = true
	close(sh.gone)
	if s.fb != nil {
		s.fb.wakeLocked(false)
	}
	if s.probe == sh {
		s.probe = nil
		if s.w.runningLocked() {
			s.runShardsLocked()
		}
	}
	s.w.Unlock()
	if sh.cancel != nil {
		sh.cancel()
		<-sh.done
	}
	s.w.Lock()
	defer s.w.Unlock()
	n := 0
	for k := range sh.keys {
		s.w.objects().remove(k)
		delete(s.owner, k)
		n++
	}
	clear(sh.keys)
	return n, nil
}

// wait implements [sharding]: see [informer.WaitForShard].
func (s *shardSet) wait(ctx context.Context, sel kube.ShardSelector) error {
	s.w.Lock()
	sh, ok := s.byID[sel.String()]
	s.w.Unlock()
	if !ok {
		return errs.Errorf("wait for shard %s of the %s informer: not added", sel, s.src.gvk.Kind)
	}
	select {
	case <-sh.synced:
		return nil
	case <-sh.gone:
		return errs.Errorf("wait for shard %s of the %s informer: removed", sel, s.src.gvk.Kind)
	case <-ctx.Done():
		return s.src.notSynced(ctx.Err())
	}
}

// keysLocked implements [sharding]: see [informer.ShardKeys]. Call with
// the hub's lock held.
func (s *shardSet) keysLocked(sel kube.ShardSelector) ([]kube.Key, error) {
	sh, ok := s.byID[sel.String()]
	if !ok {
		return nil, errs.Errorf("keys of shard %s of the %s informer: not added", sel, s.src.gvk.Kind)
	}
	keys := make([]kube.Key, 0, len(sh.keys))
	for k := range sh.keys {
		keys = append(keys, k)
	}
	return keys, nil
}

// ofLocked implements [sharding]: see [informer.ShardOf]. Call with
// the hub's lock held.
func (s *shardSet) ofLocked(k kube.Key) (kube.ShardSelector, bool) {
	if sh := s.owner[k]; sh != nil {
		return sh.sel, true
	}
	return kube.ShardSelector{}, false
}

// stopLocked implements [sharding]: it cancels every shard's reflector
// and the fallback mode's, when Start's context is done. Call with
// the hub's lock held; then call stopped.
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
// that had it. Call with the hub's lock held.
func (s *shardSet) ownLocked(k kube.Key, sh *shard) {
	if o := s.owner[k]; o != nil && o != sh {
		delete(o.keys, k)
	}
	s.owner[k] = sh
	sh.keys[k] = struct{}{}
}

// disownLocked forgets who put the object at k. Call with the hub's lock
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

func (s shardSink) newState() *state { return newState(s.s.w.objects().codec) }

// apply implements [sink] as [nsSink.apply] does, for the shard's
// objects: a DELETED event removes the object only if this shard put it
// there (the key may have moved to another shard's new object).
func (s shardSink) apply(typ kube.EventType, obj kube.Object, size int32) {
	s.s.w.Lock()
	defer s.s.w.Unlock()
	if !s.sh.removed {
		s.s.applyLocked(s.sh, typ, obj, size)
	}
}

// applyLocked applies one watch event of an object of shard sh. Call
// with the hub's lock held.
func (s *shardSet) applyLocked(sh *shard, typ kube.EventType, obj kube.Object, size int32) {
	st := s.w.objects()
	meta := obj.GetObjectMeta()
	k := meta.Key()
	switch typ {
	case kube.Added, kube.Modified:
		old, ok := st.get(k)
		if ok && s.owner[k] == sh && old.GetObjectMeta().ResourceVersion == meta.ResourceVersion {
			return
		}
		st.put(obj, size)
		s.ownLocked(k, sh)
		switch {
		case !ok:
			s.w.notifyLocked(notification{kind: notifyAdd, obj: obj})
		case old.GetObjectMeta().UID != meta.UID:
			s.w.notifyLocked(notification{kind: notifyDelete, obj: old, flag: true})
			s.w.notifyLocked(notification{kind: notifyAdd, obj: obj})
		default:
			s.w.notifyLocked(notification{kind: notifyUpdate, old: old, obj: obj})
		}
	case kube.Deleted:
		if s.owner[k] != sh {
			return
		}
		st.remove(k)
		s.disownLocked(k)
		s.w.notifyLocked(notification{kind: notifyDelete, obj: obj})
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
	set.w.Lock()
	defer set.w.Unlock()
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
	prev := set.w.objects().swapKeys(out, next)
	for _, k := range out {
		set.disownLocked(k)
	}
	for ns, names := range next.objects {
		for name := range names {
			set.ownLocked(kube.Key{Namespace: ns, Name: name}, sh)
		}
	}
	set.w.notifyDiffLocked(prev, next, initial)
	if initial {
		if sh.unsynced--; sh.unsynced == 0 {
			sh.markSyncedLocked()
		}
		if sh == set.probe && sh.unsynced == 0 && set.w.runningLocked() {
			set.probe, set.filtering = nil, true
			set.runShardsLocked()
		}
	}
}

// isSyncedLocked reports whether the shard's first state is stored. Call
// with the hub's lock held.
func (sh *shard) isSyncedLocked() bool {
	select {
	case <-sh.synced:
		return true
	default:
		return false
	}
}

// markSyncedLocked closes sh.synced, once. Call with the hub's lock held.
func (sh *shard) markSyncedLocked() {
	if !sh.isSyncedLocked() {
		close(sh.synced)
	}
}
