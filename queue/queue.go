// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// DefaultMaxPriorityWait is the aging bound used when
// [Options.MaxPriorityWait] is zero.
const DefaultMaxPriorityWait = 5 * time.Second

// Options configure a [Queue]. The zero value is valid: every field has a
// documented default.
type Options[K comparable] struct {
	// Name names the queue in its metrics (the "name" label). It may be empty.
	Name string

	// RateLimiter decides the delay of [Queue.AddRateLimited] and answers
	// [Queue.NumRequeues] and [Queue.Forget]. Nil means
	// [NewDefaultRateLimiter]. The queue calls it without holding its own lock.
	RateLimiter RateLimiter[K]

	// MaxPriorityWait is how long a queued item may be passed over by items of
	// higher priority before the aging rule (see the package doc) hands it
	// out. Zero means [DefaultMaxPriorityWait]; it must not be negative.
	MaxPriorityWait time.Duration

	// DisableMetrics turns off the time-based metrics (both histograms,
	// unfinished work, longest running processor), which saves two clock
	// reads per item in Get and Done. Depth, AddsTotal and RetriesTotal are
	// always counted.
	DisableMetrics bool
}

// AddOptions says how [Queue.AddWithOptions] adds an item. The zero value
// adds the item now with priority 0.
type AddOptions struct {
	// Priority orders queued items: higher is handed out first, subject to
	// aging. Any int is allowed; 0 is the default, so a resync or an initial
	// list would use a negative priority and a real change 0.
	Priority int

	// After delays the add. Zero or negative adds now.
	After time.Duration

	// RateLimited delays the add by the rate limiter's When (or by After if
	// that is longer) and counts a retry.
	RateLimited bool
}

// Node states. The zero value is stateFree. In the terms of client-go's
// workqueue, which keeps a queue, a dirty set (items that need processing)
// and a processing set (items handed out and not yet Done), one state per
// item says which of them hold it:
//
//	state            queue  dirty  processing
//	stateQueued      yes    yes    no
//	stateProcessing  no     no     yes
//	stateRequeue     no     yes    yes   (added while processed: Done queues it)
//
// So the workqueue's invariants hold by construction: every queued item is
// dirty and not being processed; an item is never queued twice (dirty set);
// an item being processed is not handed out again until Done (processing
// set). A fourth combination, dirty and neither queued nor processing,
// does not exist here: a delayed add is not dirty until its delay ends.
const (
	stateFree       uint8 = iota // in the free list: in no set
	stateQueued                  // in the order, waiting for Get; live entries exist
	stateProcessing              // handed out by Get, not added since
	stateRequeue                 // handed out by Get and added since: Done queues it again
)

// node is the state of one item that is queued or being processed. Nodes
// live in a slab (Queue.nodes) and are reused through a free list, so the
// steady state allocates nothing per item.
type node[K comparable] struct {
	item K // zeroed when free, so the slab keeps nothing alive
	// at is a clock reading (see Queue.now): while queued, when the item
	// entered the queue; while processing, when Get handed it out (kept only
	// when metrics are on). One field serves both: Done reads the second
	// before it queues an item again.
	at    int64
	prio  int    // priority while queued; while stateRequeue, the priority to queue it with
	gen   uint32 // changes whenever the node leaves stateQueued; see entry
	state uint8
	prev  int32 // processing list (metrics.go), -1 at the ends
	next  int32 // processing list, or the free list while free; -1 at the end
}

// Queue is a deduplicating, prioritised work queue with delays and rate
// limiting. Create one with [New]; the zero value is not usable. All methods
// are safe for concurrent use.
type Queue[K comparable] struct {
	// Immutable after New.
	name      string
	limiter   RateLimiter[K]
	maxWait   int64     // ns; > 0
	metricsOn bool      // time-based metrics are kept
	epoch     time.Time // clock origin for now(); read with its monotonic reading

	mu   sync.Mutex
	cond sync.Cond // L is &mu. Signalled when an item is queued; broadcast at shutdown and when shutdown meets processing == 0.

	// Everything below is guarded by mu.

	// index holds every item in the dirty set or the processing set (see
	// the node states), each once: the union of client-go's two sets.
	// Invariant: index[k] == i iff nodes[i].state != stateFree and nodes[i].item == k.
	index map[K]int32
	nodes []node[K] // slab; nodes not in index are free
	free  int32     // first free node, linked through node.next; -1 if none

	// order is the queue proper: the hand-out order of the dirty items that
	// are not being processed (stateQueued), each with one live entry in it
	// (priority.go).
	order      order
	depth      int // nodes in stateQueued: the queue's length, Len
	processing int // the processing set's size: nodes in stateProcessing or stateRequeue

	// shuttingDown is set once and never cleared. From then on nothing is
	// queued, Get returns false, and order is empty.
	shuttingDown bool

	// The delay goroutine (delay.go), started by the first delayed add.
	// waitCh and stopCh are nil until then; stopCh is closed at shutdown.
	loopStarted bool
	waitCh      chan waitEntry[K]
	stopCh      chan struct{}
	loop        sync.WaitGroup

	m metrics // metrics.go
}

