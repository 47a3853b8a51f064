// SPDX-License-Identifier: Apache-2.0

package queue

import "slices"

// This file holds the order in which queued items are handed out: one FIFO
// per priority and one FIFO of every queued item by age, both ring buffers of
// small entries that point into the node slab. See the package doc for the
// rule it implements.

// maxIdleBuckets bounds how many priority buckets are kept, with their ring
// capacity, while they are empty. Past that, empty buckets are dropped as
// Get passes them, and all buckets when the queue empties.
const maxIdleBuckets = 8

// ring is a FIFO in a power-of-two circular buffer. The zero value is empty
// and ready to use. Push is amortised O(1) and allocates only when the
// buffer doubles; capacity is kept when elements are popped.
type ring[T any] struct {
	buf  []T // len(buf) is 0 or a power of two
	head int // index of the first element; 0 <= head < len(buf) when len(buf) > 0
	n    int // number of elements; 0 <= n <= len(buf)
}

func (r *ring[T]) push(v T) {
	if r.n == len(r.buf) {
		r.grow()
	}
	r.buf[(r.head+r.n)&(len(r.buf)-1)] = v
	r.n++
}

func (r *ring[T]) grow() {
	buf := make([]T, max(16, 2*len(r.buf)))
	for i := range r.n {
		buf[i] = r.buf[(r.head+i)&(len(r.buf)-1)]
	}
	r.buf, r.head = buf, 0
}

// front returns the first element; r.n must be > 0.
func (r *ring[T]) front() T { return r.buf[r.head] }

// at returns the i-th element from the front; 0 <= i < r.n.
func (r *ring[T]) at(i int) T { return r.buf[(r.head+i)&(len(r.buf)-1)] }

// pop removes the first element; r.n must be > 0.
func (r *ring[T]) pop() {
	r.head = (r.head + 1) & (len(r.buf) - 1)
	r.n--
}

func (r *ring[T]) reset() { r.head, r.n = 0, 0 }

// appendDoubling is append that doubles the capacity when it must grow.
// append grows large slices by only 1.25x, which for a slab or heap that
// grows to 100,000 entries allocates and copies about five times its final
// size; doubling keeps that to about twice.
func appendDoubling[S ~[]E, E any](s S, v E) S {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(16, len(s)))
	}
	return append(s, v)
}

// entry refers to a queued node from a bucket or from the age ring. It is
// live while the node's gen equals the entry's (gen changes whenever a node
// leaves the queued state) and, for a bucket entry, while the node's priority
// equals the bucket's: raising a priority leaves a stale entry behind in the
// lower bucket. Stale entries are skipped and dropped when they reach the
// front, so every entry is pushed and popped once: amortised O(1).
type entry struct {
	node int32
	gen  uint32
}

// bucket is the FIFO of one priority.
type bucket struct {
	prio    int
	entries ring[entry] // in the order nodes took this priority; may hold stale entries
}

// order is the hand-out order of queued items. It is guarded by Queue.mu.
//
// Invariant: every queued node has exactly one live entry in the bucket of
// its priority and exactly one live entry in age; no other node has any.
type order struct {
	buckets  []bucket    // sorted by priority, highest first; may be empty
	age      ring[entry] // queued nodes oldest first by the time they entered the queue; may hold stale entries
	agedLast bool        // the previous hand-out was an overdue item taken by the aging rule
}

// bucketLocked returns the bucket for prio, creating it if needed. O(log b)
// for b buckets (in practice a handful), plus O(b) to create one.
func (q *Queue[K]) bucketLocked(prio int) *bucket {
	bs := q.order.buckets
	if len(bs) > 0 && bs[0].prio == prio { // the usual case: one priority
		return &bs[0]
	}
	// First bucket whose priority is <= prio; buckets are highest first.
	i, j := 0, len(bs)
	for i < j {
		h := int(uint(i+j) >> 1)
		if bs[h].prio > prio {
			i = h + 1
		} else {
			j = h
		}
	}
	if i < len(bs) && bs[i].prio == prio {
		return &bs[i]
	}
	// append and copy, not slices.Insert, whose general case (several
	// values, overlapping slices) adds 5 kB to a program.
	bs = append(bs, bucket{})
	copy(bs[i+1:], bs[i:])
	bs[i] = bucket{prio: prio}
	q.order.buckets = bs
	return &bs[i]
}

