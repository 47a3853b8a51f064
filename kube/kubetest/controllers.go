// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/ctlstate"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/nscontroller"
)

// This file runs, inside the server, the two controllers of
// kube-controller-manager that clients see as part of the API: the garbage
// collector (package gc, given the store by gc.go) and the namespace
// controller (nscontroller.go).
//
// They are driven by the writes themselves. Every commit and removal is
// observed (observeLocked): it keeps the garbage collector's index of
// owners to dependents and queues the work the change calls for (both
// kept by internal/ctlstate). The queue is run to its end before the lock that made the change is released
// (runControllersLocked), so the request that deletes an owner or a
// namespace returns after everything it set off has happened or is waiting
// on a finalizer someone else must remove. Nothing polls and nothing runs
// between requests: a test sees the outcome without sleeping, and the same
// requests always give the same sequence of events.

// ctlItem is one piece of queued work (internal/ctlstate).
type ctlItem = ctlstate.Item

// The kinds of queued work.
const (
	opCollect   = ctlstate.Collect
	opOwner     = ctlstate.Owner
	opNamespace = ctlstate.Namespace
)

// maxControllerSteps bounds the work one write can set off, so that a
// cycle of owners (which the real collector also handles only roughly)
// cannot hold the lock for ever.
const maxControllerSteps = 1 << 20

// controllers is the state of the in-process controllers.
type controllers struct {
	// owners is the garbage collector's graph, kept by every commit and
	// removal whether or not the collector runs.
	owners ctlstate.Index
	// queue holds the work not done yet.
	queue ctlstate.Queue
}

func newControllers() controllers { return controllers{} }

func (s *Server) enqueueLocked(it ctlItem) { s.ctl.queue.Add(it) }

// runControllersLocked does the queued work, and the work it queues, until
// none is left. It costs nothing when nothing was queued.
func (s *Server) runControllersLocked() {
	dropped := s.ctl.queue.Run(maxControllerSteps, func(it ctlItem) {
		switch it.Op {
		case opCollect:
			gc.Collect(gcStore{s}, gc.ObjectRef{Col: it.Col, Key: it.Key})
		case opOwner:
			gc.Process(gcStore{s}, gc.ObjectRef{Col: it.Col, Key: it.Key})
		case opNamespace:
			nscontroller.Sync(nsStore{s}, it.Key, time.Now())
		}
	})
	if dropped > 0 {
		s.log.Warn("controllers stopped after too many steps; work dropped", "left", dropped)
	}
}

// observeLocked is called for every committed event of res: it keeps the
// owner index and queues the controllers' work.
func (s *Server) observeLocked(res *resource, e *event) {
	obj, prev := e.obj, e.prev
	gone := e.typ == "DELETED"
	ownersChanged := prev == nil || gone || !slices.Equal(prev.owners, obj.owners)
	var col string
	if ownersChanged && (len(obj.owners) > 0 || prev != nil && len(prev.owners) > 0) {
		col = res.colKey()
		var prevOwners, owners []string
		if prev != nil {
			prevOwners = gc.OwnerUIDs(prev.owners)
		}
		if !gone {
			owners = gc.OwnerUIDs(obj.owners)
		}
		s.ctl.owners.Update(ctlstate.Ref{Col: col, Key: obj.key}, prevOwners, owners)
	}
	if !s.opts.DisableGarbageCollection && !gcIgnored(res) {
		s.observeForGCLocked(res, e, col, ownersChanged)
	}
	s.observeForNamespaceLocked(res, e)
}

// observeForGCLocked queues the garbage collector's work for e: the
// dependents of a removed object, an object whose owners changed, an
// owner that waits for the collector, and the owners a dependent stopped
// blocking.
func (s *Server) observeForGCLocked(res *resource, e *event, col string, ownersChanged bool) {
	obj, prev := e.obj, e.prev
	if e.typ == "DELETED" {
		for _, dep := range s.ctl.owners.Dependents(obj.uid) {
			s.enqueueLocked(ctlItem{Op: opCollect, Col: dep.Col, Key: dep.Key})
		}
	} else if len(obj.owners) > 0 && ownersChanged {
		s.enqueueLocked(ctlItem{Op: opCollect, Col: col, Key: obj.key})
	}
	if e.typ != "DELETED" && obj.deleting && obj.gcFinalizer {
		if col == "" {
			col = res.colKey()
		}
		s.enqueueLocked(ctlItem{Op: opOwner, Col: col, Key: obj.key})
	}
	// An owner deleting in the foreground waits for its blocking
	// dependents: look at it again when one goes or stops naming it.
	if prev != nil && len(prev.owners) > 0 && ownersChanged {
		for _, o := range prev.owners {
			if !o.Block {
				continue
			}
			if ores, key, ok := s.ownerKeyLocked(prev.namespace, o); ok {
				s.enqueueLocked(ctlItem{Op: opOwner, Col: ores.colKey(), Key: key})
			}
		}
	}
}

// observeForNamespaceLocked queues the namespace controller for a
// namespace marked deleting and for a terminating namespace whose content
// changed.
func (s *Server) observeForNamespaceLocked(res *resource, e *event) {
	switch {
	case isNamespaces(res):
		if e.typ != "DELETED" && e.obj.deleting {
			s.enqueueLocked(ctlItem{Op: opNamespace, Key: e.obj.name})
		}
	case res.Namespaced:
		if ns := s.cols["/namespaces"].objects[e.obj.namespace]; ns != nil && ns.deleting {
			s.enqueueLocked(ctlItem{Op: opNamespace, Key: ns.name})
		}
	}
}

// resourceOfLocked returns the served resource of the collection col,
// preferring its storage version; nil when it is not served any more.
func (s *Server) resourceOfLocked(col string) *resource {
	var out *resource
	for _, list := range s.reg.ByGV {
		for _, r := range list {
			if r.colKey() == col && (out == nil || r.Version == r.StorageVersion) {
				out = r
			}
		}
	}
	return out
}
