// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"github.com/kubeloop/kubeloop/internal/errs"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// IndexFunc returns the values under which an index files an object, for
// example its owners' UIDs or a spec field. It must be a pure function of
// the object: the store calls it again on the old object when the object
// changes or goes, to find where it was filed.
type IndexFunc func(obj kube.Object) []string

// store is a thread-safe map of objects by key with indexes. Objects are
// never modified once stored: a change replaces the stored pointer, so a
// reader holding an object sees a consistent (if stale) snapshot of it.
// The store owns its objects; readers must not modify them. Its objects
// change only under the lock of the informer's hub (hub.go), which
// orders each change with the notifications it causes: through a sink,
// the shard set, or a change of scope; indexes are added with addIndex.
//
// Costs: get O(1); put and remove O(1) plus the index funcs; listing a
// namespace O(objects in it); byIndex O(matches); replace O(n · index
// funcs) outside the lock and O(1) under it. A compact store adds a
// decode for every object read (outside the lock for get and run), and
// for the old object of a put or remove when there are indexes.
type store struct {
	// codec is nil, or the codec of a compact store.
	codec *codec

	mu sync.RWMutex
	// cur is the live state. Replaced whole by replace; mutated in place
	// by put and remove, under mu.
	cur *state
	// indexers are the registered index funcs by name; cur.indexes has a
	// map for each. Guarded by mu.
	indexers map[string]IndexFunc
	// scope are the namespaces the informer is limited to (empty for
	// all), read with informer.scope; replaced whole, never modified.
	// Guarded by mu.
	scope []string
}

func newStore(c *codec) *store {
	return &store{codec: c, cur: newState(c), indexers: map[string]IndexFunc{}}
}

// addIndex registers an index and files the stored objects in it.
func (s *store) addIndex(name string, fn IndexFunc) error {
	if fn == nil {
		return errs.Errorf("add index %q: index func is nil", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.indexers[name]; ok {
		return errs.Errorf("add index %q: an index of that name exists", name)
	}
	s.indexers[name] = fn
	s.cur.indexes[name] = map[string]map[kube.Key]struct{}{}
	for _, names := range s.cur.objects {
		for _, e := range names {
			s.cur.index(name, fn, s.codec.load(e.v))
		}
	}
	return nil
}

// put stores obj (packed, in a compact store, before the lock is taken);
// obj must not be modified afterwards.
func (s *store) put(obj kube.Object, size int32) {
	v, key, size := s.codec.pack(obj, size)
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.cur.addPacked(v, key, size)
	if ok && len(s.indexers) > 0 {
		s.cur.unindexAll(s.indexers, s.codec.load(old.v))
	}
	for name, fn := range s.indexers {
		s.cur.index(name, fn, obj)
	}
}

// remove deletes the object at key and reports whether there was one.
func (s *store) remove(key kube.Key) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.cur.remove(key)
	if ok && len(s.indexers) > 0 {
		s.cur.unindexAll(s.indexers, s.codec.load(old.v))
	}
	return ok
}

// replace swaps next in as the store's content and returns the content it
// replaced, which the caller then owns. next must not be used by anyone
// else. Readers see either the old content or the new, never a mix. The
// indexes of next are built before the lock is taken, except for an index
// added in the meantime.
func (s *store) replace(next *state) *state {
	s.mu.RLock()
	indexers := maps.Clone(s.indexers)
	s.mu.RUnlock()
	buildIndexes(next, indexers)

	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.indexers) != len(indexers) {
		buildIndexes(next, s.indexers) // an index was added while we built
	}
	old := s.cur
	s.cur = next
	return old
}

// replaceNamespace swaps the objects of namespace ns for those next holds
// there (next must hold no other namespace) and returns the objects it
// replaced, which the caller then owns. Readers see either the old objects
// or the new, never a mix. The cost under the lock is O(1) without
// indexes, else O(old + new objects of ns · index funcs).
func (s *store) replaceNamespace(ns string, next *state) map[string]entry {
	names := next.objects[ns]
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.cur.objects[ns]
	for _, e := range old {
		if len(s.indexers) > 0 {
			s.cur.unindexAll(s.indexers, s.codec.load(e.v))
		}
		s.cur.count--
		s.cur.bytes -= int64(e.size)
	}
	if len(names) == 0 {
		delete(s.cur.objects, ns)
	} else {
		s.cur.objects[ns] = names
	}
	for _, e := range names {
		if len(s.indexers) > 0 {
			obj := s.codec.load(e.v)
			for name, fn := range s.indexers {
				s.cur.index(name, fn, obj)
			}
		}
	}
	s.cur.count += next.count
	s.cur.bytes += next.bytes
	return old
}

