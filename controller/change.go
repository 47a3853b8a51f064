// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// ChangeType says what happened to an object.
type ChangeType uint8

// The change types. Predicates and handlers see them as
// controller-runtime's CreateEvent, UpdateEvent, DeleteEvent and
// GenericEvent.
const (
	// ChangeGeneric comes from outside the cluster (a webhook, a timer),
	// through a [Channel] source. It is the zero value, so a channel
	// sender can write Change{Key: k}.
	ChangeGeneric ChangeType = iota
	// ChangeCreate is an object the cache did not have: a new object, or
	// one of the initial list (see [Change.InInitialList]).
	ChangeCreate
	// ChangeUpdate is a changed object, or a resync (the same object
	// delivered again; see [Change.Resync]).
	ChangeUpdate
	// ChangeDelete is an object gone.
	ChangeDelete
)

func (t ChangeType) String() string {
	switch t {
	case ChangeGeneric:
		return "generic"
	case ChangeCreate:
		return "create"
	case ChangeUpdate:
		return "update"
	case ChangeDelete:
		return "delete"
	}
	return "unknown"
}

// Change is one thing a source saw happen to an object (controller-runtime
// has an event type for each [ChangeType]), handed to predicates and then
// to an [EventHandler]. It is not kube's watch event: a source makes
// changes from what its informer tells it, after the cache has applied
// the watch events.
//
// Objects that come from a cache are the cache's own, shared with every
// other reader: predicates and handlers must not modify them.
type Change struct {
	Type ChangeType
	// Object is the object the change is about; for an update, the new
	// version. A source never hands out a change without one: a [Channel]
	// change sent with a Key only gets a [kube.PartialObjectMetadata]
	// holding that namespace and name.
	Object kube.Object
	// Old is the version before an update; nil for other types.
	Old kube.Object
	// Key is Object's namespace and name. Sources fill it in.
	Key kube.Key
	// InInitialList is set on creates for the objects of the cache's first
	// list, and for the objects already cached when the source started.
	InInitialList bool
	// Resync is set on updates that deliver an object again without a
	// change, at the cache's sync period (Old and Object are then the same
	// object). The cache says so explicitly (the isResync of its handlers'
	// OnUpdate): nothing is inferred from the objects.
	Resync bool
	// FinalStateUnknown is set on deletes the cache inferred from a
	// relist: Object is the last state it had, not the final one.
	FinalStateUnknown bool
}

// LowPriority is the queue priority of requests for changes that change
// nothing: the initial list and resyncs. Real changes are queued with
// priority 0.
const LowPriority = -100

// Priority returns the queue priority a request for c should have:
// [LowPriority] for a create of the initial list and for a resync, 0
// otherwise. The queue hands out higher priorities first, so a
// controller that starts with 10,000 objects, or a resync of all of them,
// still reconciles a real change at once; the queue's aging rule (see
// package queue) makes sure the low-priority backlog is not starved. This
// is controller-runtime's priority queue policy.
func (c Change) Priority() int {
	if c.Type == ChangeCreate && c.InInitialList || c.Type == ChangeUpdate && c.Resync {
		return LowPriority
	}
	return 0
}

// Queue is the part of a controller's work queue that sources and
// handlers use: adding requests. A *queue.Queue[Request] is one.
type Queue interface {
	// Add queues req with priority 0 (see [queue.Queue.Add]).
	Add(req Request)
	// AddAfter queues req once d has passed.
	AddAfter(req Request, d time.Duration)
	// AddWithOptions queues req with a priority, a delay or both.
	AddWithOptions(req Request, opts queue.AddOptions)
}

var _ Queue = (*queue.Queue[Request])(nil)
