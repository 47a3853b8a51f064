// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file runs the garbage collector on the server's store
// (controllers.go says when); its rules, decisions and edits are package
// gc's.

// gcIgnored reports the resources the real collector ignores (Events),
// whose API also adds no garbage collection finalizers.
func gcIgnored(res *resource) bool {
	return res.stored().Plural == "events" && res.stored().Group == ""
}

// gcFinalizers returns the finalizers an object of res keeps when it is
// deleted with propagation, and whether they differ from fins
// (gc.Finalizers); Events keep theirs.
func gcFinalizers(res *resource, fins []string, propagation string) ([]string, bool) {
	if gcIgnored(res) {
		return fins, false
	}
	return gc.Finalizers(fins, propagation, res.stored().OrphanByDefault)
}

// ownerKeyLocked resolves an owner reference of an object in namespace ns
// to the served resource of its kind and the key the owner would have.
func (s *Server) ownerKeyLocked(ns string, o ownerRef) (*resource, string, bool) {
	group, version, ok := strings.Cut(o.apiVersion, "/")
	if !ok {
		group, version = "", o.apiVersion
	}
	res := s.reg.byKind(group, version, o.kind)
	if res == nil || res.Namespaced && ns == "" {
		return nil, "", false
	}
	if !res.Namespaced {
		ns = ""
	}
	return res, objectKey(ns, o.name), true
}

// ownerState is what the collector finds at the end of an owner reference.
type ownerState uint8

const (
	ownerSolid      ownerState = iota // exists and is not waiting on its dependents
	ownerAbsent                       // no object with that kind, name and uid
	ownerWaiting                      // deleting in the foreground
	ownerUnresolved                   // kind not served, or not a valid owner
)

func (s *Server) ownerStateLocked(ns string, o ownerRef) ownerState {
	res, key, ok := s.ownerKeyLocked(ns, o)
	if !ok {
		return ownerUnresolved
	}
	col := s.cols[res.colKey()]
	if col == nil {
		return ownerUnresolved
	}
	owner := col.objects[key]
	switch {
	case owner == nil || owner.uid != o.uid:
		return ownerAbsent
	case owner.deleting && owner.foreground:
		return ownerWaiting
	}
	return ownerSolid
}

// collectLocked decides the fate of the object at ref from its owners.
func (s *Server) collectLocked(ref objRef) {
	col := s.cols[ref.col]
	if col == nil {
		return
	}
	rec := col.objects[ref.key]
	if rec == nil || len(rec.owners) == 0 {
		return
	}
	if rec.deleting {
		if rec.foreground {
			s.enqueueLocked(ctlItem{opOwner, ref.col, ref.key})
		}
		return
	}
	res := s.resourceOfLocked(ref.col)
	if res == nil {
		return
	}
	var solid bool
	var drop []string // uids of absent and waiting owners
	waiting := false
	for _, o := range rec.owners {
		switch s.ownerStateLocked(rec.namespace, o) {
		case ownerUnresolved:
			if rec.namespace == "" { // a namespaced owner of a cluster-scoped object
				s.reportOwnerInOtherNamespaceLocked(res, rec, o)
			}
			return
		case ownerSolid:
			solid = true
		case ownerAbsent:
			drop = append(drop, o.uid)
			s.reportOwnerInOtherNamespaceLocked(res, rec, o)
		case ownerWaiting:
			waiting = true
			drop = append(drop, o.uid)
		}
	}
	switch {
	case solid:
		if len(drop) > 0 {
			s.dropOwnerRefsLocked(res, col, rec, drop)
		}
		return
	case waiting && len(s.ctl.dependents[rec.uid]) > 0:
		if s.dependentWaitsLocked(rec) {
			// A cycle of foreground deletions: its references stop
			// blocking, so that its owners need not wait for it.
			rec = s.unblockOwnerRefsLocked(res, col, rec)
		}
		s.gcDeleteLocked(res, col, rec, "Foreground")
	case rec.orphan:
		s.gcDeleteLocked(res, col, rec, "Orphan")
	case rec.foreground:
		s.gcDeleteLocked(res, col, rec, "Foreground")
	default:
		s.gcDeleteLocked(res, col, rec, "Background")
	}
}

// gcDeleteLocked deletes rec as the collector does, with propagation.
func (s *Server) gcDeleteLocked(res *resource, col *collection, rec *record, propagation string) {
	wr := &write{res: res, col: col, namespace: rec.namespace, name: rec.name,
		manager: "kube-controller-manager", propagation: propagation}
	_, _, _ = s.deleteLocked(wr, rec)
}

