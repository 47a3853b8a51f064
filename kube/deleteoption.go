// SPDX-License-Identifier: Apache-2.0

package kube

// This file holds the options of one delete, so that a delete reads as
// the writes do (see writeoption.go):
//
//	c.Delete(ctx, obj, kube.PropagationForeground, kube.GracePeriodSeconds(0))
//	c.Delete(ctx, obj, kube.Preconditions{UID: &uid}, kube.DryRunAll)
//	c.DeleteAllOf(ctx, gvk, kube.InNamespace(ns), kube.MatchingLabels{"app": "web"})
//
// A [DeleteOptions] struct is itself an option, and so is a
// [DeleteAllOfOptions], so c.Delete(ctx, obj, kube.DeleteOptions{...})
// reads as before. No option is the server's defaults.

// DeleteOption is one setting of a [DeleteOptions]. [PropagationPolicy],
// [GracePeriodSeconds], [Preconditions], [DryRunAll] and DeleteOptions
// itself implement it.
type DeleteOption interface {
	// ApplyToDelete writes the option into opts.
	ApplyToDelete(opts *DeleteOptions)
}

// DeleteAllOfOption is one setting of a [DeleteAllOfOptions]. Every
// [DeleteOption] above, [InNamespace], [MatchingLabels],
// [MatchingFields] and DeleteAllOfOptions itself implement it.
type DeleteAllOfOption interface {
	// ApplyToDeleteAllOf writes the option into opts.
	ApplyToDeleteAllOf(opts *DeleteAllOfOptions)
}

// ApplyToDelete implements [DeleteOption]: the fields o sets (the
// non-zero ones) replace those of target.
func (o DeleteOptions) ApplyToDelete(target *DeleteOptions) {
	if o.Preconditions != nil {
		target.Preconditions = o.Preconditions
	}
	if o.PropagationPolicy != "" {
		target.PropagationPolicy = o.PropagationPolicy
	}
	if o.GracePeriodSeconds != nil {
		target.GracePeriodSeconds = o.GracePeriodSeconds
	}
	target.DryRun = target.DryRun || o.DryRun
}

// ApplyToDeleteAllOf implements [DeleteAllOfOption], as ApplyToDelete.
func (o DeleteOptions) ApplyToDeleteAllOf(target *DeleteAllOfOptions) {
	o.ApplyToDelete(&target.DeleteOptions)
}

// ApplyToDeleteAllOf implements [DeleteAllOfOption]: the fields o sets
// (the non-zero ones) replace those of target, except the selectors,
// whose requirements are added to target's.
func (o DeleteAllOfOptions) ApplyToDeleteAllOf(target *DeleteAllOfOptions) {
	if o.Namespace != "" {
		target.Namespace = o.Namespace
	}
	if !o.LabelSelector.Empty() {
		target.LabelSelector = target.LabelSelector.Add(o.LabelSelector.reqs...)
	}
	if !o.FieldSelector.Empty() {
		target.FieldSelector = target.FieldSelector.Add(o.FieldSelector.reqs...)
	}
	o.DeleteOptions.ApplyToDelete(&target.DeleteOptions)
}

// PropagationPolicy says what becomes of an object's dependents when it
// is deleted (see [DeleteOptions.PropagationPolicy]), and sets it.
type PropagationPolicy string

// The values of PropagationPolicy.
const (
	// PropagationOrphan leaves the dependents, their owner reference to
	// the deleted object removed.
	PropagationOrphan PropagationPolicy = "Orphan"
	// PropagationBackground deletes the object at once and its
	// dependents after, in the background.
	PropagationBackground PropagationPolicy = "Background"
	// PropagationForeground deletes the dependents first; the object
	// stays, marked for deletion, until they are gone.
	PropagationForeground PropagationPolicy = "Foreground"
)

// ApplyToDelete implements [DeleteOption].
func (p PropagationPolicy) ApplyToDelete(o *DeleteOptions) { o.PropagationPolicy = p }

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (p PropagationPolicy) ApplyToDeleteAllOf(o *DeleteAllOfOptions) {
	p.ApplyToDelete(&o.DeleteOptions)
}

// GracePeriodSeconds is how long the object has to stop before it is
// deleted (0: at once), and sets [DeleteOptions.GracePeriodSeconds].
type GracePeriodSeconds int64

// ApplyToDelete implements [DeleteOption].
func (g GracePeriodSeconds) ApplyToDelete(o *DeleteOptions) {
	s := int64(g)
	o.GracePeriodSeconds = &s
}

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (g GracePeriodSeconds) ApplyToDeleteAllOf(o *DeleteAllOfOptions) {
	g.ApplyToDelete(&o.DeleteOptions)
}

// ApplyToDelete implements [DeleteOption]: it sets
// [DeleteOptions.Preconditions] to a copy of p.
func (p Preconditions) ApplyToDelete(o *DeleteOptions) { o.Preconditions = &p }

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (p Preconditions) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { p.ApplyToDelete(&o.DeleteOptions) }

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (n InNamespace) ApplyToDeleteAllOf(o *DeleteAllOfOptions) { o.Namespace = string(n) }

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (m MatchingLabels) ApplyToDeleteAllOf(o *DeleteAllOfOptions) {
	o.LabelSelector = o.LabelSelector.Add(SelectorFromSet(m).reqs...)
}

// ApplyToDeleteAllOf implements [DeleteAllOfOption].
func (m MatchingFields) ApplyToDeleteAllOf(o *DeleteAllOfOptions) {
	o.FieldSelector = o.FieldSelector.Add(FieldSelectorFromSet(m).reqs...)
}
