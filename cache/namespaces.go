// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"maps"
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
// on, the namespaces kept keeping their selectors; see
// [Informer.SetNamespaces].
func (i *informer) SetNamespaces(ctx context.Context, namespaces []string) error {
	return i.setScope(ctx, "set namespaces", namespaces, nil, true)
}

// SetScope limits the informer to namespaces (empty: all), with
// selectors, from now on; see [Informer.SetScope].
func (i *informer) SetScope(ctx context.Context, namespaces []string, selectors map[string]Selectors) error {
	return i.setScope(ctx, "set scope", namespaces, selectors, false)
}

// setScope limits the informer to namespaces with selectors, or, with
// keep, with the selectors it has of those namespaces. verb starts its
// errors. A namespace whose selectors change is read again by a new
// reflector whose first state replaces the old one's: the diff of the
// two is what handlers hear (nsSink.replace).
func (i *informer) setScope(ctx context.Context, verb string, namespaces []string, selectors map[string]Selectors, keep bool) error {
	o, err := InformerOptions{Namespaces: namespaces, NamespaceSelectors: selectors}.normalize()
	if err != nil {
		return errs.Errorf("%s of the %s informer: %w", verb, i.gvk.Kind, err)
	}
	namespaces = o.Namespaces
	h := i.hub
	h.Lock()
	switch {
	case i.opts.Sharded:
		h.Unlock()
		return errs.Errorf("%s of the %s informer: %w: its namespaces are fixed", verb, i.gvk.Kind, errSharded)
	case h.phase == stopped:
		h.Unlock()
		return errs.Errorf("%s of the %s informer: %w", verb, i.gvk.Kind, ErrStopped)
	}
	if keep {
		selectors = keptSelectors(i.opts.NamespaceSelectors, namespaces)
	} else {
		selectors = maps.Clone(selectors)
	}
	i.opts.NamespaceSelectors = selectors
	if h.phase == idle { // Start reads the scope
		h.objects().setScope(namespaces)
		h.Unlock()
		return nil
	}
	want := namespaces
	if len(want) == 0 {
		want = []string{""}
	}
	var gone, added []*nsRun
	i.runs = slices.DeleteFunc(i.runs, func(run *nsRun) bool {
		if slices.Contains(want, run.ns) && run.sel.equal(i.selectors(run.ns)) {
			return false
		}
		// Removed, or read again with other selectors: its objects
		// stay in the store for the new reflector to compare with.
		run.removed = true
		run.cancel()
		gone = append(gone, run)
		if run.counted && !run.stored {
			h.storedFirstLocked() // the informer's sync no longer waits for it
		}
		return true
	})
	h.objects().setScope(namespaces)
	for _, ns := range want {
		if !slices.ContainsFunc(i.runs, func(run *nsRun) bool { return run.ns == ns }) {
			run := i.runLocked(ns)
			run.synced = make(chan struct{}) // before its sink takes the lock
			added = append(added, run)
		}
	}
	h.Unlock()

	for _, run := range gone {
		select {
		case <-run.done:
		case <-ctx.Done():
			return errs.Errorf("%s of the %s informer: wait for the reflectors stopped: %w", verb, i.gvk.Kind, ctx.Err())
		}
	}
	for _, run := range added {
		select {
		case <-run.synced:
		case <-run.done: // removed by a later call, or the informer stopped
		case <-ctx.Done():
			return errs.Errorf("%s of the %s informer: %w", verb, i.gvk.Kind, i.notSynced(ctx.Err()))
		}
	}
	return nil
}

// keptSelectors returns a copy of sel without the namespaces that are
// not in namespaces: the selectors SetNamespaces keeps.
func keptSelectors(sel map[string]Selectors, namespaces []string) map[string]Selectors {
	sel = maps.Clone(sel)
	maps.DeleteFunc(sel, func(ns string, _ Selectors) bool { return !slices.Contains(namespaces, ns) })
	return sel
}

// equal reports whether s and o select the same objects, as written
// (the selectors' canonical strings).
func (s Selectors) equal(o Selectors) bool {
	return s.Label.String() == o.Label.String() && s.Field.String() == o.Field.String()
}

// errSharded is wrapped by the errors of SetNamespaces on a sharded
// informer.
var errSharded = errors.New("the informer is sharded")

// SetNamespaces limits the informer to namespaces (empty: all) from now
// on, while it runs or before: the namespaces that leave stop being
// watched and their objects leave the store, the namespaces that come
// are listed and watched, and the namespaces kept are neither relisted
// nor notified again. The namespaces kept keep their selectors; a
// namespace added is read with the informer's LabelSelector and
// FieldSelector ([Informer.SetScope] gives it its own). What handlers
// are told, and what a change between all namespaces and some costs,
// is in "Changing the scope" in the package doc.
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
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.SetNamespaces(ctx, namespaces)
}

