// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"slices"
)

// RemoveController stops the controller added under name
// ([Manager.AddController], or the controller builder) and takes it out
// of the manager, before Start or while it runs (controller-runtime
// #935). When it returns nil:
//   - the controller's Start has returned: its queue was shut down (the
//     requests queued are dropped), its reconciles in flight have ended
//     (their context was cancelled), and its sources have returned, each
//     having removed its handler from its informer;
//   - its metrics are no longer exported, and name is free for another
//     controller.
//
// The informers its sources watched stay in the cache, for the other
// controllers and for reads; take out one that nothing uses any more with
// cache.Cache.RemoveInformer. A controller not started yet (added before
// Start, or waiting for the lease) is dropped without being started.
//
// It fails for a name no controller was added under, for a sharded
// controller (its ranges' work runs in the ring: stop the manager), and
// when ctx ends before the controller's Start has returned: the
// controller is stopping then and keeps its name until it has stopped;
// call RemoveController again to wait for it.
func (m *Manager) RemoveController(ctx context.Context, name string) error {
	if !m.made() {
		return errs.Errorf("remove controller %q: %w", name, errNoManager)
	}
	m.mu.Lock()
	_, ok := m.controllers[name]
	m.mu.Unlock()
	if !ok {
		return errs.Errorf("remove controller %q: no controller was added under that name", name)
	}
	for _, g := range []*group{m.others, m.leaders} {
		e, found, err := g.stopEntry(name)
		switch {
		case err != nil:
			return errs.Errorf("remove controller %q: %w", name, err)
		case !found:
			continue
		case e != nil:
			select {
			case <-e.done:
			case <-ctx.Done():
				return errs.Errorf("remove controller %q: wait for its reconciles in flight: %w", name, ctx.Err())
			}
			g.forget(e)
		}
		m.mu.Lock()
		delete(m.controllers, name)
		m.mu.Unlock()
		return nil
	}
	return errs.Errorf("remove controller %q: the manager runs no controller under that name", name)
}

// stopEntry finds the controller added under key: one not started is
// dropped (found, e nil); one started is stopped (its context
// cancelled) and returned, for the caller to wait for e.done and forget
// it. A sharded controller is refused.
func (g *group) stopEntry(key string) (e *entry, found bool, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for n, p := range g.pending {
		if p.key == key {
			if p.sharded {
				return nil, true, errShardedController
			}
			g.pending = slices.Delete(g.pending, n, n+1)
			return nil, true, nil
		}
	}
	for _, e := range g.running {
		if e.key == key {
			if e.sharded {
				return nil, true, errShardedController
			}
			e.stop()
			return e, true, nil
		}
	}
	return nil, false, nil
}

// forget drops e, which has returned, from the runnables the group
// waits for.
func (g *group) forget(e *entry) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.running = slices.DeleteFunc(g.running, func(x *entry) bool { return x == e })
}

// errShardedController is the error of stopEntry for a sharded
// controller.
var errShardedController = errors.New("a sharded controller runs in the ring until the manager stops")
