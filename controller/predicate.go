// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"maps"

	"github.com/kubeloop/kubeloop/kube"
)

// Predicate filters events before they reach an [EventHandler]: a source
// hands an event on only if every one of its predicates allows it.
// Predicates see every event type (create, update, delete, generic) and
// decide per type, as controller-runtime's do: the "changed" predicates
// judge updates and allow everything else.
type Predicate interface {
	Allow(ev Event) bool
}

// PredicateFunc is a [Predicate] made of a func.
type PredicateFunc func(ev Event) bool

// Allow implements [Predicate].
func (f PredicateFunc) Allow(ev Event) bool { return f(ev) }

// PredicateFuncs is a [Predicate] with one func per event type; a nil
// func allows the events of its type (controller-runtime's
// predicate.Funcs).
type PredicateFuncs struct {
	Create, Update, Delete, Generic func(ev Event) bool
}

// Allow implements [Predicate].
func (p PredicateFuncs) Allow(ev Event) bool {
	var f func(Event) bool
	switch ev.Type {
	case EventCreate:
		f = p.Create
	case EventUpdate:
		f = p.Update
	case EventDelete:
		f = p.Delete
	case EventGeneric:
		f = p.Generic
	}
	return f == nil || f(ev)
}

// allow reports whether every predicate allows ev.
func allow(preds []Predicate, ev Event) bool {
	for _, p := range preds {
		if !p.Allow(ev) {
			return false
		}
	}
	return true
}

// ObjectFilter returns a predicate that allows an event when fn allows
// its object (the new one for an update), whatever the event type
// (controller-runtime's NewPredicateFuncs).
func ObjectFilter(fn func(obj kube.Object) bool) Predicate {
	return PredicateFunc(func(ev Event) bool { return ev.Object != nil && fn(ev.Object) })
}

// updateOnly returns a predicate that judges updates with changed (given
// both objects, never nil) and allows every other event. An update
// missing an object is refused.
func updateOnly(changed func(oldMeta, newMeta *kube.ObjectMeta) bool) Predicate {
	return PredicateFunc(func(ev Event) bool {
		if ev.Type != EventUpdate {
			return true
		}
		if ev.Old == nil || ev.Object == nil {
			return false
		}
		return changed(ev.Old.GetObjectMeta(), ev.Object.GetObjectMeta())
	})
}

// GenerationChanged allows updates that change metadata.generation, which
// the server bumps for spec changes only: status, label and annotation
// updates are skipped. Kinds without a generation (ConfigMap, Secret)
// never change it; do not use it for them. Resyncs do not change it
// either.
func GenerationChanged() Predicate {
	return updateOnly(func(o, n *kube.ObjectMeta) bool { return o.Generation != n.Generation })
}

// ResourceVersionChanged allows updates that change
// metadata.resourceVersion: every real change, no resync.
func ResourceVersionChanged() Predicate {
	return updateOnly(func(o, n *kube.ObjectMeta) bool { return o.ResourceVersion != n.ResourceVersion })
}

// LabelsChanged allows updates that change the labels.
func LabelsChanged() Predicate {
	return updateOnly(func(o, n *kube.ObjectMeta) bool { return !maps.Equal(o.Labels, n.Labels) })
}

// AnnotationsChanged allows updates that change the annotations.
func AnnotationsChanged() Predicate {
	return updateOnly(func(o, n *kube.ObjectMeta) bool { return !maps.Equal(o.Annotations, n.Annotations) })
}

// LabelSelector allows events whose object's labels sel matches (the new
// object's for an update), for every event type.
func LabelSelector(sel kube.Selector) Predicate {
	return ObjectFilter(func(obj kube.Object) bool { return sel.Matches(obj.GetObjectMeta().Labels) })
}

// And allows an event that every one of preds allows (all, when there is
// none).
func And(preds ...Predicate) Predicate {
	return PredicateFunc(func(ev Event) bool { return allow(preds, ev) })
}

// Or allows an event that one of preds allows (none, when there is none).
func Or(preds ...Predicate) Predicate {
	return PredicateFunc(func(ev Event) bool {
		for _, p := range preds {
			if p.Allow(ev) {
				return true
			}
		}
		return false
	})
}

// Not allows what pred refuses.
func Not(pred Predicate) Predicate {
	return PredicateFunc(func(ev Event) bool { return !pred.Allow(ev) })
}
