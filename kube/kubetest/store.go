// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
)

// This file is the storage: immutable records, one collection per resource
// (all versions share it), and the bounded event history that watches
// resume from and Exact lists rewind through. Everything here is guarded by
// Server.mu.

// record is one stored state of an object. A record is never modified after
// it is stored: a write stores a new record, so readers may keep and share
// records without copying.
type record struct {
	// key is "namespace/name" or "name", the order of lists and the start
	// of continue tokens, as etcd keys order them.
	key                  string
	namespace, name, uid string
	rv                   uint64
	labels               map[string]string
	// fields holds the values of the field selectors the kind supports.
	fields map[string]string
	// deleting says metadata.deletionTimestamp is set.
	deleting bool
	// owners holds metadata.ownerReferences, nil when there are none.
	owners []gc.Owner
	// orphan and foreground say metadata.finalizers holds the garbage
	// collector's orphan and foregroundDeletion finalizers; gcFinalizer
	// says either does.
	orphan, foreground, gcFinalizer bool
	// raw is the object as served at the storage version; "{" + raw[tm:]
	// is the object without kind and apiVersion.
	raw []byte
	tm  int
}

// event is one change of a collection.
type event struct {
	typ string // "ADDED", "MODIFIED" or "DELETED"
	rv  uint64
	// obj is the new state; for DELETED it is the last state carrying the
	// deletion's resourceVersion.
	obj *record
	// prev is the state before the change; nil for ADDED.
	prev *record
}

// collection stores the objects of one resource.
type collection struct {
	objects map[string]*record
	// sorted holds the keys of objects in order; nil when a key was added
	// or removed since it was built.
	sorted []string

	// hist is a ring of the latest events, oldest at hist[head]; n events
	// are held, at most len(hist).
	hist    []*event
	head, n int
	// evicted says an event fell out of hist since floor was set.
	evicted bool
	// floor is the oldest resourceVersion a watch may resume from (and an
	// Exact list read at) while no event has been evicted: the
	// resourceVersion at which the collection was made or compacted.
	floor uint64

	watchers map[*watcher]struct{}
}

func newCollection(historySize int, floor uint64) *collection {
	return &collection{
		objects:  map[string]*record{},
		hist:     make([]*event, historySize),
		floor:    floor,
		watchers: map[*watcher]struct{}{},
	}
}

func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}

// keys returns the keys in order. The caller must not modify the result.
// The cost is O(n log n) after a key was added or removed, O(1) otherwise.
func (c *collection) keys() []string {
	if c.sorted == nil {
		c.sorted = make([]string, 0, len(c.objects))
		for k := range c.objects {
			c.sorted = append(c.sorted, k)
		}
		slices.Sort(c.sorted)
	}
	return c.sorted
}

// apply records e: the objects change and the event enters the history,
// evicting the oldest when the history is full.
func (c *collection) apply(e *event) {
	key := e.obj.key
	switch e.typ {
	case "ADDED":
		c.objects[key] = e.obj
		c.sorted = nil
	case "MODIFIED":
		c.objects[key] = e.obj
	case "DELETED":
		delete(c.objects, key)
		c.sorted = nil
	}
	if len(c.hist) == 0 {
		c.evicted = true
		return
	}
	if c.n == len(c.hist) {
		c.hist[c.head] = e
		c.head = (c.head + 1) % len(c.hist)
		c.evicted = true
		return
	}
	c.hist[(c.head+c.n)%len(c.hist)] = e
	c.n++
}

// event returns the i-th held event, oldest first.
func (c *collection) event(i int) *event { return c.hist[(c.head+i)%len(c.hist)] }

// oldest is the oldest resourceVersion the history can serve from: a watch
// or an Exact list at a lower version is answered 410 (the second number of
// "too old resource version: X (Y)", computed as the watch cache does).
func (c *collection) oldest(current uint64) uint64 {
	if !c.evicted {
		return c.floor
	}
	if c.n == 0 {
		return current
	}
	return c.event(0).rv - 1
}

// since returns the events after rv, oldest first, and false when rv is
// older than the history holds.
func (c *collection) since(rv, current uint64) ([]*event, bool) {
	if rv < c.oldest(current) {
		return nil, false
	}
	i := c.n
	for i > 0 && c.event(i-1).rv > rv {
		i--
	}
	out := make([]*event, 0, c.n-i)
	for ; i < c.n; i++ {
		out = append(out, c.event(i))
	}
	return out, true
}

// at returns the objects as they were at rv, sorted by key, by undoing the
// events after rv; false when rv is older than the history holds. The cost
// is O(n log n + events since rv).
func (c *collection) at(rv, current uint64) ([]*record, bool) {
	evs, ok := c.since(rv, current)
	if !ok {
		return nil, false
	}
	if len(evs) == 0 {
		out := make([]*record, 0, len(c.objects))
		for _, k := range c.keys() {
			out = append(out, c.objects[k])
		}
		return out, true
	}
	state := make(map[string]*record, len(c.objects))
	for k, r := range c.objects {
		state[k] = r
	}
	for i := len(evs) - 1; i >= 0; i-- {
		e := evs[i]
		if e.prev == nil {
			delete(state, e.obj.key)
		} else {
			state[e.obj.key] = e.prev
		}
	}
	out := make([]*record, 0, len(state))
	for _, r := range state {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *record) int { return strings.Compare(a.key, b.key) })
	return out, true
}

// compact drops the history: watches and Exact lists from before current
// answer 410 from now on.
func (c *collection) compact(current uint64) {
	clear(c.hist)
	c.head, c.n = 0, 0
	c.evicted = false
	c.floor = current
}

// filter selects objects for a list or a watch.
type filter struct {
	namespace string // empty for all namespaces
	labels    kube.Selector
	fields    kube.FieldSelector
	shard     kube.ShardSelector // see shard.go
	// shardCounted says a page shard filters still counts the remaining
	// items (1.36, minor.go).
	shardCounted bool
}

// empty reports whether the filter selects by label or field (a namespace
// alone does not count: remainingItemCount is still known).
func (f *filter) empty() bool { return f.labels.Empty() && f.fields.Empty() }

func (f *filter) matches(r *record) bool {
	if r == nil {
		return false
	}
	if f.namespace != "" && r.namespace != f.namespace {
		return false
	}
	return f.labels.Matches(r.labels) && f.fields.Matches(r.fields) && shardMatches(f.shard, r)
}