// New returns an empty queue configured by opts. It starts no goroutine and
// does no I/O. It returns an error if a field of opts is invalid.
func New[K comparable](opts Options[K]) (*Queue[K], error) {
	if opts.MaxPriorityWait < 0 {
		return nil, fmt.Errorf("new queue: Options.MaxPriorityWait is %v, want >= 0", opts.MaxPriorityWait)
	}
	q := &Queue[K]{
		name:      opts.Name,
		limiter:   opts.RateLimiter,
		maxWait:   int64(opts.MaxPriorityWait),
		metricsOn: !opts.DisableMetrics,
		epoch:     time.Now(),
		index:     make(map[K]int32),
		free:      -1,
	}
	if q.limiter == nil {
		q.limiter = NewDefaultRateLimiter[K]()
	}
	if q.maxWait == 0 {
		q.maxWait = int64(DefaultMaxPriorityWait)
	}
	q.cond.L = &q.mu
	q.m.head, q.m.tail = -1, -1
	return q, nil
}

// now reads the monotonic clock, in nanoseconds since New.
func (q *Queue[K]) now() int64 { return int64(time.Since(q.epoch)) }

// Add queues item with priority 0. It does nothing if item is already queued
// (see [Queue.AddWithOptions] for priorities) or the queue is shut down. If
// item is being processed it is queued again when [Queue.Done] is called.
// Amortised O(1); it allocates only when the queue grows past its largest size.
func (q *Queue[K]) Add(item K) {
	if !q.made() {
		return
	}
	q.mu.Lock()
	if !q.shuttingDown {
		q.addLocked(item, 0)
	}
	q.mu.Unlock()
}

// AddAfter adds item with priority 0 once d has passed. If item is already
// waiting, the earlier of the two deadlines wins. Zero or negative d adds now.
// O(log n) for n waiting items.
func (q *Queue[K]) AddAfter(item K, d time.Duration) {
	if !q.made() {
		return
	}
	q.AddWithOptions(item, AddOptions{After: d})
}

// AddRateLimited adds item with priority 0 after the delay its rate limiter
// gives, and counts a retry.
func (q *Queue[K]) AddRateLimited(item K) {
	if !q.made() {
		return
	}
	q.AddWithOptions(item, AddOptions{RateLimited: true})
}

// AddWithOptions adds item as opts says. Adding an item that is already
// queued with a higher priority raises it; a lower or equal priority changes
// nothing. A delayed item keeps the earliest deadline and the highest
// priority it was given while waiting.
func (q *Queue[K]) AddWithOptions(item K, opts AddOptions) {
	if !q.made() {
		return
	}
	d := opts.After
	if opts.RateLimited {
		// Ask the limiter outside the lock, and not at all once shut down,
		// so that it does not count attempts that are ignored.
		q.mu.Lock()
		down := q.shuttingDown
		q.mu.Unlock()
		if down {
			return
		}
		d = max(d, q.limiter.When(item))
	}
	q.mu.Lock()
	if q.shuttingDown {
		q.mu.Unlock()
		return
	}
	if opts.RateLimited {
		q.m.retries++
	}
	if d <= 0 {
		q.addLocked(item, opts.Priority)
		q.mu.Unlock()
		return
	}
	q.startLoopLocked()
	in, stop := q.waitCh, q.stopCh
	q.mu.Unlock()

	readyAt := q.now()
	if readyAt > maxInt64-int64(d) {
		readyAt = maxInt64
	} else {
		readyAt += int64(d)
	}
	select {
	case in <- waitEntry[K]{item: item, readyAt: readyAt, prio: opts.Priority}:
	case <-stop:
	}
}

const maxInt64 = 1<<63 - 1

// addLocked is Add without the shutdown check.
func (q *Queue[K]) addLocked(item K, prio int) {
	if i, ok := q.index[item]; ok {
		n := &q.nodes[i]
		switch n.state {
		case stateQueued:
			if prio > n.prio {
				q.raiseLocked(i, prio)
			}
		case stateProcessing:
			n.state = stateRequeue
			n.prio = prio
			q.m.adds++
		case stateRequeue:
			n.prio = max(n.prio, prio)
		}
		return
	}
	i := q.allocLocked(item)
	q.index[item] = i
	q.nodes[i].prio = prio
	q.m.adds++
	q.enqueueLocked(i, q.now())
}

