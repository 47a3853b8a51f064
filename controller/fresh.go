// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// This file keeps a controller from reconciling an object on a cache older
// than its own writes (see the guarantee "Stale-safe" in the package doc):
// before each reconcile the controller asks whether the cache holds the
// writes this process made to the object and to the objects it owns; when
// not, the request waits aside, on a goroutine of its own rather than a
// worker, and is queued again once they are held.

// Freshness tells whether a cache holds this process's own writes (a
// *cache.Cache, and kubeloop's manager, have these methods).
type Freshness interface {
	// WritesSeen reports, without waiting, whether the cache holds this
	// process's writes to the object of kind gvk at key and to the
	// objects it owns.
	WritesSeen(gvk kube.GroupVersionKind, key kube.Key) bool
	// WaitForWrites waits, bounded, until it does, and reports whether
	// it does.
	WaitForWrites(ctx context.Context, gvk kube.GroupVersionKind, key kube.Key) bool
}

// staleGate defers the requests of one kind whose writes the cache does
// not hold yet.
type staleGate struct {
	fresh Freshness
	kind  kube.GroupVersionKind

	mu sync.Mutex
	// waiting are the requests deferred, until their wait ends; a request
	// is in it at most once, so there is at most one goroutine for each.
	// late are those whose wait passed its bound: they are reconciled
	// once without asking again (a read then answers from the cache as
	// it is).
	waiting map[Request]bool
	late    map[Request]bool
	wg      sync.WaitGroup
}

func newStaleGate(f Freshness, kind kube.GroupVersionKind) *staleGate {
	return &staleGate{fresh: f, kind: kind, waiting: map[Request]bool{}, late: map[Request]bool{}}
}

// admit reports whether req may be reconciled now. When not, it has been
// deferred: readd queues it again once the cache holds the writes, the
// wait passes its bound, or ctx ends (then nothing is queued).
func (g *staleGate) admit(ctx context.Context, req Request, readd func(Request)) bool {
	g.mu.Lock()
	if g.late[req] {
		delete(g.late, req)
		g.mu.Unlock()
		return true
	}
	g.mu.Unlock()
	if g.fresh.WritesSeen(g.kind, req.Key) {
		return true
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.waiting[req] {
		return false // already waiting: it is queued again when that wait ends
	}
	g.waiting[req] = true
	g.wg.Go(func() {
		seen := g.fresh.WaitForWrites(ctx, g.kind, req.Key)
		g.mu.Lock()
		delete(g.waiting, req)
		if !seen && ctx.Err() == nil {
			g.late[req] = true
		}
		g.mu.Unlock()
		if ctx.Err() == nil {
			readd(req)
		}
	})
	return false
}

// wait waits for the deferred requests' goroutines to end (they end with
// the context given to admit).
func (g *staleGate) wait() { g.wg.Wait() }
