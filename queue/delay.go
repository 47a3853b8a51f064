// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"container/heap"
	"time"
)

// waitBuffer is the capacity of the channel that hands delayed adds to the
// delay goroutine, so that a burst of AddAfter calls does not wait for it.
const waitBuffer = 256

// waitEntry is one delayed add on its way to the delay goroutine.
type waitEntry[K comparable] struct {
	item    K
	readyAt int64 // clock reading (see Queue.now) at which to add it
	prio    int
}

// startLoopLocked starts the delay goroutine unless it is already running.
// It is called only while the queue is not shut down.
func (q *Queue[K]) startLoopLocked() {
	if q.loopStarted {
		return
	}
	q.loopStarted = true
	q.waitCh = make(chan waitEntry[K], waitBuffer)
	q.stopCh = make(chan struct{})
	in, stop := q.waitCh, q.stopCh
	q.loop.Go(func() { q.delayLoop(in, stop) })
}

// delayLoop owns the waiting items and the one timer. It receives delayed
// adds from in, adds each item to the queue when its deadline passes, and
// returns when stop is closed. The queue's lock is taken only to add items
// that are ready, once per batch.
func (q *Queue[K]) delayLoop(in <-chan waitEntry[K], stop <-chan struct{}) {
	w := waiting[K]{index: make(map[K]int32), free: -1}
	var (
		timer  *time.Timer
		timerC <-chan time.Time // nil while the timer is not armed
		armed  int64            // the deadline the timer is armed for, valid while timerC != nil
		ready  []waitEntry[K]   // reused batch of items to add
	)
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		select {
		case <-stop:
			return
		case <-timerC:
			timerC = nil
		case e := <-in:
			w.insert(e)
			// Take what is already buffered, so a burst costs one timer
			// update. Only this goroutine receives, so this cannot block.
			for range len(in) {
				w.insert(<-in)
			}
		}
		if len(w.heap) == 0 || (timerC != nil && w.heap[0].readyAt == armed) {
			continue
		}
		now := q.now()
		if w.heap[0].readyAt <= now {
			ready = w.popReady(now, ready[:0])
			q.addReady(ready)
			clear(ready) // drop references to the items
			if len(w.heap) == 0 {
				continue // an armed timer fires once more, harmlessly
			}
		}
		armed = w.heap[0].readyAt
		if timer == nil {
			timer = time.NewTimer(time.Duration(armed - now))
		} else {
			timer.Reset(time.Duration(armed - now))
		}
		timerC = timer.C
	}
}

// addReady adds a batch of items whose deadline has passed, under one lock.
func (q *Queue[K]) addReady(batch []waitEntry[K]) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	for _, e := range batch {
		q.addLocked(e.item, e.prio)
	}
}

// waiting is the set of delayed items, owned by the delay goroutine: a
// min-heap on deadline (container/heap) of small slots that point into a
// slab of nodes, plus an index by item to keep one entry per item.
//
// Invariants: index[k] == i iff nodes[i] is in use and holds k;
// heap[nodes[i].pos].node == i for every node in use.
type waiting[K comparable] struct {
	heap  []waitSlot
	nodes []waitNode[K]
	index map[K]int32
	free  int32 // first free node, linked through waitNode.pos; -1 if none
}

type waitSlot struct {
	readyAt int64 // kept here, not in the node, so comparisons stay in the heap's memory
	node    int32
}

type waitNode[K comparable] struct {
	item K
	prio int
	pos  int32 // index in heap while in use; next free node while free
}

// insert adds e, or, if its item is already waiting, keeps the earlier
// deadline and the higher priority. O(log n).
func (w *waiting[K]) insert(e waitEntry[K]) {
	if i, ok := w.index[e.item]; ok {
		n := &w.nodes[i]
		n.prio = max(n.prio, e.prio)
		if s := &w.heap[n.pos]; e.readyAt < s.readyAt {
			s.readyAt = e.readyAt
			heap.Fix(w, int(n.pos))
		}
		return
	}
	var i int32
	if w.free >= 0 {
		i = w.free
		w.free = w.nodes[i].pos
		w.nodes[i] = waitNode[K]{item: e.item, prio: e.prio}
	} else {
		w.nodes = appendDoubling(w.nodes, waitNode[K]{item: e.item, prio: e.prio})
		i = int32(len(w.nodes) - 1)
	}
	w.index[e.item] = i
	// Append and fix rather than heap.Push, whose any argument would
	// allocate for every item.
	w.nodes[i].pos = int32(len(w.heap))
	w.heap = appendDoubling(w.heap, waitSlot{readyAt: e.readyAt, node: i})
	heap.Fix(w, len(w.heap)-1)
}

// popReady removes every item whose deadline is at or before now, appends
// them to dst in deadline order, and returns dst. O(k log n) for k items.
func (w *waiting[K]) popReady(now int64, dst []waitEntry[K]) []waitEntry[K] {
	for len(w.heap) > 0 && w.heap[0].readyAt <= now {
		s := w.heap[0]
		last := len(w.heap) - 1
		w.Swap(0, last)
		w.heap = w.heap[:last]
		if last > 0 {
			heap.Fix(w, 0)
		}
		n := &w.nodes[s.node]
		dst = append(dst, waitEntry[K]{item: n.item, readyAt: s.readyAt, prio: n.prio})
		delete(w.index, n.item)
		*n = waitNode[K]{pos: w.free}
		w.free = s.node
	}
	return dst
}

// heap.Interface. Push and Pop are there to satisfy it; insert and popReady
// use Fix instead.

func (w *waiting[K]) Len() int           { return len(w.heap) }
func (w *waiting[K]) Less(a, b int) bool { return w.heap[a].readyAt < w.heap[b].readyAt }
func (w *waiting[K]) Swap(a, b int) {
	w.heap[a], w.heap[b] = w.heap[b], w.heap[a]
	w.nodes[w.heap[a].node].pos = int32(a)
	w.nodes[w.heap[b].node].pos = int32(b)
}
func (w *waiting[K]) Push(x any) {
	s := x.(waitSlot)
	w.nodes[s.node].pos = int32(len(w.heap))
	w.heap = append(w.heap, s)
}
func (w *waiting[K]) Pop() any {
	s := w.heap[len(w.heap)-1]
	w.heap = w.heap[:len(w.heap)-1]
	return s
}
