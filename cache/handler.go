// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"github.com/kubeloop/kubeloop/kube"
)

// Handler receives the changes an informer sees, in the order it sees
// them, from one goroutine of its own (see [Registration]). O is *T for an
// [Informer] of T and [kube.Object] for an [ObjectInformer].
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
	// informer had and the new one, isResync false. A resync calls it for
	// every object with isResync true and oldObj == newObj: nothing
	// changed, the object is delivered again (client-go's resync, which
	// its handlers tell apart by comparing resourceVersions).
	OnUpdate(oldObj, newObj O, isResync bool)
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
	UpdateFunc func(oldObj, newObj O, isResync bool)
	DeleteFunc func(obj O, finalStateUnknown bool)
}

// OnAdd implements [Handler].
func (f HandlerFuncs[O]) OnAdd(obj O, isInInitialList bool) {
	if f.AddFunc != nil {
		f.AddFunc(obj, isInInitialList)
	}
}

// OnUpdate implements [Handler].
func (f HandlerFuncs[O]) OnUpdate(oldObj, newObj O, isResync bool) {
	if f.UpdateFunc != nil {
		f.UpdateFunc(oldObj, newObj, isResync)
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
func (a objectHandler[T]) OnUpdate(oldObj, newObj kube.Object, isResync bool) {
	a.h.OnUpdate(typed[T](oldObj), typed[T](newObj), isResync)
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
	// flag is isInInitialList for adds, isResync for updates and
	// finalStateUnknown for deletes.
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
		h.OnUpdate(old, obj, n.flag)
	case notifyDelete:
		h.OnDelete(obj, n.flag)
	}
}
