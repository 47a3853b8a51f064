// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the read side of "Reading your own writes" (package doc):
// reads, and controllers before they reconcile, wait until the informers
// have read past the writes of the cache's client that writes.go
// remembers.

// DefaultMaxFreshWait is how long a read waits at most for the cache to
// hold this process's own writes when [Options.MaxFreshWait] is zero.
const DefaultMaxFreshWait = 5 * time.Second

// DefaultMaxFreshRecords and DefaultMaxFreshRecordBytes bound what a
// cache remembers of its client's writes when [Options.MaxFreshRecords]
// and [Options.MaxFreshRecordBytes] are zero. A write is one record, and
// one more for each owner it names (a record per owner, kind and
// namespace); it costs about 300 bytes, 1.3 KB with an owner no other
// pending write names. At the bounds (10,000 records, 8 MiB estimated)
// TestMemoryOutOfScopeWrites measured 8.1 MiB of heap, room for several
// seconds of a busy controller's writes: a record lives until the
// informer is seen to hold it, or a wait for it gives up.
const (
	DefaultMaxFreshRecords     = 10000
	DefaultMaxFreshRecordBytes = 8 << 20
)

// RecordWrite remembers a write of this process's client that the server
// answered, so that reads from the cache made afterwards wait until the
// cache holds it. A manager wires it to its client
// (kube.ClientOptions.OnWrite); a program that builds its own cache and
// client can do the same. Writes no informer can see are not remembered:
// of a kind the cache has no informer for (an informer made later starts
// from a newer state), in a namespace outside the kind's, or of an
// object its selectors filter out (see "Reading your own writes" in the
// package doc). It costs a map update, and now and then a sweep of what
// is remembered; past the bounds ([Options.MaxFreshRecords],
// [Options.MaxFreshRecordBytes]) the oldest records are dropped, counted
// in [Cache.FreshRecords] and logged once.
func (c *Cache) RecordWrite(w kube.Written) {
	if !c.made() {
		return
	}
	if c.opts.MaxFreshWait < 0 {
		return
	}
	visible := false
	for _, inf := range c.informersOf(w.Kind) {
		visible = visible || inf.mayHold(w.Key, w.Labels, w.Partial)
	}
	if !visible {
		return
	}
	l := c.recordLimits()
	if !c.writes.add(w, l) {
		return
	}
	if n := c.writes.trim(c.objectSeenByAll, c.scopeSeenByAll, l); n > 0 && !c.loggedDrop.Swap(true) {
		c.log.Warn("the records of this process's writes passed their bound: the oldest were dropped, and reads no longer wait for them; later drops are counted, not logged",
			"dropped", n, "maxRecords", l.count, "maxBytes", l.bytes)
	}
}

// recordLimits are the bounds of the records of writes.
func (c *Cache) recordLimits() limits {
	l := limits{count: int64(c.opts.MaxFreshRecords), bytes: c.opts.MaxFreshRecordBytes}
	if l.count <= 0 {
		l.count = DefaultMaxFreshRecords
	}
	if l.bytes <= 0 {
		l.bytes = DefaultMaxFreshRecordBytes
	}
	return l
}

// FreshRecords is what a cache remembers of its client's writes (see
// "Reading your own writes" in the package doc), for metrics.
type FreshRecords struct {
	// Records and Bytes are the records held and their approximate
	// bytes.
	Records int64
	Bytes   int64
	// Dropped counts the records dropped, oldest first, because the
	// records passed their bounds: reads no longer wait for those writes.
	Dropped uint64
}

// FreshRecords returns what the cache remembers of its client's writes
// (nothing for a nil Cache).
func (c *Cache) FreshRecords() FreshRecords {
	if c == nil {
		return FreshRecords{}
	}
	c.writes.mu.Lock()
	b := c.writes.bytes
	c.writes.mu.Unlock()
	return FreshRecords{Records: c.writes.count.Load(), Bytes: b, Dropped: c.writes.dropped.Load()}
}

// maxFreshWait is the bound of one wait; 0 when waits are off.
func (c *Cache) maxFreshWait() time.Duration {
	switch d := c.opts.MaxFreshWait; {
	case d < 0:
		return 0
	case d == 0:
		return DefaultMaxFreshWait
	default:
		return d
	}
}

