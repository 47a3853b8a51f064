// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubeloop/kubeloop/kube"
)

// This file remembers the writes of this process's client that the
// cache may not hold yet (see "Reading your own writes" in the package
// doc). The client reports each write the server answered
// ([Cache.RecordWrite], wired to kube.ClientOptions.OnWrite); reads and
// controllers ask whether the informers have read past it (fresh.go).
// A record is dropped once an informer is seen to hold it, so what is
// kept is bounded by the writes not yet seen.

// written is the last write to one object that the cache has not been
// seen to hold.
type written struct {
	// rv is the answer's resourceVersion as a number; 0 for a delete
	// answered without one.
	rv uint64
	// opaque is set when the answer's resourceVersion is not a decimal
	// integer: no wait can tell when it is seen.
	opaque bool
	// deleted is set for a delete: seen once the object is gone from the
	// cache, or cached with a deletionTimestamp at rv or later.
	deleted bool
	// labels are the object's labels as written, so that a List by
	// label waits only for the writes that may change its answer.
	labels map[string]string
}

// objectKey names one object of one kind.
type objectKey struct {
	gvk kube.GroupVersionKind
	key kube.Key
}

// scope is one kind in one namespace ("" for a cluster-scoped kind).
type scope struct {
	gvk kube.GroupVersionKind
	ns  string
}

// ownerKey names an owner as an owner reference does: kind and name (the
// namespace is the owned object's, or none for a cluster-scoped owner).
type ownerKey struct {
	gvk  kube.GroupVersionKind
	name string
}

// writes is what a Cache remembers of its client's writes.
type writes struct {
	// count is the number of records in the maps below, read without mu
	// so that a read when nothing is pending costs one atomic load.
	count atomic.Int64

	mu sync.Mutex
	// objects is the last write to each object: what a Get of it waits
	// for, and a List that may include it.
	objects map[objectKey]written
	// owned is, for each owner, the highest resourceVersion written to the
	// objects it owns, by their kind and namespace: what a controller
	// waits for before it reconciles the owner.
	owned map[ownerKey]map[scope]uint64
	// sweepAt is the count at which record next sweeps out what the
	// informers hold (doubling, so that sweeps cost O(1) a write).
	sweepAt int64
}

// minSweep is the smallest count at which records are swept.
const minSweep = 64

