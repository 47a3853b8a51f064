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

// RecordWrite remembers a write of this process's client that the server
// answered, so that reads from the cache made afterwards wait until the
// cache holds it. A manager wires it to its client
// (kube.ClientOptions.OnWrite); a program that builds its own cache and
// client can do the same. Writes of kinds the cache has no informer for
// are not remembered (an informer made later starts from a newer state).
// It costs a map update, and now and then a sweep of what is remembered.
func (c *Cache) RecordWrite(w kube.Written) {
	if !c.made() {
		return
	}
	if c.opts.MaxFreshWait < 0 || len(c.informersOf(w.Kind)) == 0 {
		return
	}
	if c.writes.add(w) {
		c.writes.sweep(c.objectSeenByAll, c.scopeSeenByAll)
	}
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
// to the object of kind gvk at key, when there is one.
func (c *Cache) awaitObject(ctx context.Context, inf *informer, gvk kube.GroupVersionKind, key kube.Key) {
	w, ok := c.writes.pendingObject(gvk, key)
	if !ok {
		return
	}
	deadline := time.Now().Add(c.maxFreshWait())
	if inf.await(ctx, deadline, func() (bool, bool) { return objectSeen(inf, key, w) }) {
		c.writes.dropObject(gvk, key, w)
	}
}

// awaitList waits, bounded, until inf holds every write of this
// process's client that may change the answer of a List of kind gvk with
// opts: the writes to objects in its namespace whose labels, as written
// or as cached, match its label selector (every write there when it
// selects by field too).
func (c *Cache) awaitList(ctx context.Context, inf *informer, gvk kube.GroupVersionKind, opts kube.ListOptions) {
	targets := c.writes.listTargets(gvk, opts.Namespace)
	if len(targets) == 0 {
		return
	}
	byLabel := !opts.LabelSelector.Empty() && opts.FieldSelector.Empty()
	for key, w := range targets {
		if !byLabel || opts.LabelSelector.Matches(w.labels) {
			continue
		}
		if obj, ok := inf.store.get(key); !ok || !opts.LabelSelector.Matches(obj.GetObjectMeta().Labels) {
			delete(targets, key) // in the answer neither before the write nor after
		}
	}
	deadline := time.Now().Add(c.maxFreshWait())
	seen := inf.await(ctx, deadline, func() (bool, bool) {
		for key, w := range targets {
			if ok, comparable := objectSeen(inf, key, w); !ok {
				return false, comparable
			}
		}
		return true, true
	})
	if !seen {
		return
	}
	for key, w := range targets {
		c.writes.dropObject(gvk, key, w)
	}
}

// WritesSeen reports whether every informer of kind gvk holds this
// process's last write to the object at key, and the informers of the
// kinds it owns hold the writes to the objects it owns (their owner
// references name it). It does not wait. A controller asks it before it
// reconciles the object.
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
	for sc, rv := range c.writes.ownedTargets(gvk, key) {
		if !c.scopeSeenByAll(sc, rv) {
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
// kind.
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
		for _, inf := range c.informersOf(gvk) {
			seen = inf.await(ctx, deadline, func() (bool, bool) { return objectSeen(inf, key, w) }) && seen
		}
		if seen {
			c.writes.dropObject(gvk, key, w)
		}
	}
	for sc, rv := range owned {
		ok := true
		for _, inf := range c.informersOf(sc.gvk) {
			ok = inf.await(ctx, deadline, func() (bool, bool) { return inf.progress.seen(sc.ns, rv) }) && ok
		}
		if ok {
			c.writes.dropOwned(gvk, key, sc, rv)
		}
		seen = seen && ok
	}
	return seen
}

// objectSeenByAll reports whether every informer of k's kind holds w.
func (c *Cache) objectSeenByAll(k objectKey, w written) bool {
	for _, inf := range c.informersOf(k.gvk) {
		if ok, _ := objectSeen(inf, k.key, w); !ok {
			return false
		}
	}
	return true
}

// scopeSeenByAll reports whether every informer of sc's kind has read
// version rv in sc's namespace.
func (c *Cache) scopeSeenByAll(sc scope, rv uint64) bool {
	for _, inf := range c.informersOf(sc.gvk) {
		if ok, _ := inf.progress.seen(sc.ns, rv); !ok {
			return false
		}
	}
	return true
}

// objectSeen reports whether inf holds write w to the object at key, and
// when not, whether it can tell. A delete is held once the object is
// gone, or cached with a deletionTimestamp at the delete's version or
// later; another write once the cached object is at its version or
// later, or the informer has read past that version (the object may have
// gone since).
func objectSeen(inf *informer, key kube.Key, w written) (ok, comparable bool) {
	obj, cached := inf.store.get(key)
	if w.deleted {
		if !cached {
			return true, true
		}
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

// await waits until cond reports true, the deadline passes or ctx ends,
// checking again at each advance of the informer's reflectors; it
// reports whether cond held. cond's second result is false when it can
// never tell (a resourceVersion that is not a decimal integer): the wait
// ends at once. Outcomes are counted in the informer's fresh stats.
func (i *informer) await(ctx context.Context, deadline time.Time, cond func() (ok, comparable bool)) bool {
	ok, comparable := cond()
	switch {
	case ok:
		return true
	case !comparable:
		i.fresh.opaqueVersion(i.log)
		return false
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
			return true
		case !comparable:
			i.fresh.opaqueVersion(i.log)
			return false
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return false
		case <-timer.C:
			i.fresh.gaveUp(time.Since(start), i.log)
			return false
		}
	}
}