// enqueueLocked puts node i, whose prio is set, at the back of its priority
// and of the age order. Amortised O(1) plus O(b) to find the bucket.
func (q *Queue[K]) enqueueLocked(i int32, now int64) {
	n := &q.nodes[i]
	n.state = stateQueued
	n.at = now
	e := entry{node: i, gen: n.gen}
	q.bucketLocked(n.prio).entries.push(e)
	q.order.age.push(e)
	q.depth++
	q.cond.Signal()
}

// raiseLocked moves queued node i to the back of the higher priority prio.
// It keeps its place in the age order.
func (q *Queue[K]) raiseLocked(i int32, prio int) {
	n := &q.nodes[i]
	n.prio = prio
	q.bucketLocked(prio).entries.push(entry{node: i, gen: n.gen})
}

// nextLocked removes the next item to hand out from the order and returns its
// node; q.depth must be > 0. *now is the current time, or -1 if it has not
// been read: nextLocked reads the clock only when it must decide whether the
// oldest item is overdue. O(b) plus amortised O(1) for stale entries.
func (q *Queue[K]) nextLocked(now *int64) int32 {
	o := &q.order
	// Drop stale fronts. The highest bucket with a live front holds the
	// priority pick; the front of age is the oldest queued item.
	top := 0
	for {
		b := &o.buckets[top]
		for b.entries.n > 0 && !q.liveIn(b, b.entries.front()) {
			b.entries.pop()
		}
		if b.entries.n > 0 {
			break
		}
		if len(o.buckets) > maxIdleBuckets {
			// Many priorities in use: drop empty buckets so that b stays
			// the number of priorities queued.
			o.buckets = slices.Delete(o.buckets, top, top+1)
			continue
		}
		top++
	}
	for !q.live(o.age.front()) {
		o.age.pop()
	}
	pick, oldest := o.buckets[top].entries.front(), o.age.front()

	if pick != oldest && !o.agedLast {
		if *now < 0 {
			*now = q.now()
		}
		if *now-q.nodes[oldest.node].at >= q.maxWait {
			o.agedLast = true
			o.age.pop()
			// The oldest item is normally at the front of its bucket once
			// stale entries are dropped (only a raise can put a younger
			// item ahead of it); pop it there too so that buckets below
			// the top do not fill with stale entries.
			b := q.bucketLocked(q.nodes[oldest.node].prio)
			for !q.liveIn(b, b.entries.front()) {
				b.entries.pop()
			}
			if b.entries.front() == oldest {
				b.entries.pop()
			}
			return q.takeLocked(oldest.node)
		}
	}
	o.agedLast = false
	o.buckets[top].entries.pop()
	if pick == oldest {
		o.age.pop()
	}
	return q.takeLocked(pick.node)
}

// takeLocked marks node i as no longer queued, which makes all its entries
// stale, and resets the order when the queue becomes empty.
func (q *Queue[K]) takeLocked(i int32) int32 {
	q.nodes[i].gen++
	q.depth--
	if q.depth == 0 {
		q.resetOrderLocked()
	}
	return i
}

// resetOrderLocked empties the order. Called when no item is queued, so every
// entry is stale. Keeps ring capacity unless there are many buckets.
func (q *Queue[K]) resetOrderLocked() {
	o := &q.order
	if len(o.buckets) > maxIdleBuckets {
		o.buckets = nil
	}
	for i := range o.buckets {
		o.buckets[i].entries.reset()
	}
	o.age.reset()
}

func (q *Queue[K]) live(e entry) bool {
	return q.nodes[e.node].gen == e.gen && q.nodes[e.node].state == stateQueued
}

func (q *Queue[K]) liveIn(b *bucket, e entry) bool {
	return q.live(e) && q.nodes[e.node].prio == b.prio
}
