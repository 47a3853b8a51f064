// SPDX-License-Identifier: Apache-2.0

// Package ctlstate keeps the books of the controllers kubetest runs
// inside its server (package gc's garbage collector and package
// nscontroller's namespace controller): the [Queue] of work the writes
// set off, and the [Index] of owners to their dependents that tells
// whose owner a deletion was. The server fills both from every commit
// and removal and empties the queue before the write that set it off
// releases the lock; what each piece of work does is the controllers'.
//
// Guarantees:
//   - The zero values are ready to use.
//   - An item is queued at most once at a time, and the queue is run in
//     the order items were added, the work it adds included.
//   - [Queue.Run] ends after a bounded number of steps, dropping what is
//     left (a cycle of owners cannot hold the server for ever).
//   - [Index.Dependents] is sorted: the same writes always give the same
//     sequence of controller work.
//
// Neither is safe for concurrent use: the server holds its lock.
package ctlstate

import (
	"maps"
	"slices"
	"strings"
)

// Op is a kind of queued controller work.
type Op uint8

const (
	// Collect: the garbage collector looks at an object that has owners,
	// one of which may be gone or deleting in the foreground.
	Collect Op = iota
	// Owner: the garbage collector looks at an object marked deleting
	// with the orphan or foregroundDeletion finalizer.
	Owner
	// Namespace: the namespace controller looks at a namespace.
	Namespace
)

// Item is one piece of queued work: an object by its collection's key
// and its key in it (the name, for Namespace).
type Item struct {
	Op       Op
	Col, Key string
}

// Queue holds the work not done yet.
type Queue struct {
	// items holds the work not done yet, in the order it was asked for;
	// queued holds the same items, so that each is queued once.
	items  []Item
	queued map[Item]bool
	// running is set while Run empties the queue, so that the work it
	// does only adds to it.
	running bool
}

// Add queues it unless it is queued already.
func (q *Queue) Add(it Item) {
	if q.queued[it] {
		return
	}
	if q.queued == nil {
		q.queued = map[Item]bool{}
	}
	q.queued[it] = true
	q.items = append(q.items, it)
}

// Run does the queued work with do, and the work do queues, until none is
// left or maxSteps items were done; it drops what is left then and
// returns how many it dropped. A Run called from do returns at once. It
// costs nothing when nothing was queued.
func (q *Queue) Run(maxSteps int, do func(Item)) (dropped int) {
	if q.running || len(q.items) == 0 {
		return 0
	}
	q.running = true
	defer func() { q.running = false }()
	for steps := 0; len(q.items) > 0 && steps < maxSteps; steps++ {
		it := q.items[0]
		q.items[0] = Item{}
		q.items = q.items[1:]
		delete(q.queued, it)
		do(it)
	}
	dropped = len(q.items)
	if dropped > 0 {
		q.items = nil
		clear(q.queued)
	}
	return dropped
}

// Ref names a stored object: its collection's key and its key.
type Ref struct{ Col, Key string }

// Index maps the uid of an owner to the objects whose ownerReferences
// name that uid: the garbage collector's graph.
type Index struct {
	dependents map[string]map[Ref]struct{}
}

// Update records that ref's owners (by uid) were prev and are now owners
// (nil when ref is gone).
func (x *Index) Update(ref Ref, prev, owners []string) {
	for _, uid := range prev {
		if deps := x.dependents[uid]; deps != nil {
			delete(deps, ref)
			if len(deps) == 0 {
				delete(x.dependents, uid)
			}
		}
	}
	for _, uid := range owners {
		if x.dependents == nil {
			x.dependents = map[string]map[Ref]struct{}{}
		}
		deps := x.dependents[uid]
		if deps == nil {
			deps = map[Ref]struct{}{}
			x.dependents[uid] = deps
		}
		deps[ref] = struct{}{}
	}
}

// Dependents returns the objects that name uid as an owner, sorted by
// collection and key.
func (x *Index) Dependents(uid string) []Ref {
	return slices.SortedFunc(maps.Keys(x.dependents[uid]), func(a, b Ref) int {
		return strings.Compare(a.Col+"\x00"+a.Key, b.Col+"\x00"+b.Key)
	})
}
