// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is a sharded informer's fallback mode: what it does once the
// server is seen to ignore the shard selector (the ShardedListAndWatch
// gate off, or a server older than 1.36). Then a reflector per shard
// would read and watch every object of the kind once per shard, and drop
// the others; instead the informer reads the kind once.
//
// The server is seen to ignore the selector when a shard's reflector
// receives an object outside its shard, or a list answers without
// metadata.shardInfo (the initial-events-end bookmark of a WatchList
// carries none even from a filtering server, so it is not a sign). The
// informer then stops every shard's reflector and runs generations, one
// at a time, each one reflector (one per namespace of
// [InformerOptions.Namespaces], when set) that lists and watches the
// kind unfiltered and keeps the objects of the shards held when the
// generation started (its covered shards), dropping the others as they
// are decoded:
//   - A shard added needs its objects, which the running generation
//     dropped: once that generation has stored its first state, and no
//     shard has been added or removed for fallbackSettle (at most
//     fallbackMaxSettle after the first add), the generation is stopped
//     and a new one started, covering every shard then held. So shards
//     added close together (a member starting takes many ranges within
//     seconds) cost one read of the kind between them. The first
//     generation, too, waits for fallbackSettle of quiet: a member's
//     Works add the shards of one step one by one. While
//     [InformerOptions.ShardsPending] reports shards about to be added
//     (a ring member's claims waiting for their holders' releases, which
//     come at the holders' own steps, up to a RetryPeriod apart), a
//     generation waits for them too (within fallbackMaxPending): a
//     member joining a ring takes ranges from each holder in turn, and
//     reads the kind once for all of them. The new
//     generation's first state replaces the covered shards' objects and
//     the handlers hear what changed, as after any relist; the objects
//     of shards it syncs for the first time arrive as OnAdd(obj, true).
//     Each such shard is synced ([Informer.WaitForShard]) when that
//     state is stored (in every namespace).
//   - A shard removed: its objects leave the store silently, as in the
//     filtering mode, and from the call on no change of the shard
//     reaches a handler (the generation's sink skips removed shards; a
//     state read before the removal is stored without them).
//   - Watch failures and 410s are the reflector's, as for any informer:
//     a watch resumes from the last resourceVersion seen; a 410 relists
//     the whole kind once, which replaces the covered shards' objects.
//
// The mode lasts for the informer's life: a server that starts
// filtering later is not noticed (a fallback request asks for
// everything), which costs reads, never correctness. A server that
// stops filtering is noticed as at first.
//
// Cost in this mode: a read of the whole kind (decoded, the shards' share
// kept) at start and per burst of shard additions, one watch (per
// namespace) receiving each event of the kind once, and a hash of each
// object's field against the covered shards' ranges (O(shards)).

// Fallback timing: how long no shard change must last before a new
// generation reads the shards added, the longest a burst of changes
// delays it, and the longest shards announced as pending
// ([InformerOptions.ShardsPending]) do. A ring member takes the ranges
// of one step within milliseconds, and its steps are a RetryPeriod apart
// (2s by default): a quarter second gathers a step's ranges and adds
// little to a handover, which the shards' first state ends. A joining
// member's claims wait for their holders' next steps, up to a RetryPeriod
// and a quarter apart, plus the holders' drains.
const (
	fallbackSettle     = 250 * time.Millisecond
	fallbackMaxSettle  = 2 * time.Second
	fallbackMaxPending = 5 * time.Second
)

// fallback is the state of a sharded informer in fallback mode. Its
// fields but cancel and wake are guarded by the hub's lock.
type fallback struct {
	// pending is set when a shard is added that the running generation
	// does not cover.
	pending bool
	// wake is signalled (without blocking) when a shard is added or
	// removed.
	wake chan struct{}
	// cancel stops the mode's loop, which stops its generation.
	cancel context.CancelFunc
}

// generation is one unfiltered reflector (per namespace) of the fallback
// mode and the shards it keeps.
type generation struct {
	// covered are the shards held when the generation started, in
	// selector order; fixed.
	covered []*shard
	// fresh are the covered shards that were not synced at its start:
	// their objects in its first state are initial adds.
	fresh map[*shard]bool
	// unsynced counts its reflectors that have not stored their first
	// state (guarded by the hub's lock); synced is closed when it reaches
	// zero.
	unsynced int
	synced   chan struct{}
	cancel   context.CancelFunc
	done     chan struct{}
}

