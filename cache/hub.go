// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// hub is where an informer's store changes: the store, the handlers'
// registrations, the lock that orders every change of the store with
// the notifications it causes and with handler registration, and the
// count of the reflectors the informer's sync waits for. The informer
// owns it and reaches it directly (handlers, Start, SetNamespaces,
// RemoveInformer); the sinks and the shard set reach it only as a
// [storeWriter] (sink.go). Readers of the store do not need the hub:
// the store has its own lock.
//
// Its fields but store, synced, done and deliveries are guarded by mu.
// A handler sees each change exactly once, after the objects it was
// given when added, because the store changes and the notifications are
// queued under mu, and a handler is added (with its synthetic adds)
// under mu too.
type hub struct {
	store *store

	mu sync.Mutex
	// regs are the live registrations, in order of addition.
	regs []*Registration
	// initialRegs are the registrations there were when the first state
	// was stored; HasSynced waits for them.
	initialRegs []*Registration
	// unsynced counts the reflectors (one per namespace, or one) that
	// have not stored their first state. isSynced is set (and synced
	// closed) when it reaches zero, after the states are queued to the
	// handlers.
	unsynced int
	isSynced bool
	synced   chan struct{}
	// phase moves from idle to running (Start) to stopped (Start
	// returned, or RemoveInformer).
	phase phase
	// done is closed when the informer's Start is ending, ending
	// deliveries.
	done chan struct{}
	// deliveries counts the registrations' goroutines.
	deliveries sync.WaitGroup
}

// ErrStopped is returned when a handler is added to an informer whose
// Start has returned, and when a Cache whose Start has returned is asked
// for a kind it has no informer for.
var ErrStopped = errors.New("informer stopped")

type phase uint8

const (
	idle phase = iota
	running
	stopped
)

func newHub(s *store) *hub {
	return &hub{store: s, synced: make(chan struct{}), done: make(chan struct{})}
}

// Lock takes mu. It implements [storeWriter], with Unlock.
func (h *hub) Lock() { h.mu.Lock() }

// Unlock releases mu.
func (h *hub) Unlock() { h.mu.Unlock() }

// objects implements [storeWriter]: the store, whose objects change
// only under mu.
func (h *hub) objects() *store { return h.store }

// runningLocked implements [storeWriter]. Call with mu held.
func (h *hub) runningLocked() bool { return h.phase == running }

// startLocked moves the hub to running: the handlers' deliveries start,
// and the sync counts the reflectors started from now on (countLocked).
// Call with mu held, the hub idle.
func (h *hub) startLocked() {
	h.phase = running
	h.unsynced = 0
	for _, r := range h.regs {
		h.deliveries.Go(func() { r.run(h.done) })
	}
}

// stop moves the hub to stopped, its reflectors returned: it ends the
// deliveries and waits for them.
func (h *hub) stop() {
	h.mu.Lock()
	h.phase = stopped
	close(h.done)
	h.mu.Unlock()
	h.deliveries.Wait()
}

// retire returns how many handlers are registered, and when none is,
// moves the hub to stopped, so that it takes no handler from now on:
// RemoveInformer (remove.go).
func (h *hub) retire() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.regs)
	if n == 0 {
		h.phase = stopped
	}
	return n
}

// addHandler registers h's handler: it first gets an OnAdd(obj, true)
// for each stored object, in key order. It returns [ErrStopped] once
// the hub has stopped. The cost is O(n log n) for n stored objects,
// under mu.
func (h *hub) addHandler(handler Handler[kube.Object]) (*Registration, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.phase == stopped {
		return nil, ErrStopped
	}
	r := newRegistration(handler, h.store.codec)
	h.regs = append(h.regs, r)
	h.store.eachInOrder(func(v any) bool {
		r.push(notification{kind: notifyAdd, obj: v, flag: true})
		return true
	})
	if h.isSynced {
		r.markSynced()
	}
	if h.phase == running {
		h.deliveries.Go(func() { r.run(h.done) })
	}
	return r, nil
}

// removeHandler drops r and reports whether it was registered.
func (h *hub) removeHandler(r *Registration) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := slices.Index(h.regs, r)
	if n < 0 {
		return false
	}
	h.regs = slices.Delete(h.regs, n, n+1)
	r.remove()
	return true
}

// handlers returns the live registrations; the caller owns the slice.
func (h *hub) handlers() []*Registration {
	h.mu.Lock()
	regs := slices.Clone(h.regs)
	h.mu.Unlock()
	return regs
}