// SetScope limits the informer to namespaces (empty: all) from now on,
// as [Informer.SetNamespaces] does, and gives them selectors: those of
// the namespaces selectors names replace the informer's LabelSelector
// and FieldSelector, as [InformerOptions.NamespaceSelectors] does (its
// keys must be in namespaces; the informer keeps a copy). A namespace
// kept whose selectors changed (as written) is listed and watched
// again with the new ones, and the store's objects of the namespace are
// replaced by what that list returns; handlers are told only what
// differs, as after a relist: OnDelete(obj, true) for an object that no
// longer matches, OnAdd(obj, true) for a new match, OnUpdate for an
// object kept at another resourceVersion, nothing for the others. A
// namespace kept with the same selectors is not read again. It returns
// as [Informer.SetNamespaces] does, the namespaces read again counted
// with those added, and fails as it does and for a key of selectors not
// in namespaces.
func (i *Informer[T]) SetScope(ctx context.Context, namespaces []string, selectors map[string]Selectors) error {
	if i == nil || i.inf == nil {
		return errNoInformer
	}
	return i.inf.SetScope(ctx, namespaces, selectors)
}

// SetNamespaces limits the cache of obj's kind to namespaces (empty: all)
// from now on, replacing Options.Namespaces and the kind's
// ByObject.Namespaces: every informer of the kind (one per Go type it is
// read as) changes as [Informer.SetNamespaces] says, and the informers
// made later start with them. The namespaces kept keep their selectors
// (ByObject.NamespaceSelectors, or SetScope's). It waits as
// [Informer.SetNamespaces] does. Calls (of SetScope too) are applied
// one after the other. It fails for a cluster-scoped kind, for a kind
// made sharded ([Cache.ShardKind]), and for an empty or repeated
// namespace; a failure to change one informer does not keep the others
// from changing.
func (c *Cache) SetNamespaces(ctx context.Context, obj kube.Object, namespaces []string) error {
	if !c.made() {
		return errNoCache
	}
	return c.setScope(ctx, "set namespaces", obj, namespaces, nil, true)
}

// SetScope limits the cache of obj's kind to namespaces (empty: all),
// with selectors, from now on, replacing the kind's namespaces and
// ByObject.NamespaceSelectors: every informer of the kind changes as
// [Informer.SetScope] says, and the informers made later start with
// them. It waits and fails as [Cache.SetNamespaces] does, and for a
// key of selectors not in namespaces.
func (c *Cache) SetScope(ctx context.Context, obj kube.Object, namespaces []string, selectors map[string]Selectors) error {
	if !c.made() {
		return errNoCache
	}
	return c.setScope(ctx, "set scope", obj, namespaces, selectors, false)
}

// setScope changes the scope of obj's kind to namespaces with
// selectors, or, with keep, with the kind's selectors of those
// namespaces; verb starts its errors.
func (c *Cache) setScope(ctx context.Context, verb string, obj kube.Object, namespaces []string, selectors map[string]Selectors, keep bool) error {
	gvk := obj.GroupVersionKind()
	if _, err := (InformerOptions{Namespaces: namespaces, NamespaceSelectors: selectors}).normalize(); err != nil {
		return errs.Errorf("%s of %s: %w", verb, gvk.Kind, err)
	}
	m, err := c.client.Mapping(ctx, gvk)
	if err != nil {
		return errs.Errorf("%s of %s: %w", verb, gvk.Kind, err)
	}
	if !m.Namespaced {
		return errs.Errorf("%s of %s: the kind is cluster-scoped", verb, gvk.Kind)
	}
	namespaces = slices.Clone(namespaces)
	c.scoping.Lock() // the informers end in the scope recorded last
	defer c.scoping.Unlock()
	c.mu.Lock()
	if _, ok := c.sharded[gvk]; ok {
		c.mu.Unlock()
		return errs.Errorf("%s of %s: %w: its namespaces are fixed", verb, gvk.Kind, errSharded)
	}
	if keep {
		kept := c.declared[gvk].NamespaceSelectors
		if sc, ok := c.scoped[gvk]; ok {
			kept = sc.selectors
		}
		selectors = keptSelectors(kept, namespaces)
	} else {
		selectors = maps.Clone(selectors)
	}
	if c.scoped == nil {
		c.scoped = map[kube.GroupVersionKind]kindScope{}
	}
	c.scoped[gvk] = kindScope{namespaces: namespaces, selectors: selectors}
	var infs []*informer
	for k, kd := range c.kinds {
		if k.gvk == gvk {
			infs = append(infs, kd.inf)
		}
	}
	c.mu.Unlock()
	var errs []error
	for _, inf := range infs {
		errs = append(errs, inf.setScope(ctx, verb, namespaces, selectors, false))
	}
	return errors.Join(errs...)
}
