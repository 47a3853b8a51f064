// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
)

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
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
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

// Whole states are walked in key order to notify handlers: by
// namespace, then by name, in the order the API server lists them (etcd's
// order of the keys "namespace/name", byte by byte).

// sortedKeys returns the keys of a and b, each once, sorted by compare
// (strings.Compare for names, compareNamespaces for namespaces). The
// cost is O(n log n) for n keys, and a slice of them.
func sortedKeys[V any](a, b map[string]V, compare func(x, y string) int) []string {
	n := len(a)
	for k := range b {
		if _, ok := a[k]; !ok {
			n++
		}
	}
	keys := make([]string, 0, n)
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, compare)
	return keys
}

// compareNamespaces orders namespaces as their keys "namespace/name" are
// ordered: a namespace that is a prefix of another ("a", "a-b") compares
// the "/" after it with the other's next byte ("a-b/x" < "a/x").
func compareNamespaces(x, y string) int {
	n := min(len(x), len(y))
	if c := strings.Compare(x[:n], y[:n]); c != 0 || len(x) == len(y) {
		return c
	}
	if len(x) == n {
		return cmp.Compare('/', y[n])
	}
	return cmp.Compare(x[n], '/')
}