// awaitObject waits, bounded, until inf holds this process's last write
// to the object of kind gvk at key, when there is one it can see. A wait
// that is settled (seen, or given up) forgets the write.
func (c *Cache) awaitObject(ctx context.Context, inf *informer, gvk kube.GroupVersionKind, key kube.Key) {
	w, ok := c.writes.pendingObject(gvk, key)
	if !ok || !inf.mayHold(key, w.labels, w.partial) {
		return
	}
	deadline := time.Now().Add(c.maxFreshWait())
	if inf.await(ctx, deadline, func() (bool, bool) { return objectSeen(inf, key, w) }).settled() {
		c.writes.dropObject(gvk, key, w)
	}
}

// awaitList waits, bounded, until inf holds every write of this
// process's client that may change the answer of a List of kind gvk with
// opts: the writes to objects in its namespace that inf may hold (see
// mayHold) whose labels, as written or as cached, match its label
// selector (every write there when it selects by field too). A wait that
// is settled forgets the writes.
func (c *Cache) awaitList(ctx context.Context, inf *informer, gvk kube.GroupVersionKind, opts kube.ListOptions) {
	targets := c.writes.listTargets(gvk, opts.Namespace)
	if len(targets) == 0 {
		return
	}
	byLabel := !opts.LabelSelector.Empty() && opts.FieldSelector.Empty()
	for key, w := range targets {
		if !inf.mayHold(key, w.labels, w.partial) {
			delete(targets, key) // no event of it will come
			continue
		}
		if !byLabel || w.partial || opts.LabelSelector.Matches(w.labels) {
			continue
		}
		if obj, ok := inf.store.get(key); !ok || !opts.LabelSelector.Matches(obj.GetObjectMeta().Labels) {
			delete(targets, key) // in the answer neither before the write nor after
		}
	}
	if len(targets) == 0 {
		return
	}
	deadline := time.Now().Add(c.maxFreshWait())
	r := inf.await(ctx, deadline, func() (bool, bool) {
		for key, w := range targets {
			if ok, comparable := objectSeen(inf, key, w); !ok {
				return false, comparable
			}
		}
		return true, true
	})
	if !r.settled() {
		return
	}
	for key, w := range targets {
		c.writes.dropObject(gvk, key, w)
	}
}

// WritesSeen reports whether every informer of kind gvk that may hold it
// holds this process's last write to the object at key, and the
// informers of the kinds it owns hold the writes to the objects it owns
// (their owner references name it). It does not wait. A controller asks
// it before it reconciles the object.
func (c *Cache) WritesSeen(gvk kube.GroupVersionKind, key kube.Key) bool {
	if !c.made() {
		return true // it was told of no writes
	}
	if c.writes.count.Load() == 0 || c.maxFreshWait() == 0 {
		return true
	}
	if w, ok := c.writes.pendingObject(gvk, key); ok && !c.objectSeenByAll(objectKey{gvk: gvk, key: key}, w) {
		return false
	}
	for sc, w := range c.writes.ownedTargets(gvk, key) {
		if !c.scopeSeenByAll(sc, w.rv) {
			return false
		}
	}
	return true
}

// WaitForWrites waits until [Cache.WritesSeen] would report true for the
// writes remembered when it is called, ctx ends, or [Options.MaxFreshWait]
// passes; it reports whether the writes are seen. A wait that passes the
// bound, or that cannot tell (resourceVersions that are not decimal
// integers), is counted in the informers' [Stats] and logged once per
// kind; the writes it waited for are forgotten, so that the next call
// does not wait for them again.
func (c *Cache) WaitForWrites(ctx context.Context, gvk kube.GroupVersionKind, key kube.Key) bool {
	if !c.made() {
		return true // it was told of no writes
	}
	if c.writes.count.Load() == 0 || c.maxFreshWait() == 0 {
		return true
	}
	deadline := time.Now().Add(c.maxFreshWait())
	w, pending := c.writes.pendingObject(gvk, key)
	owned := c.writes.ownedTargets(gvk, key)
	seen := true
	if pending {
		r := seenOutcome
		for _, inf := range c.informersOf(gvk) {
			if inf.mayHold(key, w.labels, w.partial) {
				r = min(r, inf.await(ctx, deadline, func() (bool, bool) { return objectSeen(inf, key, w) }))
			}
		}
		if r.settled() {
			c.writes.dropObject(gvk, key, w)
		}
		seen = r == seenOutcome
	}
	for sc, ow := range owned {
		r := seenOutcome
		for _, inf := range c.informersOf(sc.gvk) {
			if inf.allows(sc.ns) {
				r = min(r, inf.await(ctx, deadline, func() (bool, bool) { return inf.progress.seen(sc.ns, ow.rv) }))
			}
		}
		if r.settled() {
			c.writes.dropOwned(gvk, key, sc, ow)
		}
		seen = seen && r == seenOutcome
	}
	return seen
}

