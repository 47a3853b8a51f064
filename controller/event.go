// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// EventType says what happened to an object.
type EventType uint8

// The event types. Predicates and handlers see them as controller-runtime's
// CreateEvent, UpdateEvent, DeleteEvent and GenericEvent.
const (
	// EventGeneric comes from outside the cluster (a webhook, a timer),
	// through a [Channel] source. It is the zero value, so a channel
	// sender can write Event{Key: k}.
	EventGeneric EventType = iota
	// EventCreate is an object the cache did not have: a new object, or
	// one of the initial list (see [Event.InInitialList]).
	EventCreate
	// EventUpdate is a changed object, or a resync (the same object
	// delivered again; see [Event.Priority]).
	EventUpdate
	// EventDelete is an object gone.
	EventDelete
)

func (t EventType) String() string {
	switch t {
	case EventGeneric:
		return "generic"
	case EventCreate:
		return "create"
	case EventUpdate:
		return "update"
	case EventDelete:
		return "delete"
	}
	return "unknown"
}

// Event is one thing a source saw, handed to predicates and then to an
// [EventHandler].
//
// Objects that come from a cache are the cache's own, shared with every
// other reader: predicates and handlers must not modify them.
type Event struct {
	Type EventType
	// Object is the object the event is about; for an update, the new
	// version. A source never hands out an event without one: a [Channel]
	// event sent with a Key only gets a [kube.PartialObjectMetadata]
	// holding that namespace and name.
	Object kube.Object
	// Old is the version before an update; nil for other types.
	Old kube.Object
	// Key is Object's namespace and name. Sources fill it in.
	Key kube.Key
	// InInitialList is set on create events for the objects of the
	// cache's first list, and for the objects already cached when the
	// source started.
	InInitialList bool
	// FinalStateUnknown is set on delete events the cache inferred from a
	// relist: Object is the last state it had, not the final one.
	FinalStateUnknown bool
}

// LowPriority is the queue priority of requests for events that are not
// changes: the initial list and resyncs. Real changes are queued with
// priority 0.
const LowPriority = -100

// Priority returns the queue priority a request for e should have:
// [LowPriority] for a create of the initial list and for a resync (an
// update whose old and new objects are the same, or have the same
// resourceVersion), 0 otherwise. The queue hands out higher priorities
// first, so a controller that starts with 10,000 objects, or a resync of
// all of them, still reconciles a real change at once; the queue's aging
// rule (see package queue) makes sure the low-priority backlog is not
// starved. This is controller-runtime's priority queue policy.
func (e Event) Priority() int {
	switch e.Type {
	case EventCreate:
		if e.InInitialList {
			return LowPriority
		}
	case EventUpdate:
		if e.isResync() {
			return LowPriority
		}
	}
	return 0
}

func (e Event) isResync() bool {
	if e.Old == nil || e.Object == nil {
		return false
	}
	if e.Old == e.Object {
		return true
	}
	rv := e.Object.GetObjectMeta().ResourceVersion
	return rv != "" && rv == e.Old.GetObjectMeta().ResourceVersion
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
