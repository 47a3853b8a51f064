// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the garbage collector, as kube-controller-manager's does it
// for what clients can see (controllers.go says when it runs):
//
//   - an object whose owners are all gone (no object of the reference's
//     kind and name, in the dependent's namespace for a namespaced kind,
//     with the reference's uid) is deleted, in the background, or as its
//     own orphan or foregroundDeletion finalizer says; one that still has
//     an owner loses the references to the missing ones;
//   - an owner deleted with propagationPolicy Foreground keeps the
//     foregroundDeletion finalizer (the API server adds it) while its
//     dependents are deleted, until none that blocks it
//     (blockOwnerDeletion) is left;
//   - an owner deleted with Orphan keeps the orphan finalizer until every
//     dependent has lost its reference to it;
//   - in a cycle of foreground deletions (a dependent that owns its own
//     owner), the dependent's references stop blocking, so that both go;
//   - a reference the collector cannot resolve (a kind not served, a
//     namespaced owner of a cluster-scoped object) keeps its object, as the
//     real collector keeps retrying it; Events are not collected;
//   - a reference whose uid is an object in another namespace dangles, and
//     the collector says so in a Warning Event (OwnerRefInvalidNamespace)
//     about the dependent.
//
// The finalizers of dependents are honoured: a dependent deleted with one
// stays until it is removed, and blocks a foreground owner until then.

const (
	finalizerOrphan     = "orphan"
	finalizerForeground = "foregroundDeletion"
)

// gcIgnored reports the resources the real collector ignores (Events),
// whose API also adds no garbage collection finalizers.
func gcIgnored(res *resource) bool {
	return res.stored().Plural == "events" && res.stored().Group == ""
}

// gcFinalizers returns the finalizers an object keeps when it is deleted
// with propagation (Orphan, Background, Foreground, or "" for the
// default), and whether they differ from fins, as the API server sets
// them: the policy asked for, else the one an existing finalizer names.
func gcFinalizers(res *resource, fins []string, propagation string) ([]string, bool) {
	if gcIgnored(res) {
		return fins, false
	}
	orphan, foreground := propagation == "Orphan", propagation == "Foreground"
	if propagation == "" {
		if i := slices.IndexFunc(fins, func(f string) bool { return f == finalizerOrphan || f == finalizerForeground }); i >= 0 {
			orphan, foreground = fins[i] == finalizerOrphan, fins[i] == finalizerForeground
		} else {
			orphan = res.stored().OrphanByDefault
		}
	}
	out := make([]string, 0, len(fins)+1)
	for _, f := range fins {
		if f != finalizerOrphan && f != finalizerForeground {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, finalizerOrphan)
	}
	if foreground {
		out = append(out, finalizerForeground)
	}
	if sameSet(fins, out) {
		return fins, false
	}
	return out, true
}

func sameSet(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			return false
		}
	}
	return true
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
		s.removeFinalizerLocked(res, col, col.objects[ref.key], finalizerOrphan)
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
		s.removeFinalizerLocked(res, col, rec, finalizerForeground)
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
	refs, _ := unstructured.Metadata(o)["ownerReferences"].([]any)
	changed := false
	for _, r := range refs {
		if m, ok := r.(obj); ok && m["blockOwnerDeletion"] == true {
			m["blockOwnerDeletion"] = false
			changed = true
		}
	}
	if !changed {
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
	o := mustDecode(rec.raw)
	meta := unstructured.Metadata(o)
	refs, _ := meta["ownerReferences"].([]any)
	keep := make([]any, 0, len(refs))
	for _, r := range refs {
		if m, ok := r.(obj); !ok || !slices.Contains(uids, unstructured.String(m, "uid")) {
			keep = append(keep, r)
		}
	}
	if len(keep) == len(refs) {
		return
	}
	if len(keep) == 0 {
		delete(meta, "ownerReferences")
	} else {
		meta["ownerReferences"] = keep
	}
	s.controllerUpdateLocked(res, col, rec, "", o)
}

// removeFinalizerLocked removes the finalizer fin from rec, which goes if
// it was the last.
func (s *Server) removeFinalizerLocked(res *resource, col *collection, rec *record, fin string) {
	if rec == nil {
		return
	}
	o := mustDecode(rec.raw)
	meta := unstructured.Metadata(o)
	fins := stringList(meta, "finalizers")
	i := slices.Index(fins, fin)
	if i < 0 {
		return
	}
	fins = slices.Delete(fins, i, i+1)
	if len(fins) == 0 {
		delete(meta, "finalizers")
	} else {
		meta["finalizers"] = anyList(fins)
	}
	s.controllerUpdateLocked(res, col, rec, "", o)
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
	now := nowString()
	const component = "garbage-collector-controller"
	involved := obj{"kind": res.Kind, "name": rec.name, "uid": rec.uid, "apiVersion": res.apiVersion()}
	evNamespace := "default"
	if rec.namespace != "" {
		involved["namespace"], evNamespace = rec.namespace, rec.namespace
	}
	ev := obj{
		"apiVersion": "v1", "kind": "Event",
		"metadata":       obj{"name": fmt.Sprintf("%s.%x", rec.name, time.Now().UnixNano()), "namespace": evNamespace},
		"involvedObject": involved,
		"reason":         "OwnerRefInvalidNamespace",
		"message": fmt.Sprintf("ownerRef [%s/%s, namespace: %s, name: %s, uid: %s] does not exist in namespace %q",
			o.apiVersion, o.kind, rec.namespace, o.name, o.uid, rec.namespace),
		"source":         obj{"component": component},
		"firstTimestamp": now, "lastTimestamp": now, "count": int64(1), "type": "Warning",
		"eventTime": nil, "reportingComponent": component, "reportingInstance": "",
	}
	wr := &write{res: events, col: s.cols[events.colKey()], namespace: evNamespace, manager: "kube-controller-manager"}
	if _, err := s.createLocked(wr, ev); err != nil {
		s.log.Warn("garbage collector event refused", "key", rec.key, "err", err)
	}
}