// shardOf returns the covered shard obj falls in, nil for none. The
// hash of each field is computed once. Cost: O(covered shards' ranges).
func (g *generation) shardOf(obj kube.Object) *shard {
	meta := obj.GetObjectMeta()
	var field kube.ShardField
	var h uint64
	hashed := false
	for _, sh := range g.covered {
		f := sh.sel.Field
		if f == "" {
			f = kube.ShardByUID
		}
		if !hashed || f != field {
			field, h, hashed = f, kube.ShardHash(f.ValueOf(meta)), true
		}
		if sh.sel.ContainsHash(h) {
			return sh
		}
	}
	return nil
}

// stop stops the generation's reflectors and waits for them.
func (g *generation) stop() {
	g.cancel()
	<-g.done
}

// serverIgnores switches a sharded informer to the fallback mode, once:
// a shard's reflector saw the server ignore its selector (its
// listWatch.ignores). It stops the shards' reflectors; the mode's loop
// waits for them before its first generation.
func (s *shardSet) serverIgnores() {
	s.w.Lock()
	defer s.w.Unlock()
	if s.fb != nil || !s.w.runningLocked() {
		return
	}
	s.src.log.Info("server ignores shardSelector; reading the kind once for all shards")
	ctx, cancel := context.WithCancel(context.Background())
	fb := &fallback{wake: make(chan struct{}, 1), cancel: cancel}
	s.fb = fb
	var prior []chan struct{}
	for _, sh := range s.byID {
		if sh.cancel != nil {
			sh.cancel()
			prior = append(prior, sh.done)
		}
	}
	s.readers.Go(func() { s.runFallback(ctx, fb, prior) })
}

// wakeLocked tells the fallback loop that the shards changed; added
// marks a shard the running generation does not cover. Call with the hub's
// lock held, in fallback mode.
func (fb *fallback) wakeLocked(added bool) {
	if added {
		fb.pending = true
	}
	select {
	case fb.wake <- struct{}{}:
	default:
	}
}

// runFallback runs generations until ctx is done, once the shards'
// reflectors (prior) have returned: a new one when shards were added
// since the running one started (after it stored its first state, so
// that a stream of additions cannot starve it, and after the additions
// settle), or when no shard is left for a running one to keep.
func (s *shardSet) runFallback(ctx context.Context, fb *fallback, prior []chan struct{}) {
	for _, done := range prior {
		<-done
	}
	// The shards being added now, and those announced, share the first
	// read: a member's Works add their shards one by one.
	settle(ctx, fb.wake, s.pending)
	for ctx.Err() == nil {
		g := s.startGeneration(ctx, fb)
		select {
		case <-g.synced:
		case <-ctx.Done():
		}
		for ctx.Err() == nil && !s.restartDue(fb, g) {
			select {
			case <-fb.wake:
			case <-ctx.Done():
			}
		}
		if ctx.Err() == nil {
			settle(ctx, fb.wake, s.pending)
		}
		g.stop()
	}
}

// restartDue reports whether g must give way to a new generation: a
// shard it does not cover was added, or it reads for no shard at all.
func (s *shardSet) restartDue(fb *fallback, g *generation) bool {
	s.w.Lock()
	defer s.w.Unlock()
	return fb.pending || (len(s.byID) == 0 && len(g.covered) > 0)
}

// settle waits until wake has been quiet for fallbackSettle and pending
// (when not nil) reports no shard about to be added, at most
// fallbackMaxSettle (fallbackMaxPending while pending reports some), or
// ctx is done.
func settle(ctx context.Context, wake <-chan struct{}, pending func() bool) {
	start := time.Now()
	waiting := func() bool { return pending != nil && pending() }
	for {
		limit := fallbackMaxSettle
		if waiting() {
			limit = fallbackMaxPending
		}
		d := min(fallbackSettle, time.Until(start.Add(limit)))
		if d <= 0 {
			return
		}
		t := time.NewTimer(d)
		select {
		case <-wake:
			t.Stop()
		case <-t.C:
			if !waiting() {
				return
			}
		case <-ctx.Done():
			t.Stop()
			return
		}
	}
}