// processOwnerLocked goes on with an owner the collector holds by a
// finalizer: orphans its dependents, or deletes those a foreground
// deletion waits for, and removes the finalizer when it is done.
func (s *Server) processOwnerLocked(ref objRef) {
	col := s.cols[ref.col]
	if col == nil {
		return
	}
	rec := col.objects[ref.key]
	if rec == nil || !rec.deleting || !rec.gcFinalizer {
		return
	}
	res := s.resourceOfLocked(ref.col)
	if res == nil {
		return
	}
	deps := slices.SortedFunc(maps.Keys(s.ctl.dependents[rec.uid]), func(a, b objRef) int {
		return strings.Compare(a.col+"\x00"+a.key, b.col+"\x00"+b.key)
	})
	if rec.orphan {
		for _, d := range deps {
			dcol := s.cols[d.col]
			if dcol == nil {
				continue
			}
			dep := dcol.objects[d.key]
			if dres := s.resourceOfLocked(d.col); dep != nil && dres != nil {
				s.dropOwnerRefsLocked(dres, dcol, dep, []string{rec.uid})
			}
		}
		s.removeFinalizerLocked(res, col, col.objects[ref.key], gc.FinalizerOrphan)
		return
	}
	blocked := false
	for _, d := range deps {
		dcol := s.cols[d.col]
		if dcol == nil || dcol.objects[d.key] == nil {
			continue
		}
		dep := dcol.objects[d.key]
		for _, o := range dep.owners {
			if o.uid == rec.uid && o.block {
				blocked = true
			}
		}
		s.enqueueLocked(ctlItem{opCollect, d.col, d.key})
	}
	if !blocked {
		s.removeFinalizerLocked(res, col, rec, gc.FinalizerForeground)
	}
}

// dependentWaitsLocked reports whether a dependent of rec is itself
// deleting in the foreground, the sign of a cycle of owners.
func (s *Server) dependentWaitsLocked(rec *record) bool {
	for d := range s.ctl.dependents[rec.uid] {
		if col := s.cols[d.col]; col != nil {
			if dep := col.objects[d.key]; dep != nil && dep.deleting && dep.foreground {
				return true
			}
		}
	}
	return false
}

// unblockOwnerRefsLocked sets blockOwnerDeletion false in every owner
// reference of rec that has it true, and answers rec as it then is.
func (s *Server) unblockOwnerRefsLocked(res *resource, col *collection, rec *record) *record {
	o := mustDecode(rec.raw)
	if !gc.UnblockOwnerRefs(o) {
		return rec
	}
	s.controllerUpdateLocked(res, col, rec, "", o)
	if cur := col.objects[rec.key]; cur != nil {
		return cur
	}
	return rec
}

// dropOwnerRefsLocked removes from rec the owner references to the uids.
func (s *Server) dropOwnerRefsLocked(res *resource, col *collection, rec *record, uids []string) {
	if o := mustDecode(rec.raw); gc.DropOwnerRefs(o, uids) {
		s.controllerUpdateLocked(res, col, rec, "", o)
	}
}

// removeFinalizerLocked removes the finalizer fin from rec, which goes if
// it was the last.
func (s *Server) removeFinalizerLocked(res *resource, col *collection, rec *record, fin string) {
	if rec == nil {
		return
	}
	if o := mustDecode(rec.raw); gc.RemoveFinalizer(o, fin) {
		s.controllerUpdateLocked(res, col, rec, "", o)
	}
}

// controllerUpdateLocked writes o, a changed copy of rec, as an update of
// kube-controller-manager's (to the subresource sub, if not ""): the
// object goes if it is deleting and o has no finalizer left.
func (s *Server) controllerUpdateLocked(res *resource, col *collection, rec *record, sub string, o obj) {
	wr := &write{res: res, col: col, namespace: rec.namespace, name: rec.name, sub: sub, manager: "kube-controller-manager"}
	if _, err := s.updateLocked(wr, res.fromStored(o), nil); err != nil {
		s.log.Warn("controller update failed", "kind", res.Kind, "key", rec.key, "err", err)
	}
}

func anyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// reportOwnerInOtherNamespaceLocked records the collector's Warning Event
// about rec when its reference o, absent from rec's namespace, names by
// uid an object of a namespaced kind in another namespace; for a
// cluster-scoped rec, any object of a namespaced kind (the event then goes
// to namespace default, as the real recorder puts it). It costs a scan of
// the owner kind's objects, only for references found dangling or
// unresolved.
func (s *Server) reportOwnerInOtherNamespaceLocked(res *resource, rec *record, o ownerRef) {
	group, version, ok := strings.Cut(o.apiVersion, "/")
	if !ok {
		group, version = "", o.apiVersion
	}
	ores := s.reg.byKind(group, version, o.kind)
	if ores == nil || !ores.Namespaced || s.cols[ores.colKey()] == nil {
		return
	}
	found := false
	for _, r := range s.cols[ores.colKey()].objects {
		if r.uid == o.uid && r.namespace != rec.namespace {
			found = true
			break
		}
	}
	if !found {
		return
	}
	events := s.reg.lookup("", "v1", "events")
	dependent := gc.Ref{APIVersion: res.apiVersion(), Kind: res.Kind, Namespace: rec.namespace, Name: rec.name, UID: rec.uid}
	owner := gc.Ref{APIVersion: o.apiVersion, Kind: o.kind, Name: o.name, UID: o.uid}
	ev := gc.InvalidNamespaceEvent(dependent, owner, time.Now())
	evNamespace := unstructured.String(unstructured.Metadata(ev), "namespace")
	wr := &write{res: events, col: s.cols[events.colKey()], namespace: evNamespace, manager: "kube-controller-manager"}
	if _, err := s.createLocked(wr, ev); err != nil {
		s.log.Warn("garbage collector event refused", "key", rec.key, "err", err)
	}
}
