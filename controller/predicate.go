// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"maps"

	"github.com/kubeloop/kubeloop/kube"
)

// Predicate filters changes before they reach an [EventHandler]: a source
// hands a change on only if every one of its predicates allows it.
// Predicates see every change type (create, update, delete, generic) and
// decide per type, as controller-runtime's do: the "changed" predicates
// judge updates and allow everything else.
type Predicate interface {
	Allow(c Change) bool
}

// PredicateFunc is a [Predicate] made of a func.
type PredicateFunc func(c Change) bool

// Allow implements [Predicate].
func (f PredicateFunc) Allow(c Change) bool {
	if f == nil {
		return true // no predicate: nothing filtered out
	}
	return f(c)
}

// PredicateFuncs is a [Predicate] with one func per change type; a nil
// func allows the changes of its type (controller-runtime's
// predicate.Funcs).
type PredicateFuncs struct {
	Create, Update, Delete, Generic func(c Change) bool
}

// Allow implements [Predicate].
func (p PredicateFuncs) Allow(c Change) bool {
	var f func(Change) bool
	switch c.Type {
	case ChangeCreate:
		f = p.Create
	case ChangeUpdate:
		f = p.Update
	case ChangeDelete:
		f = p.Delete
	case ChangeGeneric:
		f = p.Generic
	}
	return f == nil || f(c)
}

// allow reports whether every predicate allows c.
func allow(preds []Predicate, c Change) bool {
	for _, p := range preds {
		if !p.Allow(c) {
			return false
		}
	}
	return true
}

// ObjectFilter returns a predicate that allows a change when fn allows
// its object (the new one for an update), whatever the change type
// (controller-runtime's NewPredicateFuncs).
func ObjectFilter(fn func(obj kube.Object) bool) Predicate {
	return PredicateFunc(func(c Change) bool { return c.Object != nil && fn(c.Object) })
}

// updateOnly returns a predicate that judges updates with changed (given
// both objects, never nil) and allows every other change. An update
// missing an object is refused.
func updateOnly(changed func(oldMeta, newMeta *kube.ObjectMeta) bool) Predicate {
	return PredicateFunc(func(c Change) bool {
		if c.Type != ChangeUpdate {
			return true
		}
		if c.Old == nil || c.Object == nil {
			return false
		}
		return changed(c.Old.GetObjectMeta(), c.Object.GetObjectMeta())
	})
}

// GenerationChanged allows updates that change metadata.generation. The
// server bumps it when the object's desired state changes (its spec; for
// a custom resource without a status subresource, anything outside
// metadata), and once more when a delete marks an object that finalizers
// hold (the update that sets deletionTimestamp passes, so a finalizer
// runs). Status updates (with a status subresource), label and
// annotation updates are skipped. Kinds without a generation (ConfigMap,
// Secret) never change it; do not use it for them. Resyncs do not change
// it either.
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

// LabelSelector allows changes whose object's labels sel matches (the new
// object's for an update), for every change type.
func LabelSelector(sel kube.Selector) Predicate {
	return ObjectFilter(func(obj kube.Object) bool { return sel.Matches(obj.GetObjectMeta().Labels) })
}

// And allows a change that every one of preds allows (all, when there is
// none).
func And(preds ...Predicate) Predicate {
	return PredicateFunc(func(c Change) bool { return allow(preds, c) })
}

// Or allows a change that one of preds allows (none, when there is none).
func Or(preds ...Predicate) Predicate {
	return PredicateFunc(func(c Change) bool {
		for _, p := range preds {
			if p.Allow(c) {
				return true
			}
		}
		return false
	})
}

// Not allows what pred refuses.
func Not(pred Predicate) Predicate {
	return PredicateFunc(func(c Change) bool { return !pred.Allow(c) })
}