// startGeneration starts a generation covering the shards held now (no
// reflector when none is held).
func (s *shardSet) startGeneration(ctx context.Context, fb *fallback) *generation {
	s.w.Lock()
	defer s.w.Unlock()
	fb.pending = false
	g := &generation{fresh: map[*shard]bool{}, synced: make(chan struct{}), done: make(chan struct{})}
	for _, sh := range s.byID {
		g.covered = append(g.covered, sh)
		if !sh.isSyncedLocked() {
			g.fresh[sh] = true
		}
	}
	slices.SortFunc(g.covered, func(a, b *shard) int { return strings.Compare(a.sel.String(), b.sel.String()) })
	ctx, g.cancel = context.WithCancel(ctx)
	if len(g.covered) == 0 {
		close(g.synced)
		close(g.done)
		return g
	}
	g.unsynced = len(s.reads)
	log := s.src.log.With("shards", len(g.covered))
	keep := func(obj kube.Object) bool { return g.shardOf(obj) != nil }
	var readers sync.WaitGroup
	for _, lw := range s.reads {
		lw.keep = keep
		r := s.src.reflector(lw, fallbackSink{s: s, g: g, ns: lw.ns}, log)
		readers.Go(func() { r.run(ctx) })
	}
	go func() {
		readers.Wait()
		close(g.done)
	}()
	return g
}

// fallbackSink is the [sink] of a generation's reflector for namespace
// ns ("" for all): it writes the objects of the generation's covered
// shards that are still held.
type fallbackSink struct {
	s  *shardSet
	g  *generation
	ns string
}

func (s fallbackSink) newState() *state { return newState(s.s.w.objects().codec) }

// apply implements [sink] as [shardSink.apply] does, for the shard the
// object falls in.
func (s fallbackSink) apply(typ kube.EventType, obj kube.Object, size int32) {
	s.s.w.Lock()
	defer s.s.w.Unlock()
	if sh := s.g.shardOf(obj); sh != nil && !sh.removed {
		s.s.applyLocked(sh, typ, obj, size)
	}
}

// replace implements [sink]: it drops from next the objects of shards
// removed since they were read, swaps the covered shards' objects (of
// its namespace) for next's, and tells the handlers what changed, as
// [shardSink.replace] does; the objects of the fresh shards in the
// reflector's first state are initial adds. When every reflector of the
// generation has stored its first state, its covered shards are synced.
// The cost under the lock is O(objects of the covered shards · (ranges +
// index funcs)) and the sort of their keys; in a compact store each
// object of next is decoded once more, to find its shard.
func (s fallbackSink) replace(next *state, initial bool) {
	set, g := s.s, s.g
	set.w.Lock()
	defer set.w.Unlock()
	st := set.w.objects()
	c := st.codec
	owners := map[kube.Key]*shard{}
	for ns, names := range next.objects {
		for name, e := range names {
			k := kube.Key{Namespace: ns, Name: name}
			if sh := g.shardOf(c.load(e.v)); sh != nil && !sh.removed {
				owners[k] = sh
			} else {
				next.remove(k)
			}
		}
	}
	covered := map[*shard]bool{}
	var out []kube.Key
	for _, sh := range g.covered {
		if sh.removed {
			continue
		}
		covered[sh] = true
		for k := range sh.keys {
			if s.ns == "" || k.Namespace == s.ns {
				out = append(out, k)
			}
		}
	}
	for k := range owners {
		if o := set.owner[k]; o != nil && !covered[o] {
			out = append(out, k)
		}
	}
	prev := st.swapKeys(out, next)
	for _, k := range out {
		set.disownLocked(k)
	}
	for k, sh := range owners {
		set.ownLocked(k, sh)
	}
	if !initial || len(g.fresh) == 0 {
		set.w.notifyDiffLocked(prev, next, false)
	} else {
		// The fresh shards' objects are initial adds; the others diff
		// against what was stored.
		known, first := newState(nil), newState(nil)
		for ns, names := range next.objects {
			for name, e := range names {
				k := kube.Key{Namespace: ns, Name: name}
				if g.fresh[owners[k]] {
					first.addPacked(e.v, k, e.size)
				} else {
					known.addPacked(e.v, k, e.size)
				}
			}
		}
		set.w.notifyDiffLocked(prev, known, false)
		set.w.notifyDiffLocked(newState(nil), first, true)
	}
	if initial {
		if g.unsynced--; g.unsynced == 0 {
			for _, sh := range g.covered {
				if !sh.removed {
					sh.markSyncedLocked()
				}
			}
			close(g.synced)
		}
	}
}
