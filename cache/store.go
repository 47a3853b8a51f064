// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"maps"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// IndexFunc returns the values under which an index files an object, for
// example its owners' UIDs or a spec field. It must be a pure function of
// the object: the store calls it again on the old object when the object
// changes or goes, to find where it was filed.
type IndexFunc func(obj kube.Object) []string

// entry is one stored object.
type entry struct {
	obj kube.Object
	// size is the approximate number of bytes obj was decoded from.
	size int32
}

// state is the content of a store: what a relist builds and what replace
// swaps in whole.
type state struct {
	// objects maps namespace ("" for cluster-scoped objects) to name to
	// entry; an inner map is deleted when it becomes empty. The namespace
	// level is also the built-in namespace index.
	objects map[string]map[string]entry
	count   int   // number of entries in objects
	bytes   int64 // sum of the entries' sizes
	// indexes maps index name to value to the keys filed under it. It has
	// exactly one map per indexer of the store (once swapped in), and no
	// empty value sets.
	indexes map[string]map[string]map[kube.Key]struct{}
}

func newState() *state {
	return &state{objects: map[string]map[string]entry{}, indexes: map[string]map[string]map[kube.Key]struct{}{}}
}

// add stores obj, returning the entry it replaced. It does not touch the
// indexes; see store.put.
func (s *state) add(obj kube.Object, size int32) (entry, bool) {
	m := obj.GetObjectMeta()
	names := s.objects[m.Namespace]
	if names == nil {
		names = map[string]entry{}
		s.objects[m.Namespace] = names
	}
	old, ok := names[m.Name]
	names[m.Name] = entry{obj: obj, size: size}
	if ok {
		s.bytes -= int64(old.size)
	} else {
		s.count++
	}
	s.bytes += int64(size)
	return old, ok
}

func (s *state) remove(key kube.Key) (entry, bool) {
	names := s.objects[key.Namespace]
	old, ok := names[key.Name]
	if !ok {
		return entry{}, false
	}
	delete(names, key.Name)
	if len(names) == 0 {
		delete(s.objects, key.Namespace)
	}
	s.count--
	s.bytes -= int64(old.size)
	return old, true
}

func (s *state) get(key kube.Key) (entry, bool) {
	e, ok := s.objects[key.Namespace][key.Name]
	return e, ok
}

// index files obj under every value fn returns in index name.
func (s *state) index(name string, fn IndexFunc, obj kube.Object) {
	values := fn(obj)
	if len(values) == 0 {
		return
	}
	idx := s.indexes[name]
	key := obj.GetObjectMeta().Key()
	for _, v := range values {
		keys := idx[v]
		if keys == nil {
			keys = map[kube.Key]struct{}{}
			idx[v] = keys
		}
		keys[key] = struct{}{}
	}
}

// unindex undoes index for obj.
func (s *state) unindex(name string, fn IndexFunc, obj kube.Object) {
	idx := s.indexes[name]
	key := obj.GetObjectMeta().Key()
	for _, v := range fn(obj) {
		if keys := idx[v]; keys != nil {
			delete(keys, key)
			if len(keys) == 0 {
				delete(idx, v)
			}
		}
	}
}

// store is a thread-safe map of objects by key with indexes. Objects are
// never modified once stored: a change replaces the stored pointer, so a
// reader holding an object sees a consistent (if stale) snapshot of it.
// The store owns its objects; readers must not modify them.
//
// Costs: get O(1); put and remove O(1) plus the index funcs; listing a
// namespace O(objects in it); byIndex O(matches); replace O(n · index
// funcs) outside the lock and O(1) under it.
type store struct {
	mu sync.RWMutex
	// cur is the live state. Replaced whole by replace; mutated in place
	// by put and remove, under mu.
	cur *state
	// indexers are the registered index funcs by name; cur.indexes has a
	// map for each. Guarded by mu.
	indexers map[string]IndexFunc
}

func newStore() *store {
	return &store{cur: newState(), indexers: map[string]IndexFunc{}}
}

// addIndex registers an index and files the stored objects in it.
func (s *store) addIndex(name string, fn IndexFunc) error {
	if fn == nil {
		return fmt.Errorf("add index %q: index func is nil", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.indexers[name]; ok {
		return fmt.Errorf("add index %q: an index of that name exists", name)
	}
	s.indexers[name] = fn
	s.cur.indexes[name] = map[string]map[kube.Key]struct{}{}
	for _, names := range s.cur.objects {
		for _, e := range names {
			s.cur.index(name, fn, e.obj)
		}
	}
	return nil
}

// put stores obj and returns the object it replaced, if any.
func (s *store) put(obj kube.Object, size int32) (kube.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.cur.add(obj, size)
	for name, fn := range s.indexers {
		if ok {
			s.cur.unindex(name, fn, old.obj)
		}
		s.cur.index(name, fn, obj)
	}
	return old.obj, ok
}

// remove deletes the object at key and returns it, if there was one.
func (s *store) remove(key kube.Key) (kube.Object, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, ok := s.cur.remove(key)
	if ok {
		for name, fn := range s.indexers {
			s.cur.unindex(name, fn, old.obj)
		}
	}
	return old.obj, ok
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
		for name, fn := range s.indexers {
			s.cur.unindex(name, fn, e.obj)
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
		for name, fn := range s.indexers {
			s.cur.index(name, fn, e.obj)
		}
	}
	s.cur.count += next.count
	s.cur.bytes += next.bytes
	return old
}

// buildIndexes fills the indexes of st that it lacks.
func buildIndexes(st *state, indexers map[string]IndexFunc) {
	for name, fn := range indexers {
		if _, ok := st.indexes[name]; ok {
			continue
		}
		st.indexes[name] = map[string]map[kube.Key]struct{}{}
		for _, names := range st.objects {
			for _, e := range names {
				st.index(name, fn, e.obj)
			}
		}
	}
}

// get returns the object at key.
func (s *store) get(key kube.Key) (kube.Object, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.cur.get(key)
	return e.obj, ok
}

// each calls fn for every object in namespace ns (every namespace when
// all is set) until fn returns false. It holds the read lock throughout:
// fn must be quick and must not call the store's writers.
func (s *store) each(ns string, all bool, fn func(kube.Object) bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	eachIn(s.cur, ns, all, fn)
}

func eachIn(st *state, ns string, all bool, fn func(kube.Object) bool) {
	if !all {
		for _, e := range st.objects[ns] {
			if !fn(e.obj) {
				return
			}
		}
		return
	}
	for _, names := range st.objects {
		for _, e := range names {
			if !fn(e.obj) {
				return
			}
		}
	}
}

// byIndex calls fn for every object filed under value in index name,
// until fn returns false, under the read lock as each does.
func (s *store) byIndex(name, value string, fn func(kube.Object) bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.cur.indexes[name]
	if !ok {
		return fmt.Errorf("no index named %q", name)
	}
	for key := range idx[value] {
		if e, ok := s.cur.get(key); ok && !fn(e.obj) {
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
