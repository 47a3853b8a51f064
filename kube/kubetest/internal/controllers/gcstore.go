// SPDX-License-Identifier: Apache-2.0

package controllers

import (
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/ctlstate"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
)

// gcStore is the server's store as the garbage collector sees it
// (gc.Store). An object of a collection no served resource stores is no
// object to it.
type gcStore struct {
	st Store
	c  *Controllers
}

// lookup returns the object at ref, false when there is none or its
// collection is not served.
func (g gcStore) lookup(ref gc.ObjectRef) (Object, bool) {
	o, ok := g.st.Object(ref)
	if !ok {
		return Object{}, false
	}
	if _, _, served := g.st.Served(ref.Col); !served {
		return Object{}, false
	}
	return o, true
}

func (g gcStore) Object(ref gc.ObjectRef) (gc.Object, bool) {
	o, ok := g.lookup(ref)
	o.Owners = slices.Clone(o.Owners)
	return o.Object, ok
}

func (g gcStore) OwnerState(ns string, o gc.Owner) gc.OwnerState {
	ref, _, ok := g.st.Owner(ns, o)
	if !ok {
		return gc.OwnerUnresolved
	}
	owner, found := g.st.Object(ref)
	switch {
	case !found || owner.UID != o.UID:
		return gc.OwnerAbsent
	case owner.Deleting && owner.Foreground:
		return gc.OwnerWaiting
	}
	return gc.OwnerSolid
}

func (g gcStore) Dependents(uid string) []gc.ObjectRef {
	deps := g.c.owners.Dependents(uid)
	out := make([]gc.ObjectRef, len(deps))
	for i, d := range deps {
		out[i] = gc.ObjectRef{Col: d.Col, Key: d.Key}
	}
	return out
}

func (g gcStore) Delete(ref gc.ObjectRef, propagation string) { g.st.Delete(ref, propagation) }

func (g gcStore) Update(ref gc.ObjectRef, edit func(o map[string]any) bool) {
	if _, ok := g.lookup(ref); ok {
		if o := g.st.Decode(ref); edit(o) {
			g.st.Update(ref, "", o)
		}
	}
}

func (g gcStore) Enqueue(ref gc.ObjectRef, owner bool) {
	op := ctlstate.Collect
	if owner {
		op = ctlstate.Owner
	}
	g.c.enqueue(op, ref)
}

// ReportOwnerElsewhere records the collector's Warning Event about the
// object at ref when its reference o, absent from its namespace, names
// by uid an object of a namespaced kind in another namespace; for a
// cluster-scoped object, any object of a namespaced kind (the event then
// goes to namespace default, as the real recorder puts it). It costs a
// scan of the owner kind's objects, only for references found dangling
// or unresolved.
func (g gcStore) ReportOwnerElsewhere(ref gc.ObjectRef, o gc.Owner) {
	obj, ok := g.lookup(ref)
	if !ok {
		return
	}
	apiVersion, kind, _ := g.st.Served(ref.Col)
	owners, namespaced, ok := g.st.Owner("default", o) // any namespace: only the collection counts
	if !ok || !namespaced || !g.st.HasUID(owners.Col, o.UID, obj.Namespace) {
		return
	}
	dependent := gc.Ref{APIVersion: apiVersion, Kind: kind, Namespace: obj.Namespace, Name: obj.Name, UID: obj.UID}
	owner := gc.Ref{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID}
	ev := gc.InvalidNamespaceEvent(dependent, owner, time.Now())
	g.st.Record(ref, ev)
}
