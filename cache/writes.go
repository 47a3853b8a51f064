// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"maps"
	"slices"
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
// A record is dropped once an informer is seen to hold it, once a wait
// for it gives up, and, oldest first, when the records pass their bounds
// ([Options.MaxFreshRecords], [Options.MaxFreshRecordBytes]).

// written is the last write to one object that the cache has not been
// seen to hold.
type written struct {
	// rv is the answer's resourceVersion as a number; 0 for a delete
	// answered without one.
	rv uint64
	// seq orders the records by when they were made, for dropping the
	// oldest first.
	seq uint64
	// size is the record's approximate bytes (see objectRecordBytes).
	size int32
	// opaque is set when the answer's resourceVersion is not a decimal
	// integer: no wait can tell when it is seen.
	opaque bool
	// deleted is set for a delete (and a write after which the object
	// is gone): seen as objectSeen says.
	deleted bool
	// gone is set for a write after which the server deletes the object
	// (kube.Written.Gone): seen once the object is gone from the cache
	// (or cached anew, past rv).
	gone bool
	// partial is set when the answer did not carry the object's labels
	// (kube.Written.Partial).
	partial bool
	// labels are the object's labels as written, so that a List by
	// label waits only for the writes that may change its answer.
	labels map[string]string
}

// ownedWrite is the highest resourceVersion written to the objects of one
// kind and namespace that one owner owns.
type ownedWrite struct {
	rv, seq uint64
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
	// dropped counts the records dropped unseen because the records
	// passed their bounds.
	dropped atomic.Uint64

	mu sync.Mutex
	// objects is the last write to each object: what a Get of it waits
	// for, and a List that may include it.
	objects map[objectKey]written
	// owned is, for each owner, the highest resourceVersion written to the
	// objects it owns, by their kind and namespace: what a controller
	// waits for before it reconciles the owner.
	owned map[ownerKey]map[scope]ownedWrite
	// bytes is the approximate size of the records (recordSize and
	// ownedSize each).
	bytes int64
	// seq is the sequence number of the last record made.
	seq uint64
	// sweepAt is the count at which record next sweeps out what the
	// informers hold (doubling, so that sweeps cost O(1) a write).
	sweepAt int64
}

// limits bound the records: their number and approximate bytes.
type limits struct {
	count int64
	bytes int64
}

// over reports whether n records of b bytes pass l.
func (l limits) over(n, b int64) bool { return n > l.count || b > l.bytes }

// minSweep is the smallest count at which records are swept.
const minSweep = 64

// Approximate sizes of a record, for the bound on bytes (calibrated
// with TestMemoryOutOfScopeWrites, which measures the heap): a map entry
// of objects (key, value and the map's share of overhead), a label's
// entry in a record's copy of the labels besides its strings (the
// answer's), an owner's map of owned and each entry in it.
const (
	objectRecordBytes = 250
	labelBytes        = 60
	ownerMapBytes     = 800
	ownedRecordBytes  = 100
)

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