// objectSeenByAll reports whether every informer of k's kind that may
// hold it holds w.
func (c *Cache) objectSeenByAll(k objectKey, w written) bool {
	for _, inf := range c.informersOf(k.gvk) {
		if ok, _ := objectSeen(inf, k.key, w); !ok && inf.mayHold(k.key, w.labels, w.partial) {
			return false
		}
	}
	return true
}

// scopeSeenByAll reports whether every informer of sc's kind that
// watches its namespace has read version rv there.
func (c *Cache) scopeSeenByAll(sc scope, rv uint64) bool {
	for _, inf := range c.informersOf(sc.gvk) {
		if ok, _ := inf.progress.seen(sc.ns, rv); !ok && inf.allows(sc.ns) {
			return false
		}
	}
	return true
}

// objectSeen reports whether inf holds write w to the object at key, and
// when not, whether it can tell. A write after which the server deletes
// the object is held once the object is gone (or cached anew, past the
// write's version); a delete answered without a version once the object
// is gone; a delete answered with the object at a version once it is
// cached with a deletionTimestamp at that version or later, or gone and
// the informer has read past that version; another write once
// the cached object is at its version or later, or the informer has read
// past that version (the object may have gone since).
func objectSeen(inf *informer, key kube.Key, w written) (ok, comparable bool) {
	obj, cached := inf.store.get(key)
	switch {
	case w.deleted && !cached && (w.gone || w.rv == 0):
		return true, true
	case w.deleted && !cached: // marked at rv: the informer has read past it, or may get it still
		return inf.progress.seen(key.Namespace, w.rv)
	case w.gone:
		v, ok := parseRV(obj.GetObjectMeta().ResourceVersion)
		return w.rv > 0 && ok && v > w.rv, true
	case w.deleted:
		m := obj.GetObjectMeta()
		return m.DeletionTimestamp != nil && (w.rv == 0 || rvAtLeast(m.ResourceVersion, w.rv)), true
	}
	if w.opaque {
		return false, false
	}
	if cached && rvAtLeast(obj.GetObjectMeta().ResourceVersion, w.rv) {
		return true, true
	}
	return inf.progress.seen(key.Namespace, w.rv)
}

// outcome is how a wait for own writes ended. Of the waits of several
// informers for the same writes, the least is the outcome of all.
type outcome uint8

const (
	// canceled: the context ended first; the wait may be asked again.
	canceled outcome = iota
	// gaveUp: the bound passed, or the informer cannot tell; the writes
	// are not waited for again.
	gaveUp
	// seenOutcome: the informer holds the writes.
	seenOutcome
)

// settled reports whether the wait's writes can be forgotten: seen, or
// given up on.
func (o outcome) settled() bool { return o != canceled }

// await waits until cond reports true, the deadline passes or ctx ends,
// checking again at each advance of the informer's reflectors, and
// reports how it ended. cond's second result is false when it can never
// tell (a resourceVersion that is not a decimal integer): the wait gives
// up at once. Outcomes are counted in the informer's fresh stats.
func (i *informer) await(ctx context.Context, deadline time.Time, cond func() (ok, comparable bool)) outcome {
	ok, comparable := cond()
	switch {
	case ok:
		return seenOutcome
	case !comparable:
		i.fresh.opaqueVersion(i.log)
		return gaveUp
	}
	start := time.Now()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	for {
		wake := i.progress.next()
		ok, comparable := cond()
		switch {
		case ok:
			i.fresh.waited(time.Since(start))
			return seenOutcome
		case !comparable:
			i.fresh.opaqueVersion(i.log)
			return gaveUp
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return canceled
		case <-timer.C:
			i.fresh.gaveUp(time.Since(start), i.log)
			return gaveUp
		}
	}
}
