// SPDX-License-Identifier: Apache-2.0

package controllers

import (
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/ctlstate"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/nscontroller"
)

// MaxSteps bounds the work one write can set off, so that a cycle of
// owners (which the real collector also handles only roughly) cannot hold
// the lock for ever.
const MaxSteps = 1 << 20

// Store is the server's storage as the controllers see it. Objects are
// named by their collection's key and their key in it (gc.ObjectRef).
// Every method is called with the server's lock held.
type Store interface {
	// Object returns what the controllers read of the object at ref;
	// false when there is none. It costs O(1).
	Object(ref gc.ObjectRef) (Object, bool)
	// Served returns the API version and kind of the resource that
	// serves the collection col (its storage version when it has
	// several); false when none does any more.
	Served(col string) (apiVersion, kind string, ok bool)
	// Decode returns a decoded copy of the object at ref, which Object
	// found.
	Decode(ref gc.ObjectRef) map[string]any
	// Keys returns the keys of the collection col in order, none when
	// there is no such collection. The caller must not modify them.
	Keys(col string) []string
	// Owner resolves the owner reference o of an object in namespace ns
	// to the reference the owner would have and whether its kind is
	// namespaced; false when its kind is not served, or is namespaced
	// and ns is "".
	Owner(ns string, o gc.Owner) (ref gc.ObjectRef, namespaced, ok bool)
	// HasUID reports whether an object of the collection col outside the
	// namespace ns has uid. It costs a scan of the collection.
	HasUID(col, uid, ns string) bool
	// Delete deletes the object at ref as kube-controller-manager does,
	// with propagation (Orphan, Background or Foreground); nothing when
	// it is gone or its collection is not served.
	Delete(ref gc.ObjectRef, propagation string)
	// Update writes o, a changed copy of the object at ref, as an update
	// of kube-controller-manager's (to the subresource sub, if not "");
	// nothing when it is gone or its collection is not served.
	Update(ref gc.ObjectRef, sub string, o map[string]any)
	// Record creates the core v1 Event ev, in its metadata.namespace, as
	// kube-controller-manager; about is what it is about.
	Record(about gc.ObjectRef, ev map[string]any)
	// NamespaceDeleting reports whether the namespace name exists and is
	// marked deleting. It is called for every change of a namespaced
	// object: it must cost O(1).
	NamespaceDeleting(name string) bool
	// Namespaced returns the keys of the collections of namespaced
	// resources, sorted, and the names ("pods.", "deployments.apps")
	// under which the namespace controller counts their objects.
	Namespaced() (keys, names []string)
}

// Object is what the controllers read of a stored object: what the
// garbage collector reads, and its name.
type Object struct {
	gc.Object
	Name string
}

// Controllers is the state of the in-process controllers. The zero value
// has the garbage collector on.
type Controllers struct {
	// NoGC turns the garbage collector off (Options.DisableGarbageCollection);
	// the owner index is kept all the same.
	NoGC bool
	// owners is the garbage collector's graph, kept by every commit and
	// removal whether or not the collector runs.
	owners ctlstate.Index
	// queue holds the work not done yet.
	queue ctlstate.Queue
}

// Run does the queued work, and the work it queues, until none is left
// or MaxSteps were done; it returns how much it dropped then. It costs
// nothing when nothing was queued.
func (c *Controllers) Run(st Store) (dropped int) {
	return c.queue.Run(MaxSteps, func(it ctlstate.Item) {
		ref := gc.ObjectRef{Col: it.Col, Key: it.Key}
		switch it.Op {
		case ctlstate.Collect:
			gc.Collect(gcStore{st, c}, ref)
		case ctlstate.Owner:
			gc.Process(gcStore{st, c}, ref)
		case ctlstate.Namespace:
			nscontroller.Sync(nsStore{st}, it.Key, time.Now())
		}
	})
}

func (c *Controllers) enqueue(op ctlstate.Op, ref gc.ObjectRef) {
	c.queue.Add(ctlstate.Item{Op: op, Col: ref.Col, Key: ref.Key})
}

// Change is a committed event of a collection as the controllers see it.
type Change struct {
	// Ref names the object changed.
	Ref gc.ObjectRef
	// Gone says the object was removed (DELETED).
	Gone bool
	// Obj is its new state (for a removal, the last); Name its name.
	Obj  gc.Object
	Name string
	// Prev is the state before the change; nil for a create.
	Prev *gc.Object
	// Namespace says the object is a namespace; Namespaced that its kind
	// is namespaced; Collected that the garbage collector looks at its
	// kind (it ignores Events).
	Namespace, Namespaced, Collected bool
}

// Observe keeps the owner index and queues the controllers' work for ch.
func (c *Controllers) Observe(st Store, ch Change) {
	obj, prev := ch.Obj, ch.Prev
	ownersChanged := prev == nil || ch.Gone || !slices.Equal(prev.Owners, obj.Owners)
	if ownersChanged && (len(obj.Owners) > 0 || prev != nil && len(prev.Owners) > 0) {
		var prevOwners, owners []string
		if prev != nil {
			prevOwners = gc.OwnerUIDs(prev.Owners)
		}
		if !ch.Gone {
			owners = gc.OwnerUIDs(obj.Owners)
		}
		c.owners.Update(ctlstate.Ref{Col: ch.Ref.Col, Key: ch.Ref.Key}, prevOwners, owners)
	}
	if !c.NoGC && ch.Collected {
		c.observeForGC(st, ch, ownersChanged)
	}
	c.observeForNamespace(st, ch)
}

// observeForGC queues the garbage collector's work for ch: the
// dependents of a removed object, an object whose owners changed, an
// owner that waits for the collector, and the owners a dependent stopped
// blocking.
func (c *Controllers) observeForGC(st Store, ch Change, ownersChanged bool) {
	obj, prev := ch.Obj, ch.Prev
	if ch.Gone {
		for _, dep := range c.owners.Dependents(obj.UID) {
			c.enqueue(ctlstate.Collect, gc.ObjectRef{Col: dep.Col, Key: dep.Key})
		}
	} else if len(obj.Owners) > 0 && ownersChanged {
		c.enqueue(ctlstate.Collect, ch.Ref)
	}
	if !ch.Gone && obj.Deleting && obj.GCFinalizer {
		c.enqueue(ctlstate.Owner, ch.Ref)
	}
	// An owner deleting in the foreground waits for its blocking
	// dependents: look at it again when one goes or stops naming it.
	if prev != nil && len(prev.Owners) > 0 && ownersChanged {
		for _, o := range prev.Owners {
			if !o.Block {
				continue
			}
			if ref, _, ok := st.Owner(prev.Namespace, o); ok {
				c.enqueue(ctlstate.Owner, ref)
			}
		}
	}
}

// observeForNamespace queues the namespace controller for a namespace
// marked deleting and for a terminating namespace whose content changed.
func (c *Controllers) observeForNamespace(st Store, ch Change) {
	switch {
	case ch.Namespace:
		if !ch.Gone && ch.Obj.Deleting {
			c.enqueue(ctlstate.Namespace, gc.ObjectRef{Key: ch.Name})
		}
	case ch.Namespaced:
		if st.NamespaceDeleting(ch.Obj.Namespace) {
			c.enqueue(ctlstate.Namespace, gc.ObjectRef{Key: ch.Obj.Namespace})
		}
	}
}