// hasSynced reports whether the first state is stored and the handlers
// there were then have been given all of it.
func (h *hub) hasSynced() bool {
	h.mu.Lock()
	regs, synced := h.initialRegs, h.isSynced
	h.mu.Unlock()
	if !synced {
		return false
	}
	for _, r := range regs {
		if !r.HasSynced() {
			return false
		}
	}
	return true
}

// waitForSync waits until hasSynced, or ctx ends (its error).
func (h *hub) waitForSync(ctx context.Context) error {
	select {
	case <-h.synced:
	case <-ctx.Done():
		return ctx.Err()
	}
	h.mu.Lock()
	regs := h.initialRegs
	h.mu.Unlock()
	for _, r := range regs {
		if err := r.WaitForSync(ctx); err != nil {
			return err
		}
	}
	return nil
}

// storeSynced reports whether the first state is stored.
func (h *hub) storeSynced() bool {
	select {
	case <-h.synced:
		return true
	default:
		return false
	}
}

// countLocked counts one more reflector the sync waits for, unless the
// hub has synced, and reports whether it did. Call with mu held.
func (h *hub) countLocked() bool {
	if h.isSynced {
		return false
	}
	h.unsynced++
	return true
}

// storedFirstLocked implements [storeWriter]: a reflector counted
// stored its first state (its notifications queued); the hub is synced
// when every one counted has. Call with mu held.
func (h *hub) storedFirstLocked() {
	h.unsynced--
	if h.unsynced <= 0 {
		h.markSyncedLocked()
	}
}

// markSyncedLocked records that the first state is stored: the
// handlers there are now are those HasSynced waits for. Call with mu
// held, once.
func (h *hub) markSyncedLocked() {
	h.isSynced = true
	h.initialRegs = slices.Clone(h.regs)
	for _, r := range h.regs {
		r.markSynced()
	}
	close(h.synced)
}

// resync gives every handler OnUpdate(obj, obj, true) for every stored
// object, in key order. The cost is O(n log n) for n stored objects,
// under mu.
func (h *hub) resync() {
	h.mu.Lock()
	if len(h.regs) > 0 {
		h.store.eachInOrder(func(v any) bool {
			h.notifyLocked(notification{kind: notifyUpdate, old: v, obj: v, flag: true})
			return true
		})
	}
	h.mu.Unlock()
}

// notifyLocked implements [storeWriter]: it queues n to every handler.
// Call with mu held.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (h *hub) notifyLocked(n notification) {
	for _, r := range h.regs {
		r.push(n)
	}
}

// notifyDiffLocked implements [storeWriter]: it tells the handlers how
// next differs from prev, in key order (by namespace, then by name, as
// the API server lists; see sortedKeys):
//   - an object that is new: OnAdd (isInInitialList when initial);
//   - an object at another resourceVersion: OnUpdate(old, new);
//   - an object with the same name but another UID (deleted and created
//     again while the watch was down): OnDelete(old, true) then OnAdd;
//   - an object that is gone: OnDelete(last known state, true);
//   - an object at the same resourceVersion: nothing.
//
// Call with mu held. The cost is O(n log n) for the n objects old and
// new (the sort of their names).
func (h *hub) notifyDiffLocked(prev, next *state, initial bool) {
	c := h.store.codec
	for _, ns := range sortedKeys(prev.objects, next.objects, compareNamespaces) {
		olds, news := prev.objects[ns], next.objects[ns]
		for _, name := range sortedKeys(olds, news, strings.Compare) {
			old, had := olds[name]
			e, has := news[name]
			switch {
			case !has:
				h.notifyLocked(notification{kind: notifyDelete, obj: old.v, flag: true})
				continue
			case !had:
				h.notifyLocked(notification{kind: notifyAdd, obj: e.v, flag: initial})
				continue
			case samePacked(old.v, e.v):
				continue // the same JSON: the same version
			}
			oldMeta, newMeta := c.load(old.v).GetObjectMeta(), c.load(e.v).GetObjectMeta()
			switch {
			case oldMeta.UID != newMeta.UID:
				h.notifyLocked(notification{kind: notifyDelete, obj: old.v, flag: true})
				h.notifyLocked(notification{kind: notifyAdd, obj: e.v})
			case oldMeta.ResourceVersion != newMeta.ResourceVersion:
				h.notifyLocked(notification{kind: notifyUpdate, old: old.v, obj: e.v})
			}
		}
	}
}
