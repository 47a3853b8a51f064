// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/nscontroller"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file runs, inside the server, the two controllers of
// kube-controller-manager that clients see as part of the API: the garbage
// collector (package gc, given the store by gc.go) and the namespace
// controller (nscontroller.go).
//
// They are driven by the writes themselves. Every commit and removal is
// observed (observeLocked): it keeps the garbage collector's index of
// owners to dependents and queues the work the change calls for. The queue
// is run to its end before the lock that made the change is released
// (runControllersLocked), so the request that deletes an owner or a
// namespace returns after everything it set off has happened or is waiting
// on a finalizer someone else must remove. Nothing polls and nothing runs
// between requests: a test sees the outcome without sleeping, and the same
// requests always give the same sequence of events.

// ctlOp is a kind of queued controller work.
type ctlOp uint8

const (
	// opCollect: the garbage collector looks at an object that has owners,
	// one of which may be gone or deleting in the foreground.
	opCollect ctlOp = iota
	// opOwner: the garbage collector looks at an object marked deleting
	// with the orphan or foregroundDeletion finalizer.
	opOwner
	// opNamespace: the namespace controller looks at a namespace.
	opNamespace
)

// ctlItem is one piece of queued work: an object by its collection's key
// and its key in it (the name, for opNamespace).
type ctlItem struct {
	op       ctlOp
	col, key string
}

// objRef names a stored object: its collection's key and its key.
type objRef struct{ col, key string }

// maxControllerSteps bounds the work one write can set off, so that a
// cycle of owners (which the real collector also handles only roughly)
// cannot hold the lock for ever.
const maxControllerSteps = 1 << 20

// controllers is the state of the in-process controllers.
type controllers struct {
	// dependents maps the uid of an owner to the objects whose
	// ownerReferences name that uid: the garbage collector's graph, kept
	// by every commit and removal whether or not the collector runs.
	dependents map[string]map[objRef]struct{}
	// queue holds the work not done yet, in the order it was asked for;
	// queued holds the same items, so that each is queued once.
	queue  []ctlItem
	queued map[ctlItem]bool
	// running is set while runControllersLocked empties the queue, so that
	// the writes the controllers make only add to it.
	running bool
}

func newControllers() controllers {
	return controllers{dependents: map[string]map[objRef]struct{}{}, queued: map[ctlItem]bool{}}
}

func (s *Server) enqueueLocked(it ctlItem) {
	if s.ctl.queued[it] {
		return
	}
	s.ctl.queued[it] = true
	s.ctl.queue = append(s.ctl.queue, it)
}

// runControllersLocked does the queued work, and the work it queues, until
// none is left. It costs nothing when nothing was queued.
func (s *Server) runControllersLocked() {
	if s.ctl.running || len(s.ctl.queue) == 0 {
		return
	}
	s.ctl.running = true
	defer func() { s.ctl.running = false }()
	for steps := 0; len(s.ctl.queue) > 0 && steps < maxControllerSteps; steps++ {
		it := s.ctl.queue[0]
		s.ctl.queue[0] = ctlItem{}
		s.ctl.queue = s.ctl.queue[1:]
		delete(s.ctl.queued, it)
		switch it.op {
		case opCollect:
			gc.Collect(gcStore{s}, gc.ObjectRef{Col: it.col, Key: it.key})
		case opOwner:
			gc.Process(gcStore{s}, gc.ObjectRef{Col: it.col, Key: it.key})
		case opNamespace:
			nscontroller.Sync(nsStore{s}, it.key, time.Now())
		}
	}
	if len(s.ctl.queue) > 0 {
		s.log.Warn("controllers stopped after too many steps; work dropped", "left", len(s.ctl.queue))
		s.ctl.queue = nil
		clear(s.ctl.queued)
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
		ref := objRef{col, obj.key}
		if prev != nil {
			for _, o := range prev.owners {
				if deps := s.ctl.dependents[o.uid]; deps != nil {
					delete(deps, ref)
					if len(deps) == 0 {
						delete(s.ctl.dependents, o.uid)
					}
				}
			}
		}
		if !gone {
			for _, o := range obj.owners {
				deps := s.ctl.dependents[o.uid]
				if deps == nil {
					deps = map[objRef]struct{}{}
					s.ctl.dependents[o.uid] = deps
				}
				deps[ref] = struct{}{}
			}
		}
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
		for dep := range s.ctl.dependents[obj.uid] {
			s.enqueueLocked(ctlItem{opCollect, dep.col, dep.key})
		}
	} else if len(obj.owners) > 0 && ownersChanged {
		s.enqueueLocked(ctlItem{opCollect, col, obj.key})
	}
	if e.typ != "DELETED" && obj.deleting && obj.gcFinalizer {
		if col == "" {
			col = res.colKey()
		}
		s.enqueueLocked(ctlItem{opOwner, col, obj.key})
	}
	// An owner deleting in the foreground waits for its blocking
	// dependents: look at it again when one goes or stops naming it.
	if prev != nil && len(prev.owners) > 0 && ownersChanged {
		for _, o := range prev.owners {
			if !o.block {
				continue
			}
			if ores, key, ok := s.ownerKeyLocked(prev.namespace, o); ok {
				s.enqueueLocked(ctlItem{opOwner, ores.colKey(), key})
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
			s.enqueueLocked(ctlItem{op: opNamespace, key: e.obj.name})
		}
	case res.Namespaced:
		if ns := s.cols["/namespaces"].objects[e.obj.namespace]; ns != nil && ns.deleting {
			s.enqueueLocked(ctlItem{op: opNamespace, key: ns.name})
		}
	}
}

// resourceOfLocked returns the served resource of the collection col,
// preferring its storage version; nil when it is not served any more.
func (s *Server) resourceOfLocked(col string) *resource {
	var out *resource
	for _, list := range s.reg.byGV {
		for _, r := range list {
			if r.colKey() == col && (out == nil || r.Version == r.StorageVersion) {
				out = r
			}
		}
	}
	return out
}

// ownerRef is one entry of metadata.ownerReferences.
type ownerRef struct {
	apiVersion, kind, name, uid string
	block                       bool // blockOwnerDeletion
}

// parseOwners reads metadata.ownerReferences; nil when there are none.
func parseOwners(meta obj) []ownerRef {
	refs, _ := meta["ownerReferences"].([]any)
	if len(refs) == 0 {
		return nil
	}
	out := make([]ownerRef, 0, len(refs))
	for _, r := range refs {
		m, ok := r.(obj)
		if !ok {
			continue
		}
		block, _ := m["blockOwnerDeletion"].(bool)
		out = append(out, ownerRef{apiVersion: unstructured.String(m, "apiVersion"), kind: unstructured.String(m, "kind"),
			name: unstructured.String(m, "name"), uid: unstructured.String(m, "uid"), block: block})
	}
	return out
}