// parseRV reads a resourceVersion as KEP-5504 says it may be compared: a
// decimal integer. ok is false for anything else.
func parseRV(rv string) (uint64, bool) {
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// rvAtLeast reports whether resourceVersion rv is n or later (false when
// rv is not a decimal integer).
func rvAtLeast(rv string, n uint64) bool {
	v, ok := parseRV(rv)
	return ok && v >= n
}

// ownerOf returns the owner key of an owner reference, and false when its
// apiVersion is empty.
func ownerOf(r kube.OwnerReference) (ownerKey, bool) {
	if r.APIVersion == "" || r.Kind == "" {
		return ownerKey{}, false
	}
	group, version, ok := strings.Cut(r.APIVersion, "/")
	if !ok {
		group, version = "", r.APIVersion
	}
	return ownerKey{gvk: kube.GroupVersionKind{Group: group, Version: version, Kind: r.Kind}, name: r.Name}, true
}

// add records w. It returns true when the records have grown enough to
// be swept.
func (ws *writes) add(w kube.Written) bool {
	rv, ok := parseRV(w.ResourceVersion)
	rec := written{rv: rv, opaque: !ok && w.ResourceVersion != "", deleted: w.Delete, labels: maps.Clone(w.Labels)}
	k := objectKey{gvk: w.Kind, key: w.Key}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.objects == nil {
		ws.objects, ws.owned = map[objectKey]written{}, map[ownerKey]map[scope]uint64{}
	}
	added := int64(0)
	if prev, ok := ws.objects[k]; !ok {
		added++
		ws.objects[k] = rec
	} else if rec.opaque || rec.rv == 0 || rec.rv >= prev.rv || prev.opaque {
		ws.objects[k] = rec
	}
	if rv > 0 {
		for _, r := range w.Owners {
			o, ok := ownerOf(r)
			if !ok {
				continue
			}
			m := ws.owned[o]
			if m == nil {
				m = map[scope]uint64{}
				ws.owned[o] = m
			}
			sc := scope{gvk: w.Kind, ns: w.Key.Namespace}
			if _, ok := m[sc]; !ok {
				added++
			}
			m[sc] = max(m[sc], rv)
		}
	}
	n := ws.count.Add(added)
	return n >= max(ws.sweepAt, minSweep)
}

// pendingObject returns the record of the object at key, if any.
func (ws *writes) pendingObject(gvk kube.GroupVersionKind, key kube.Key) (written, bool) {
	if ws.count.Load() == 0 {
		return written{}, false
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, ok := ws.objects[objectKey{gvk: gvk, key: key}]
	return w, ok
}

// dropObject forgets the record of the object at key if it is still w.
func (ws *writes) dropObject(gvk kube.GroupVersionKind, key kube.Key, w written) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	k := objectKey{gvk: gvk, key: key}
	if cur, ok := ws.objects[k]; ok && cur.same(w) {
		delete(ws.objects, k)
		ws.count.Add(-1)
	}
}

// same reports whether w and v record the same write.
func (w written) same(v written) bool {
	return w.rv == v.rv && w.opaque == v.opaque && w.deleted == v.deleted
}

// listTargets returns the writes to objects of kind gvk in namespace ns
// ("" for all) not yet seen: what a List there may wait for.
func (ws *writes) listTargets(gvk kube.GroupVersionKind, ns string) map[kube.Key]written {
	if ws.count.Load() == 0 {
		return nil
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var out map[kube.Key]written
	for k, w := range ws.objects {
		if k.gvk == gvk && (ns == "" || k.key.Namespace == ns) {
			if out == nil {
				out = map[kube.Key]written{}
			}
			out[k.key] = w
		}
	}
	return out
}

// ownedTargets returns the versions written to the objects that the
// object of kind gvk at key owns, by their kind and namespace.
func (ws *writes) ownedTargets(gvk kube.GroupVersionKind, key kube.Key) map[scope]uint64 {
	if ws.count.Load() == 0 {
		return nil
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var out map[scope]uint64
	for sc, rv := range ws.owned[ownerKey{gvk: gvk, name: key.Name}] {
		if key.Namespace == "" || sc.ns == key.Namespace {
			if out == nil {
				out = map[scope]uint64{}
			}
			out[sc] = rv
		}
	}
	return out
}

// dropOwned forgets what the owner at key wrote in sc if it is still rv.
func (ws *writes) dropOwned(gvk kube.GroupVersionKind, key kube.Key, sc scope, rv uint64) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	o := ownerKey{gvk: gvk, name: key.Name}
	m := ws.owned[o]
	if cur, ok := m[sc]; ok && cur == rv {
		delete(m, sc)
		ws.count.Add(-1)
		if len(m) == 0 {
			delete(ws.owned, o)
		}
	}
}

// sweep drops every record that seen says the cache holds, and sets the
// count of the next sweep to twice what is left.
func (ws *writes) sweep(objectSeen func(objectKey, written) bool, scopeSeen func(scope, uint64) bool) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	for k, w := range ws.objects {
		if objectSeen(k, w) {
			delete(ws.objects, k)
		}
	}
	n := len(ws.objects)
	for o, m := range ws.owned {
		for sc, rv := range m {
			if scopeSeen(sc, rv) {
				delete(m, sc)
			}
		}
		if len(m) == 0 {
			delete(ws.owned, o)
		}
		n += len(m)
	}
	ws.count.Store(int64(n))
	ws.sweepAt = 2 * int64(n)
}