// get returns the object at key (in a compact store a new one, decoded
// outside the lock).
func (s *store) get(key kube.Key) (kube.Object, bool) {
	s.mu.RLock()
	e, ok := s.cur.get(key)
	s.mu.RUnlock()
	if !ok {
		return nil, false
	}
	return s.codec.load(e.v), true
}

// each calls fn with the stored value (entry.v: read it with codec.load)
// of every object in namespace ns (every namespace when all is set) until
// fn returns false. It holds the read lock throughout: fn must be quick
// and must not call the store's writers.
func (s *store) each(ns string, all bool, fn func(v any) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if !all {
		for _, e := range s.cur.objects[ns] {
			if !fn(e.v) {
				return
			}
		}
		return
	}
	for _, names := range s.cur.objects {
		for _, e := range names {
			if !fn(e.v) {
				return
			}
		}
	}
}

// eachInOrder calls fn with the stored value of every object, in key
// order (by namespace, then by name, as the API server lists; see
// sortedKeys), until fn returns false, under the
// read lock as each does. The cost is O(n log n) (the sort of the keys).
func (s *store) eachInOrder(fn func(v any) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, ns := range sortedKeys(s.cur.objects, nil, compareNamespaces) {
		names := s.cur.objects[ns]
		for _, name := range sortedKeys(names, nil, strings.Compare) {
			if !fn(names[name].v) {
				return
			}
		}
	}
}

// byIndex calls fn with the stored value of every object filed under
// value in index name, until fn returns false, under the read lock as each
// does.
func (s *store) byIndex(name, value string, fn func(v any) bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.cur.indexes[name]
	if !ok {
		return errs.Errorf("no index named %q", name)
	}
	for key := range idx[value] {
		if e, ok := s.cur.get(key); ok && !fn(e.v) {
			return nil
		}
	}
	return nil
}

// keys returns the keys of every stored object; the caller owns the slice.
func (s *store) keys() []kube.Key {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]kube.Key, 0, s.cur.count)
	for ns, names := range s.cur.objects {
		for name := range names {
			out = append(out, kube.Key{Namespace: ns, Name: name})
		}
	}
	return out
}

// size returns the number of objects and their approximate bytes.
func (s *store) size() (objects int, bytes int64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.cur.count, s.cur.bytes
}

// setScope limits the store to namespaces (empty: all), dropping the
// objects of the others, as one change readers see whole, and returns
// how many it dropped. The cost is O(objects dropped · index funcs).
func (s *store) setScope(namespaces []string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scope = namespaces
	n := 0
	for ns, names := range s.cur.objects {
		if len(namespaces) == 0 || slices.Contains(namespaces, ns) {
			continue
		}
		for _, e := range names {
			if len(s.indexers) > 0 {
				s.cur.unindexAll(s.indexers, s.codec.load(e.v))
			}
			s.cur.count--
			s.cur.bytes -= int64(e.size)
			n++
		}
		delete(s.cur.objects, ns)
	}
	return n
}

// clear drops every stored object, keeping the indexes (empty).
func (s *store) clear() {
	next := newState(s.codec)
	s.mu.Lock()
	defer s.mu.Unlock()
	for name := range s.indexers {
		next.indexes[name] = map[string]map[kube.Key]struct{}{}
	}
	s.cur = next
}

// swapKeys removes the objects at keys and adds next's, as one change
// readers see whole, and returns what it removed, which the caller then
// owns. The cost under the lock is O((removed + added) · index funcs).
func (s *store) swapKeys(keys []kube.Key, next *state) *state {
	prev := newState(s.codec)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range keys {
		old, ok := s.cur.remove(k)
		if !ok {
			continue
		}
		if len(s.indexers) > 0 {
			s.cur.unindexAll(s.indexers, s.codec.load(old.v))
		}
		prev.addPacked(old.v, k, old.size)
	}
	for ns, names := range next.objects {
		for name, e := range names {
			k := kube.Key{Namespace: ns, Name: name}
			if old, ok := s.cur.addPacked(e.v, k, e.size); ok && len(s.indexers) > 0 {
				s.cur.unindexAll(s.indexers, s.codec.load(old.v)) // defensive: keys holds every stored key of next
			}
			if len(s.indexers) > 0 {
				obj := s.codec.load(e.v)
				for name, fn := range s.indexers {
					s.cur.index(name, fn, obj)
				}
			}
		}
	}
	return prev
}
