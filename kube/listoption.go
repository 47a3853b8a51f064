// SPDX-License-Identifier: Apache-2.0

package kube

// This file holds options that fill a ListOptions, so that a list reads as
// it does with controller-runtime:
//
//	c.List(ctx, &pods, kube.InNamespace(ns), kube.MatchingFields{"spec.nodeName": node})
//
// The options only build a ListOptions, and a ListOptions is itself an
// option, so c.List(ctx, &pods, kube.ListOptions{Namespace: ns}) reads as
// before. ListEach, Watch and the cache take the struct: build it with
// [NewListOptions].

// ListOption is one setting of a [ListOptions]. [InNamespace],
// [MatchingLabels], [HasLabels], [MatchingLabelsSelector],
// [MatchingFields], [MatchingFieldsSelector], [Limit], [Continue],
// [ShardSelector] and ListOptions itself are ListOptions.
type ListOption interface {
	// ApplyToList writes the option into opts.
	ApplyToList(opts *ListOptions)
}

// NewListOptions returns the ListOptions that opts make, applied in order
// to the zero ListOptions. Label and field requirements from several
// options are all required (ANDed); for the other fields the last option
// that sets one wins.
func NewListOptions(opts ...ListOption) ListOptions {
	var o ListOptions
	for _, opt := range opts {
		opt.ApplyToList(&o)
	}
	return o
}

// ApplyToList implements [ListOption]: the fields o sets (the non-zero
// ones) replace those of target, except the selectors, whose requirements
// are added to target's.
func (o ListOptions) ApplyToList(target *ListOptions) {
	if o.Namespace != "" {
		target.Namespace = o.Namespace
	}
	if !o.LabelSelector.Empty() {
		target.LabelSelector = target.LabelSelector.Add(o.LabelSelector.reqs...)
	}
	if !o.FieldSelector.Empty() {
		target.FieldSelector = target.FieldSelector.Add(o.FieldSelector.reqs...)
	}
	if o.Limit != 0 {
		target.Limit = o.Limit
	}
	if o.Continue != "" {
		target.Continue = o.Continue
	}
	if o.ResourceVersion != "" {
		target.ResourceVersion = o.ResourceVersion
	}
	if o.ResourceVersionMatch != "" {
		target.ResourceVersionMatch = o.ResourceVersionMatch
	}
	if o.TimeoutSeconds != 0 {
		target.TimeoutSeconds = o.TimeoutSeconds
	}
	if !o.ShardSelector.Empty() {
		target.ShardSelector = o.ShardSelector
	}
	target.MetadataOnly = target.MetadataOnly || o.MetadataOnly
	target.AllowWatchBookmarks = target.AllowWatchBookmarks || o.AllowWatchBookmarks
	target.SendInitialEvents = target.SendInitialEvents || o.SendInitialEvents
}

// InNamespace limits a list to one namespace.
type InNamespace string

// ApplyToList implements [ListOption].
func (n InNamespace) ApplyToList(o *ListOptions) { o.Namespace = string(n) }

// MatchingLabels requires every key to have its value
// (?labelSelector=k1=v1,k2=v2). Keys and values are not validated here:
// the server refuses invalid ones.
type MatchingLabels map[string]string

// ApplyToList implements [ListOption].
func (m MatchingLabels) ApplyToList(o *ListOptions) {
	o.LabelSelector = o.LabelSelector.Add(SelectorFromSet(m).reqs...)
}

// HasLabels requires every label to be present, whatever its value
// (?labelSelector=k1,k2).
type HasLabels []string

// ApplyToList implements [ListOption].
func (h HasLabels) ApplyToList(o *ListOptions) {
	reqs := make([]Requirement, len(h))
	for i, k := range h {
		reqs[i] = Requirement{Key: k, Operator: OpExists}
	}
	o.LabelSelector = o.LabelSelector.Add(reqs...)
}

// MatchingLabelsSelector requires a parsed label selector, for what a set
// cannot say ("tier in (web,api),!canary").
type MatchingLabelsSelector struct{ Selector }

// ApplyToList implements [ListOption].
func (s MatchingLabelsSelector) ApplyToList(o *ListOptions) {
	o.LabelSelector = o.LabelSelector.Add(s.reqs...)
}

// MatchingFields requires every field to have its value
// (?fieldSelector=k1=v1,k2=v2): on the server, the fields it supports for
// the kind (metadata.name, metadata.namespace, a CRD's selectableFields,
// ...); in a cache, its field indexes.
type MatchingFields map[string]string

// ApplyToList implements [ListOption].
func (m MatchingFields) ApplyToList(o *ListOptions) {
	o.FieldSelector = o.FieldSelector.Add(FieldSelectorFromSet(m).reqs...)
}

// MatchingFieldsSelector requires a parsed field selector, for what a set
// cannot say ("status.phase!=Running").
type MatchingFieldsSelector struct{ FieldSelector }

// ApplyToList implements [ListOption].
func (s MatchingFieldsSelector) ApplyToList(o *ListOptions) {
	o.FieldSelector = o.FieldSelector.Add(s.reqs...)
}

// Limit asks for at most this many items per page (see
// [ListOptions.Limit]).
type Limit int64

// ApplyToList implements [ListOption].
func (l Limit) ApplyToList(o *ListOptions) { o.Limit = int64(l) }

// Continue asks for the page after the one that returned this token.
type Continue string

// ApplyToList implements [ListOption].
func (c Continue) ApplyToList(o *ListOptions) { o.Continue = string(c) }