// add records w, and what it writes to the objects its owner references
// name. It returns true when the records have grown enough to be swept,
// or pass l (see trim).
func (ws *writes) add(w kube.Written, l limits) bool {
	rv, ok := parseRV(w.ResourceVersion)
	rec := written{rv: rv, opaque: !ok && w.ResourceVersion != "", deleted: w.Delete || w.Gone, gone: w.Gone,
		partial: w.Partial, labels: maps.Clone(w.Labels)}
	size := objectRecordBytes + len(w.Key.Namespace) + len(w.Key.Name)
	for k, v := range w.Labels {
		size += labelBytes + len(k) + len(v)
	}
	rec.size = int32(min(size, 1<<30))
	k := objectKey{gvk: w.Kind, key: w.Key}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if ws.objects == nil {
		ws.objects, ws.owned = map[objectKey]written{}, map[ownerKey]map[scope]ownedWrite{}
	}
	ws.seq++
	rec.seq = ws.seq
	added := int64(0)
	if prev, ok := ws.objects[k]; !ok {
		added++
		ws.objects[k] = rec
		ws.bytes += int64(rec.size)
	} else if rec.opaque || rec.rv == 0 || rec.rv >= prev.rv || prev.opaque {
		ws.objects[k] = rec
		ws.bytes += int64(rec.size) - int64(prev.size)
	}
	if rv > 0 {
		if rec.gone {
			rv++ // held once the informer read past the object's last version
		}
		for _, r := range w.Owners {
			o, ok := ownerOf(r)
			if !ok {
				continue
			}
			m := ws.owned[o]
			if m == nil {
				m = map[scope]ownedWrite{}
				ws.owned[o] = m
				ws.bytes += ownerMapBytes
			}
			sc := scope{gvk: w.Kind, ns: w.Key.Namespace}
			if _, ok := m[sc]; !ok {
				added++
				ws.bytes += ownedRecordBytes
			}
			m[sc] = ownedWrite{rv: max(m[sc].rv, rv), seq: ws.seq}
		}
	}
	n := ws.count.Add(added)
	return n >= max(ws.sweepAt, minSweep) || l.over(n, ws.bytes)
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
	ws.dropObjectLocked(objectKey{gvk: gvk, key: key}, w.seq)
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
func (ws *writes) ownedTargets(gvk kube.GroupVersionKind, key kube.Key) map[scope]ownedWrite {
	if ws.count.Load() == 0 {
		return nil
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var out map[scope]ownedWrite
	for sc, w := range ws.owned[ownerKey{gvk: gvk, name: key.Name}] {
		if key.Namespace == "" || sc.ns == key.Namespace {
			if out == nil {
				out = map[scope]ownedWrite{}
			}
			out[sc] = w
		}
	}
	return out
}

// dropOwned forgets what the owner at key wrote in sc if it is still w.
func (ws *writes) dropOwned(gvk kube.GroupVersionKind, key kube.Key, sc scope, w ownedWrite) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.dropOwnedLocked(ownerKey{gvk: gvk, name: key.Name}, sc, w.seq)
}

// dropOwnedLocked forgets what owner o wrote in sc if its record is seq.
// Call with ws.mu held.
func (ws *writes) dropOwnedLocked(o ownerKey, sc scope, seq uint64) {
	m := ws.owned[o]
	if cur, ok := m[sc]; ok && cur.seq == seq {
		delete(m, sc)
		ws.bytes -= ownedRecordBytes
		ws.count.Add(-1)
		if len(m) == 0 {
			delete(ws.owned, o)
			ws.bytes -= ownerMapBytes
		}
	}
}

// trim drops every record that seen says the cache holds; then, when
// the records still pass l, the oldest until they are within nine tenths
// of it (so that a bound reached costs a trim every tenth of it, not
// every write). It sets the count of the next sweep to twice what is
// left, and returns the number of records dropped unseen. It costs a
// walk of the records, and a sort of them when they pass l.
func (ws *writes) trim(objectSeen func(objectKey, written) bool, scopeSeen func(scope, uint64) bool, l limits) int {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	left, _ := ws.dropLocked(0, objectSeen, scopeSeen)
	dropped := 0
	if l.over(ws.count.Load(), ws.bytes) {
		// Keep the newest, as many as fit nine tenths of both bounds
		// (the bytes by the records' average size).
		keep := min(l.count*9/10, int64(len(left))*(l.bytes*9/10)/max(ws.bytes, 1))
		slices.Sort(left)
		cutoff := ws.seq + 1
		if keep > 0 {
			cutoff = uint64(left[int64(len(left))-keep])
		}
		_, dropped = ws.dropLocked(cutoff, nil, nil)
		ws.dropped.Add(uint64(dropped))
	}
	ws.sweepAt = 2 * ws.count.Load()
	return dropped
}

// dropLocked drops the records made before the one numbered cutoff and,
// when objectSeen and scopeSeen are not nil, those they say the cache
// holds. It returns the sequence numbers of the records left when
// asked to drop those seen, and how many it dropped. Call with ws.mu
// held.
func (ws *writes) dropLocked(cutoff uint64, objectSeen func(objectKey, written) bool, scopeSeen func(scope, uint64) bool) (left []int64, dropped int) {
	n := ws.count.Load()
	for k, w := range ws.objects {
		switch {
		case w.seq < cutoff || objectSeen != nil && objectSeen(k, w):
			ws.dropObjectLocked(k, w.seq)
		case objectSeen != nil:
			left = append(left, int64(w.seq))
		}
	}
	for o, m := range ws.owned {
		for sc, w := range m {
			switch {
			case w.seq < cutoff || scopeSeen != nil && scopeSeen(sc, w.rv):
				ws.dropOwnedLocked(o, sc, w.seq)
			case scopeSeen != nil:
				left = append(left, int64(w.seq))
			}
		}
	}
	return left, int(n - ws.count.Load())
}

// dropObjectLocked forgets the record of object k if it is seq. Call
// with ws.mu held.
func (ws *writes) dropObjectLocked(k objectKey, seq uint64) {
	if cur, ok := ws.objects[k]; ok && cur.seq == seq {
		delete(ws.objects, k)
		ws.bytes -= int64(cur.size)
		ws.count.Add(-1)
	}
}
