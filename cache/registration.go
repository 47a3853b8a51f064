// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// Registration is one handler added to an informer: its queue of
// notifications and the goroutine that delivers them.
//
// Delivery: the informer appends to the queue under its lock and never
// waits for the handler; the delivery goroutine calls the handler for one
// notification at a time, in order. The queue is unbounded: a slow handler
// delays only itself, and nothing is dropped or merged, so the handler sees
// every change in order (as client-go's growing per-listener buffer). A
// handler that never returns grows its queue by one small record (about 40
// bytes, the objects themselves are shared) per change; [Informer.Stats]
// and [Cache.Stats] report the queue lengths so that this shows.
type Registration struct {
	handler Handler[kube.Object]
	// codec decodes the stored values notifications may carry.
	codec *codec

	mu sync.Mutex
	// queue[head:] are the notifications not yet delivered, oldest first.
	// queue[:head] are zeroed (so they hold no objects).
	queue []notification
	head  int
	// enqueued and delivered count notifications since the registration;
	// delivered <= enqueued.
	enqueued, delivered uint64
	// syncMark is the value of enqueued when the informer's initial state
	// (or, for a handler added later, its synthetic adds) had been queued;
	// valid when marked. synced is closed once delivered >= syncMark, or
	// when the registration is removed.
	syncMark     uint64
	marked       bool
	syncedClosed bool
	synced       chan struct{}
	// peak is the longest the queue has been.
	peak int
	// removed is set by RemoveEventHandler; nothing is queued after it.
	removed bool

	// wake has room for one token: a token means "look at the queue".
	wake chan struct{}
	// stop is closed when the registration is removed.
	stop chan struct{}
}

func newRegistration(h Handler[kube.Object], c *codec) *Registration {
	return &Registration{
		handler: h,
		codec:   c,
		synced:  make(chan struct{}),
		wake:    make(chan struct{}, 1),
		stop:    make(chan struct{}),
	}
}

// HasSynced reports whether the handler has been given the informer's
// initial state: every object of the first list (for handlers added before
// the informer synced) or every object cached when it was added (for
// handlers added later). It is also true once the handler is removed.
func (r *Registration) HasSynced() bool {
	if r == nil {
		return false
	}
	select {
	case <-r.synced:
		return true
	default:
		return false
	}
}

// WaitForSync waits until [Registration.HasSynced] or ctx is done.
func (r *Registration) WaitForSync(ctx context.Context) error {
	if r == nil {
		return errors.New("wait for handler sync: the Registration is nil")
	}
	select {
	case <-r.synced:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// push queues n. It never blocks on the handler.
func (r *Registration) push(n notification) {
	r.mu.Lock()
	if r.removed {
		r.mu.Unlock()
		return
	}
	r.queue = append(r.queue, n)
	r.enqueued++
	r.peak = max(r.peak, len(r.queue)-r.head)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default: // a token is already there
	}
}

// markSynced records that the initial state has been queued.
func (r *Registration) markSynced() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.syncMark, r.marked = r.enqueued, true
	r.checkSyncedLocked()
}

func (r *Registration) checkSyncedLocked() {
	if !r.syncedClosed && (r.removed || r.marked && r.delivered >= r.syncMark) {
		r.syncedClosed = true
		close(r.synced)
	}
}

// remove stops delivery; notifications still queued are dropped.
func (r *Registration) remove() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.removed {
		return
	}
	r.removed = true
	r.queue, r.head = nil, 0
	close(r.stop)
	r.checkSyncedLocked()
}

// pending returns the number of notifications queued and the peak.
func (r *Registration) pending() (queued, peak int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.queue) - r.head, r.peak
}

// run delivers notifications until the registration is removed or done is
// closed.
func (r *Registration) run(done <-chan struct{}) {
	for {
		n, ok := r.pop()
		if !ok {
			select {
			case <-r.wake:
				continue
			case <-r.stop:
				return
			case <-done:
				return
			}
		}
		select {
		case <-r.stop:
			return
		case <-done:
			return
		default:
		}
		n.deliver(r.handler, r.codec)
		r.mu.Lock()
		r.delivered++
		r.checkSyncedLocked()
		r.mu.Unlock()
	}
}

// pop takes the oldest notification, if any.
func (r *Registration) pop() (notification, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.head == len(r.queue) {
		return notification{}, false
	}
	n := r.queue[r.head]
	r.queue[r.head] = notification{}
	r.head++
	switch {
	case r.head == len(r.queue) && cap(r.queue) > maxIdleQueue:
		r.queue, r.head = nil, 0 // release what a burst grew
	case r.head == len(r.queue):
		r.queue, r.head = r.queue[:0], 0
	case r.head >= minCompact && r.head*2 >= len(r.queue):
		k := copy(r.queue, r.queue[r.head:])
		clear(r.queue[k:])
		r.queue, r.head = r.queue[:k], 0
	}
	return n, true
}

// Queue housekeeping: an empty queue keeps at most maxIdleQueue slots;
// a queue whose delivered half is at least minCompact slots is compacted,
// so the cost of a notification stays O(1) amortized.
const (
	maxIdleQueue = 1024
	minCompact   = 256
)
