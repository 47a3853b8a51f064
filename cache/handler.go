// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"github.com/kubeloop/kubeloop/kube"
)

// Handler receives the changes an informer sees, in the order it sees
// them, from one goroutine of its own (see [Registration]). O is *T for an
// [Informer] of T and [kube.Object] for a [Source].
//
// The objects passed are the informer's stored objects, shared with every
// other handler and reader: a handler must not modify them (copy first).
type Handler[O any] interface {
	// OnAdd is called for an object the informer did not have.
	// isInInitialList is true for the objects of the first list and for
	// the objects already cached when the handler was added; false for
	// objects created later and for objects a relist found new.
	OnAdd(obj O, isInInitialList bool)
	// OnUpdate is called when an object changed, with the version the
	// informer had and the new one. A resync calls it with oldObj ==
	// newObj (the same pointer) for every object.
	OnUpdate(oldObj, newObj O)
	// OnDelete is called when an object went. obj is its final state as
	// the server sent it, or, when finalStateUnknown is set, the last
	// state the informer had: the deletion happened while the watch was
	// broken and a relist found the object gone (as client-go's
	// DeletedFinalStateUnknown).
	OnDelete(obj O, finalStateUnknown bool)
}

// HandlerFuncs is a [Handler] made of funcs; nil funcs ignore their events.
type HandlerFuncs[O any] struct {
	AddFunc    func(obj O, isInInitialList bool)
	UpdateFunc func(oldObj, newObj O)
	DeleteFunc func(obj O, finalStateUnknown bool)
}

// OnAdd implements [Handler].
func (f HandlerFuncs[O]) OnAdd(obj O, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate implements [Handler].
func (f HandlerFuncs[O]) OnUpdate(oldObj, newObj O) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj)
	}
}

// OnDelete implements [Handler].
func (f HandlerFuncs[O]) OnDelete(obj O, finalStateUnknown bool) {
	if f.DeleteFunc != nil {
		f.DeleteFunc(obj, finalStateUnknown)
	}
}

// objectHandler adapts a Handler[*T] to the informer's kube.Object events.
// Every object an Informer[T] stores is a *T, so the assertions hold.
type objectHandler[T any] struct{ h Handler[*T] }

func (a objectHandler[T]) OnAdd(obj kube.Object, initial bool) { a.h.OnAdd(typed[T](obj), initial) }
func (a objectHandler[T]) OnUpdate(oldObj, newObj kube.Object) {
	a.h.OnUpdate(typed[T](oldObj), typed[T](newObj))
}
func (a objectHandler[T]) OnDelete(obj kube.Object, unknown bool) {
	a.h.OnDelete(typed[T](obj), unknown)
}

// typed returns the *T in obj: a pointer comparison, no copy.
func typed[T any](obj kube.Object) *T { return any(obj).(*T) }

// notification is one event on its way to one handler.
type notification struct {
	kind notificationKind
	// old (set for updates only) and obj are kube.Objects, or, from a
	// compact store, stored values that delivery decodes (see
	// codec.load): a relist or a late handler's adds then queue no
	// decoded objects.
	old, obj any
	// flag is isInInitialList for adds and finalStateUnknown for deletes.
	flag bool
}

type notificationKind uint8

const (
	notifyAdd notificationKind = iota
	notifyUpdate
	notifyDelete
)

func (n notification) deliver(h Handler[kube.Object], c *codec) {
	obj := c.load(n.obj)
	switch n.kind {
	case notifyAdd:
		h.OnAdd(obj, n.flag)
	case notifyUpdate:
		old := obj // a resync: the same object twice
		if n.old != n.obj {
			old = c.load(n.old)
		}
		h.OnUpdate(old, obj)
	case notifyDelete:
		h.OnDelete(obj, n.flag)
	}
}

// What follows turns what the reflector reads into store changes and handler
// notifications. Only the reflectors write the store's objects, always
// through these functions and always under informer.mu.

// applyEvent applies one watch event. An ADDED or MODIFIED event for an
// object at the resourceVersion already stored changes nothing (a watch
// resumed from an older version may replay it). A DELETED event for an
// object not stored changes nothing either: no handler saw it.
func (i *informer) applyEvent(typ kube.EventType, obj kube.Object, size int32) {
	meta := obj.GetObjectMeta()
	i.mu.Lock()
	defer i.mu.Unlock()
	switch typ {
	case kube.Added, kube.Modified:
		old, ok := i.store.get(meta.Key())
		if ok && old.GetObjectMeta().ResourceVersion == meta.ResourceVersion {
			return
		}
		i.store.put(obj, size)
		if ok {
			i.notifyLocked(notification{kind: notifyUpdate, old: old, obj: obj})
		} else {
			i.notifyLocked(notification{kind: notifyAdd, obj: obj})
		}
	case kube.Deleted:
		if i.store.remove(meta.Key()) {
			i.notifyLocked(notification{kind: notifyDelete, obj: obj})
		}
	}
}

// replace swaps in a state read by a list (or the initial events of a
// WatchList) and tells the handlers exactly what changed:
//   - an object that is new: OnAdd (isInInitialList on the first sync);
//   - an object at another resourceVersion: OnUpdate(old, new);
//   - an object with the same name but another UID (deleted and created
//     again while the watch was down): OnDelete(old, true) then OnAdd;
//   - an object that is gone: OnDelete(last known state, true);
//   - an object at the same resourceVersion: nothing.
//
// ns is the namespace the reflector covers ("" for all): only its objects
// are replaced. initial is set for the reflector's first state, and marks
// the adds isInInitialList; the informer is synced once every reflector
// has stored its first state. The cost is O(old + new).
func (i *informer) replace(next *state, ns string, initial bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	var prev *state
	if ns == "" {
		prev = i.store.replace(next)
	} else {
		prev = &state{objects: map[string]map[string]entry{ns: i.store.replaceNamespace(ns, next)}}
	}
	c := i.store.codec
	for ns, names := range next.objects {
		for name, e := range names {
			old, ok := prev.get(kube.Key{Namespace: ns, Name: name})
			if !ok {
				i.notifyLocked(notification{kind: notifyAdd, obj: e.v, flag: initial})
				continue
			}
			if samePacked(old.v, e.v) {
				continue // the same JSON: the same version
			}
			oldMeta, newMeta := c.load(old.v).GetObjectMeta(), c.load(e.v).GetObjectMeta()
			switch {
			case oldMeta.UID != newMeta.UID:
				i.notifyLocked(notification{kind: notifyDelete, obj: old.v, flag: true})
				i.notifyLocked(notification{kind: notifyAdd, obj: e.v})
			case oldMeta.ResourceVersion != newMeta.ResourceVersion:
				i.notifyLocked(notification{kind: notifyUpdate, old: old.v, obj: e.v})
			}
		}
	}
	for ns, names := range prev.objects {
		for name, e := range names {
			if _, ok := next.get(kube.Key{Namespace: ns, Name: name}); !ok {
				i.notifyLocked(notification{kind: notifyDelete, obj: e.v, flag: true})
			}
		}
	}
	if initial {
		i.unsynced--
	}
	if initial && i.unsynced == 0 {
		i.isSynced = true
		i.initialRegs = append([]*Registration(nil), i.regs...)
		for _, r := range i.regs {
			r.markSynced()
		}
		close(i.synced)
	}
}
