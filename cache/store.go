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
	// v is the object: a kube.Object, or a *packed in a compact store
	// (see codec). Read it with codec.load.
	v any
	// size is the approximate number of bytes the object takes: the size
	// of the JSON it was decoded from, or of its packed JSON.
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
	// codec packs the objects added, in a compact store; nil keeps them
	// decoded.
	codec *codec
}

func newState(c *codec) *state {
	return &state{objects: map[string]map[string]entry{}, indexes: map[string]map[string]map[kube.Key]struct{}{}, codec: c}
}

// add stores obj (packed, in a compact store), returning the entry it
// replaced. obj must not be modified afterwards. It does not touch the
// indexes; see store.put.
func (s *state) add(obj kube.Object, size int32) (entry, bool) {
	return s.addPacked(s.codec.pack(obj, size))
}

// addPacked is add for what codec.pack returned.
func (s *state) addPacked(v any, key kube.Key, size int32) (entry, bool) {
	names := s.objects[key.Namespace]
	if names == nil {
		names = map[string]entry{}
		s.objects[key.Namespace] = names
	}
	old, ok := names[key.Name]
	names[key.Name] = entry{v: v, size: size}
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

// unindexAll undoes index for obj in every index.
func (s *state) unindexAll(indexers map[string]IndexFunc, obj kube.Object) {
	for name, fn := range indexers {
		s.unindex(name, fn, obj)
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
}

func newStore(c *codec) *store {
	return &store{codec: c, cur: newState(c), indexers: map[string]IndexFunc{}}
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

// buildIndexes fills the indexes of st that it lacks.
func buildIndexes(st *state, indexers map[string]IndexFunc) {
	for name, fn := range indexers {
		if _, ok := st.indexes[name]; ok {
			continue
		}
		st.indexes[name] = map[string]map[kube.Key]struct{}{}
		for _, names := range st.objects {
			for _, e := range names {
				st.index(name, fn, st.codec.load(e.v))
			}
		}
	}
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

// byIndex calls fn with the stored value of every object filed under
// value in index name, until fn returns false, under the read lock as each
// does.
func (s *store) byIndex(name, value string, fn func(v any) bool) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	idx, ok := s.cur.indexes[name]
	if !ok {
		return fmt.Errorf("no index named %q", name)
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
