// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// This file turns the server's JSON into stored objects: decode, stamp the
// kind, transform, intern. The raw JSON is not kept.

// DropManagedFields is a transform (see [InformerOptions.Transform]) that
// drops metadata.managedFields, often the largest part of an object's
// metadata and rarely read by controllers.
func DropManagedFields(obj kube.Object) {
	obj.GetObjectMeta().ManagedFields = nil
}

// decode decodes the object of a watch event (through the watcher's
// decoder, reused from event to event: see [kube.WatchEvent.Decode]) and
// prepares it for the store. The size returned is the length of its JSON,
// the object's share of the cache's byte count.
func (i *informer) decode(ev *kube.WatchEvent) (kube.Object, int32, error) {
	obj := i.newObj()
	if err := ev.Decode(obj); err != nil {
		return nil, 0, fmt.Errorf("decode %s: %w", i.gvk.Kind, err)
	}
	i.prepare(obj)
	return obj, int32(min(len(ev.Object), 1<<31-1)), nil
}

// prepare stamps the informer's kind on obj (list items and the metadata
// projection do not carry it; watch events do, but then every object
// would hold its own copy of the strings), applies the transform and
// interns the metadata's repeated strings.
func (i *informer) prepare(obj kube.Object) {
	if s, ok := obj.(interface{ SetGroupVersionKind(kube.GroupVersionKind) }); ok {
		s.SetGroupVersionKind(i.gvk)
	}
	if i.opts.Transform != nil {
		i.opts.Transform(obj)
	}
	i.intern.meta(obj.GetObjectMeta())
}

// interner hands out one copy of each string it is given, so that strings
// that repeat across objects (namespaces, label keys and values, owner
// kinds, finalizers) are stored once. It holds at most maxInterned strings
// and forgets them all when full: strings already handed out stay shared,
// and a table filled with one-off values (a label holding an index) does
// not grow without bound. A nil *interner interns nothing.
type interner struct {
	mu sync.Mutex
	// strings maps each string to its one copy (itself).
	strings map[string]string
}

// Interner bounds: the table size, and the longest string worth interning
// (label values are at most 63 bytes; longer strings rarely repeat).
const (
	maxInterned     = 4096
	maxInternLength = 64
)

func newInterner() *interner { return &interner{strings: map[string]string{}} }

// str returns the interned copy of s. Call with in.mu held.
func (in *interner) str(s string) string {
	if s == "" || len(s) > maxInternLength {
		return s
	}
	if v, ok := in.strings[s]; ok {
		return v
	}
	if len(in.strings) >= maxInterned {
		clear(in.strings)
	}
	in.strings[s] = s
	return s
}

// meta interns the strings of m that tend to repeat. Assigning to a map
// key that is present replaces the key too (the runtime updates string
// keys), so label keys are shared as well as values.
func (in *interner) meta(m *kube.ObjectMeta) {
	if in == nil {
		return
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	m.Namespace = in.str(m.Namespace)
	m.GenerateName = in.str(m.GenerateName)
	for k, v := range m.Labels {
		m.Labels[in.str(k)] = in.str(v)
	}
	for k, v := range m.Annotations {
		m.Annotations[in.str(k)] = in.str(v)
	}
	for j := range m.OwnerReferences {
		r := &m.OwnerReferences[j]
		r.APIVersion, r.Kind = in.str(r.APIVersion), in.str(r.Kind)
	}
	for j, f := range m.Finalizers {
		m.Finalizers[j] = in.str(f)
	}
}
