// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
)

// This file changes the namespaces an informer holds while it runs
// (SetNamespaces): the reflectors of the namespaces that leave stop and
// their objects leave the store, the namespaces that come are read, and
// the others go on untouched. What handlers are told is in "Changing the
// scope" in the package doc. Only SetNamespaces reaches this file (see
// "Binary size" there).

// SetNamespaces limits the informer to namespaces (empty: all) from now
// on; see [Informer.SetNamespaces].
func (i *informer) SetNamespaces(ctx context.Context, namespaces []string) error {
	o, err := InformerOptions{Namespaces: namespaces}.normalize()
	if err != nil {
		return fmt.Errorf("set namespaces of the %s informer: %w", i.gvk.Kind, err)
	}
	namespaces = o.Namespaces
	i.mu.Lock()
	switch {
	case i.opts.Sharded:
		i.mu.Unlock()
		return fmt.Errorf("set namespaces of the %s informer: %w: its namespaces are fixed", i.gvk.Kind, errSharded)
	case i.phase == stopped:
		i.mu.Unlock()
		return fmt.Errorf("set namespaces of the %s informer: %w", i.gvk.Kind, ErrStopped)
	}
	if i.phase == idle { // Start reads the scope
		i.store.setScope(namespaces)
		i.mu.Unlock()
		return nil
	}
	want := namespaces
	if len(want) == 0 {
		want = []string{""}
	}
	var gone, added []*nsRun
	i.runs = slices.DeleteFunc(i.runs, func(run *nsRun) bool {
		if slices.Contains(want, run.ns) {
			return false
		}
		run.removed = true
		run.cancel()
		gone = append(gone, run)
		if run.counted && !run.stored {
			i.storedFirstLocked() // the informer's sync no longer waits for it
		}
		return true
	})
	i.store.setScope(namespaces)
	for _, ns := range want {
		if !slices.ContainsFunc(i.runs, func(run *nsRun) bool { return run.ns == ns }) {
			run := i.runLocked(ns)
			run.synced = make(chan struct{}) // before its sink takes i.mu
			added = append(added, run)
		}
	}
	i.mu.Unlock()

	for _, run := range gone {
		select {
		case <-run.done:
		case <-ctx.Done():
			return fmt.Errorf("set namespaces of the %s informer: wait for the reflectors of the namespaces removed: %w", i.gvk.Kind, ctx.Err())
		}
	}
	for _, run := range added {
		select {
		case <-run.synced:
		case <-run.done: // removed by a later call, or the informer stopped
		case <-ctx.Done():
			return fmt.Errorf("set namespaces of the %s informer: %w", i.gvk.Kind, i.notSynced(ctx.Err()))
		}
	}
	return nil
}

// errSharded is wrapped by the errors of SetNamespaces on a sharded
// informer.
var errSharded = errors.New("the informer is sharded")

// setScope limits the store to namespaces (empty: all), dropping the
// objects of the others, as one change readers see whole, and returns
// how many it dropped. The cost is O(objects dropped · index funcs).
func (s *store) setScope(namespaces []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scope = namespaces
	n := 0
	for ns, names := range s.cur.objects {
		if len(namespaces) == 0 || slices.Contains(namespaces, ns) {
			continue
		}
		for _, e := range names {
			if len(s.indexers) > 0 {
				s.cur.unindexAll(s.indexers, s.codec.load(e.v))
			}
			s.cur.count--
			s.cur.bytes -= int64(e.size)
			n++
		}
		delete(s.cur.objects, ns)
	}
	return n
}

// SetNamespaces limits the informer to namespaces (empty: all) from now
// on, while it runs or before: the namespaces that leave stop being
// watched and their objects leave the store, the namespaces that come
// are listed and watched, and the namespaces kept are neither relisted
// nor notified again. What handlers are told, and what a change between
// all namespaces and some costs, is in "Changing the scope" in the
// package doc.
//
// On a running informer it returns once the reflectors of the
// namespaces removed have ended and those of the namespaces added have
// stored their first state (reads of them are complete from then); when
// ctx ends first it returns ctx's error in a [*NotSyncedError], the
// change made and the new namespaces still being read. It fails for a
// sharded informer, whose namespaces are fixed, once Start has
// returned, and for an empty or repeated namespace. As
// [InformerOptions.Namespaces], namespaces must be empty for a
// cluster-scoped kind.
func (i *Informer[T]) SetNamespaces(ctx context.Context, namespaces []string) error {
	return i.inf.SetNamespaces(ctx, namespaces)
}

// SetNamespaces limits the cache of obj's kind to namespaces (empty: all)
// from now on, replacing Options.Namespaces and the kind's
// ByObject.Namespaces: every informer of the kind (one per Go type it is
// read as) changes as [Informer.SetNamespaces] says, and the informers
// made later start with them. It waits as [Informer.SetNamespaces] does.
// Calls are applied one after the other. It fails for a cluster-scoped
// kind, for a kind made sharded ([Cache.ShardKind]), and for an empty or
// repeated namespace; a failure to change one informer does not keep
// the others from changing.
func (c *Cache) SetNamespaces(ctx context.Context, obj kube.Object, namespaces []string) error {
	gvk := obj.GroupVersionKind()
	if _, err := (InformerOptions{Namespaces: namespaces}).normalize(); err != nil {
		return fmt.Errorf("set namespaces of %s: %w", gvk.Kind, err)
	}
	m, err := c.client.Mapping(ctx, gvk)
	if err != nil {
		return fmt.Errorf("set namespaces of %s: %w", gvk.Kind, err)
	}
	if !m.Namespaced {
		return fmt.Errorf("set namespaces of %s: the kind is cluster-scoped", gvk.Kind)
	}
	namespaces = slices.Clone(namespaces)
	c.scoping.Lock() // the informers end in the scope recorded last
	defer c.scoping.Unlock()
	c.mu.Lock()
	if _, ok := c.sharded[gvk]; ok {
		c.mu.Unlock()
		return fmt.Errorf("set namespaces of %s: %w: its namespaces are fixed", gvk.Kind, errSharded)
	}
	c.scoped = slices.DeleteFunc(c.scoped, func(sc kindScope) bool { return sc.gvk == gvk })
	c.scoped = append(c.scoped, kindScope{gvk: gvk, namespaces: namespaces})
	var infs []*informer
	for k, kd := range c.kinds {
		if k.gvk == gvk {
			infs = append(infs, kd.inf)
		}
	}
	c.mu.Unlock()
	var errs []error
	for _, inf := range infs {
		errs = append(errs, inf.SetNamespaces(ctx, namespaces))
	}
	return errors.Join(errs...)
}
