// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// EventHandler turns an event into requests on a controller's queue. A
// source calls it for each change that passed its predicates, one at a
// time, with the source's context.
//
// The handlers of this package queue each request with the change's
// [Change.Priority], so the initial list and resyncs go after real changes.
type EventHandler interface {
	Handle(ctx context.Context, c Change, q Queue)
}

// EventHandlerFunc is an [EventHandler] made of a func.
type EventHandlerFunc func(ctx context.Context, c Change, q Queue)

// Handle implements [EventHandler].
func (f EventHandlerFunc) Handle(ctx context.Context, c Change, q Queue) {
	if f == nil {
		return // no handler: nothing queued
	}
	f(ctx, c, q)
}

// EnqueueObject returns the handler that queues the object of the change
// itself (controller-runtime's EnqueueRequestForObject): what a
// controller uses for the kind it reconciles.
func EnqueueObject() EventHandler { return enqueueObject{} }

type enqueueObject struct{}

func (enqueueObject) Handle(_ context.Context, c Change, q Queue) {
	q.AddWithOptions(Request{Key: c.Key}, queue.AddOptions{Priority: c.Priority()})
}

// OwnerOptions refine [EnqueueOwner].
type OwnerOptions struct {
	// OnlyController limits the handler to the owner reference marked
	// controller: true. By default every matching owner is queued.
	OnlyController bool
	// ClusterScoped says the owner's kind is cluster-scoped: requests
	// carry no namespace. Otherwise an owner is in its dependent's
	// namespace (the only namespace a namespaced owner can be in).
	ClusterScoped bool
}

// EnqueueOwner returns the handler that queues the owners of the change's
// object whose kind is owner's (controller-runtime's
// EnqueueRequestForOwner): what a controller uses for the kinds it
// creates, to hear about changes to them. Owner references match on group
// and kind, not version, so an owner referenced as v1beta1 matches a v1
// owner type. For an update, the owners of the old and of the new object
// are queued (an owner that lost its dependent hears about it).
//
// owner names a kind, as &Widget{} does; it panics if owner is nil or has
// no kind.
func EnqueueOwner(owner kube.Object, opts OwnerOptions) EventHandler {
	return newEnqueueOwner("EnqueueOwner", owner, opts)
}

// newEnqueueOwner returns the handler of [EnqueueOwner], or panics naming
// fn.
func newEnqueueOwner(fn string, owner kube.Object, opts OwnerOptions) *enqueueOwner {
	if owner == nil {
		panic(fmt.Sprintf("controller: %s: owner is nil", fn))
	}
	gvk := owner.GroupVersionKind()
	if gvk.Kind == "" {
		panic(fmt.Sprintf("controller: %s: owner %T has no kind", fn, owner))
	}
	return &enqueueOwner{group: gvk.Group, kind: gvk.Kind, opts: opts}
}

type enqueueOwner struct {
	group, kind string
	opts        OwnerOptions
	// keep, when set, says whether to queue r, the request of an owner
	// ([Shards.EnqueueOwner] keeps the owners held here).
	keep func(r Request) bool
}

func (h *enqueueOwner) Handle(_ context.Context, c Change, q Queue) {
	var buf [2]Request
	reqs := h.owners(c.Object, buf[:0])
	if c.Old != nil {
		reqs = h.owners(c.Old, reqs)
	}
	for _, r := range reqs {
		q.AddWithOptions(r, queue.AddOptions{Priority: c.Priority()})
	}
}

// owners appends to reqs the owners of obj that match, without
// duplicates.
func (h *enqueueOwner) owners(obj kube.Object, reqs []Request) []Request {
	m := obj.GetObjectMeta()
	for _, ref := range m.OwnerReferences {
		if ref.Kind != h.kind || h.opts.OnlyController && !ref.IsController() {
			continue
		}
		if g, _ := kube.ParseAPIVersion(ref.APIVersion); g != h.group {
			continue
		}
		r := Request{Key: kube.Key{Namespace: m.Namespace, Name: ref.Name}}
		if h.opts.ClusterScoped {
			r.Namespace = ""
		}
		if h.keep != nil && !h.keep(r) {
			continue
		}
		if !slices.Contains(reqs, r) {
			reqs = append(reqs, r)
		}
	}
	return reqs
}

// MapFunc maps an object to the requests it concerns. It must not modify
// obj.
type MapFunc func(ctx context.Context, obj kube.Object) []Request

// EnqueueMapped returns the handler that queues what fn maps the change's
// object to (controller-runtime's EnqueueRequestsFromMapFunc): one change
// to any number of requests, for relations other than ownership (a
// Secret to the Widgets that mount it). For an update, both the old and
// the new object are mapped, and each request is queued once. It panics
// if fn is nil.
func EnqueueMapped(fn MapFunc) EventHandler {
	if fn == nil {
		panic("controller: EnqueueMapped: map func is nil")
	}
	return enqueueMapped{fn: fn}
}

type enqueueMapped struct{ fn MapFunc }

func (h enqueueMapped) Handle(ctx context.Context, c Change, q Queue) {
	reqs := h.fn(ctx, c.Object)
	if c.Old != nil {
		for _, r := range h.fn(ctx, c.Old) {
			if !slices.Contains(reqs, r) {
				reqs = append(reqs, r)
			}
		}
	}
	opts := queue.AddOptions{Priority: c.Priority()}
	for _, r := range reqs {
		q.AddWithOptions(r, opts)
	}
}