// Get blocks until an item is queued or the queue shuts down. It returns the
// next item in the order described in the package doc and ok = true, or the
// zero K and ok = false once the queue is shut down (items still queued then
// are dropped). The caller must call [Queue.Done] with the item when it has
// finished processing it. O(b) for b distinct priorities queued.
func (q *Queue[K]) Get() (item K, ok bool) {
	if !q.made() {
		return item, false
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for q.depth == 0 && !q.shuttingDown {
		q.cond.Wait()
	}
	if q.shuttingDown {
		return item, false
	}
	now := int64(-1)
	if q.metricsOn {
		now = q.now()
	}
	i := q.nextLocked(&now)
	q.nodes[i].state = stateProcessing
	q.processing++
	if q.metricsOn {
		q.startLocked(i, now)
	}
	return q.nodes[i].item, true
}

// Done marks item as processed. If it was added while being processed, it is
// queued again. Done of an item that is not being processed does nothing.
func (q *Queue[K]) Done(item K) {
	if !q.made() {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	i, ok := q.index[item]
	if !ok || (q.nodes[i].state != stateProcessing && q.nodes[i].state != stateRequeue) {
		return
	}
	q.processing--
	now := int64(-1)
	if q.metricsOn {
		now = q.now()
		q.finishLocked(i, now)
	}
	if q.nodes[i].state == stateRequeue && !q.shuttingDown {
		if now < 0 {
			now = q.now()
		}
		q.enqueueLocked(i, now)
		return
	}
	delete(q.index, item)
	q.freeLocked(i)
	if q.shuttingDown && q.processing == 0 {
		q.cond.Broadcast()
	}
}

// Len returns the number of queued items, not counting items being processed
// or waiting for a delay.
func (q *Queue[K]) Len() int {
	if !q.made() {
		return 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.depth
}

// Forget tells the rate limiter that item is done retrying (it succeeded or
// was given up on). It does not remove item from the queue.
func (q *Queue[K]) Forget(item K) {
	if !q.made() {
		return
	}
	q.limiter.Forget(item)
}

// NumRequeues returns how many rate-limited adds of item the rate limiter has
// seen since it last forgot item.
func (q *Queue[K]) NumRequeues(item K) int {
	if !q.made() {
		return 0
	}
	return q.limiter.NumRequeues(item)
}

// ShutDown shuts the queue down: every waiting and later Get returns
// ok = false, queued and delayed items are dropped and later adds are
// ignored. It stops the delay goroutine and waits for it to end. Items being
// processed may still be passed to Done. ShutDown may be called more than once.
func (q *Queue[K]) ShutDown() {
	if !q.made() {
		return
	}
	q.beginShutDown()
	q.loop.Wait()
}

// ShutDownWithDrain is [Queue.ShutDown] that also waits until every item
// being processed is passed to [Queue.Done], or until ctx is done, in which
// case it returns an error wrapping the context's cause.
func (q *Queue[K]) ShutDownWithDrain(ctx context.Context) error {
	if !q.made() {
		return nil
	}
	q.beginShutDown()
	stop := context.AfterFunc(ctx, func() {
		q.mu.Lock()
		q.cond.Broadcast()
		q.mu.Unlock()
	})
	q.mu.Lock()
	for q.processing > 0 && ctx.Err() == nil {
		q.cond.Wait()
	}
	left := q.processing
	q.mu.Unlock()
	stop()
	q.loop.Wait()
	if left > 0 {
		return fmt.Errorf("drain queue %q: %d items still processing: %w", q.name, left, context.Cause(ctx))
	}
	return nil
}

func (q *Queue[K]) beginShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	q.shuttingDown = true
	// Every queued node has one live entry in the age order.
	for k := range q.order.age.n {
		if e := q.order.age.at(k); q.live(e) {
			delete(q.index, q.nodes[e.node].item)
			q.freeLocked(e.node)
		}
	}
	q.depth = 0
	q.resetOrderLocked()
	if q.stopCh != nil {
		close(q.stopCh)
	}
	q.cond.Broadcast()
}

// allocLocked returns a free node holding item, growing the slab if needed.
func (q *Queue[K]) allocLocked(item K) int32 {
	if i := q.free; i >= 0 {
		q.free = q.nodes[i].next
		q.nodes[i].item = item
		return i
	}
	q.nodes = appendDoubling(q.nodes, node[K]{item: item})
	return int32(len(q.nodes) - 1)
}

// freeLocked returns node i, already removed from index, to the free list.
func (q *Queue[K]) freeLocked(i int32) {
	n := &q.nodes[i]
	var zero K
	n.item = zero
	n.gen++
	n.state = stateFree
	n.next = q.free
	q.free = i
}
