// SPDX-License-Identifier: Apache-2.0

package gc

// Store is what the collector needs of the server it runs in: the
// objects, the index of owners to dependents, writes as
// kube-controller-manager, and the server's work queue. The server calls
// [Collect] and [Process] with its lock held, and the Store's methods run
// under that lock; a write may queue more work, which the server runs
// after the call returns.
type Store interface {
	// Object returns what the collector reads of the object at ref,
	// false when there is none.
	Object(ref ObjectRef) (Object, bool)
	// OwnerState resolves an owner reference of an object in namespace
	// ns (the dependent's) and says what is at its end.
	OwnerState(ns string, o Owner) OwnerState
	// Dependents returns the objects whose owner references name uid,
	// in a stable order.
	Dependents(uid string) []ObjectRef
	// Delete deletes the object at ref with propagation (Orphan,
	// Background or Foreground); nothing when it is gone.
	Delete(ref ObjectRef, propagation string)
	// Update calls edit on a decoded copy of the object at ref and, when
	// edit reports a change, writes it; nothing when it is gone.
	Update(ref ObjectRef, edit func(o map[string]any) bool)
	// Enqueue asks for [Process] of ref when owner is set, else for
	// [Collect] of it.
	Enqueue(ref ObjectRef, owner bool)
	// ReportOwnerElsewhere records the Warning Event of
	// [InvalidNamespaceEvent] about ref when its owner reference o names
	// by uid an object of a namespaced kind in another namespace.
	ReportOwnerElsewhere(ref ObjectRef, o Owner)
}

// ObjectRef names a stored object: its collection's key and its key in
// it.
type ObjectRef struct{ Col, Key string }

// Object is what the collector reads of a stored object.
type Object struct {
	UID, Namespace string
	Owners         []Owner
	// Deleting says deletionTimestamp is set; Foreground and Orphan that
	// the finalizer of that name is there; GCFinalizer that either is.
	Deleting, Foreground, Orphan, GCFinalizer bool
}

// Owner is an owner reference.
type Owner struct {
	APIVersion, Kind, Name, UID string
	Block                       bool // blockOwnerDeletion
}

// OwnerState is what the collector finds at the end of an owner
// reference.
type OwnerState uint8

const (
	OwnerSolid      OwnerState = iota // exists and is not waiting on its dependents
	OwnerAbsent                       // no object with that kind, name and uid
	OwnerWaiting                      // deleting in the foreground
	OwnerUnresolved                   // kind not served, or not a valid owner
)

// Collect decides the fate of the object at ref from its owners: keep
// it, drop its references to absent owners, or delete it (in the
// foreground when an owner waits on it, else as its finalizers say).
func Collect(st Store, ref ObjectRef) {
	obj, ok := st.Object(ref)
	if !ok || len(obj.Owners) == 0 {
		return
	}
	if obj.Deleting {
		if obj.Foreground {
			st.Enqueue(ref, true)
		}
		return
	}
	var solid, waiting bool
	var drop []string // uids of absent and waiting owners
	for _, o := range obj.Owners {
		switch st.OwnerState(obj.Namespace, o) {
		case OwnerUnresolved:
			if obj.Namespace == "" { // a namespaced owner of a cluster-scoped object
				st.ReportOwnerElsewhere(ref, o)
			}
			return
		case OwnerSolid:
			solid = true
		case OwnerAbsent:
			drop = append(drop, o.UID)
			st.ReportOwnerElsewhere(ref, o)
		case OwnerWaiting:
			waiting = true
			drop = append(drop, o.UID)
		}
	}
	switch {
	case solid:
		if len(drop) > 0 {
			st.Update(ref, func(o map[string]any) bool { return DropOwnerRefs(o, drop) })
		}
	case waiting && len(st.Dependents(obj.UID)) > 0:
		if dependentWaits(st, obj.UID) {
			// A cycle of foreground deletions: its references stop
			// blocking, so that its owners need not wait for it.
			st.Update(ref, UnblockOwnerRefs)
		}
		st.Delete(ref, "Foreground")
	case obj.Orphan:
		st.Delete(ref, "Orphan")
	case obj.Foreground:
		st.Delete(ref, "Foreground")
	default:
		st.Delete(ref, "Background")
	}
}

// Process goes on with an owner the collector holds by a finalizer:
// orphans its dependents, or queues those a foreground deletion waits
// for, and removes the finalizer when it is done.
func Process(st Store, ref ObjectRef) {
	obj, ok := st.Object(ref)
	if !ok || !obj.Deleting || !obj.GCFinalizer {
		return
	}
	deps := st.Dependents(obj.UID)
	if obj.Orphan {
		for _, d := range deps {
			st.Update(d, func(o map[string]any) bool { return DropOwnerRefs(o, []string{obj.UID}) })
		}
		st.Update(ref, func(o map[string]any) bool { return RemoveFinalizer(o, FinalizerOrphan) })
		return
	}
	blocked := false
	for _, d := range deps {
		dep, ok := st.Object(d)
		if !ok {
			continue
		}
		for _, o := range dep.Owners {
			if o.UID == obj.UID && o.Block {
				blocked = true
			}
		}
		st.Enqueue(d, false)
	}
	if !blocked {
		st.Update(ref, func(o map[string]any) bool { return RemoveFinalizer(o, FinalizerForeground) })
	}
}

// dependentWaits reports whether a dependent of uid is itself deleting
// in the foreground, the sign of a cycle of owners.
func dependentWaits(st Store, uid string) bool {
	for _, d := range st.Dependents(uid) {
		if dep, ok := st.Object(d); ok && dep.Deleting && dep.Foreground {
			return true
		}
	}
	return false
}
