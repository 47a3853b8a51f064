// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file gives package gc, the garbage collector, the server's store
// (gcStore); controllers.go says when the collector runs.

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
func (s *Server) ownerKeyLocked(ns string, o gc.Owner) (*resource, string, bool) {
	group, version := kinds.SplitAPIVersion(o.APIVersion)
	res := s.reg.byKind(group, version, o.Kind)
	if res == nil || res.Namespaced && ns == "" {
		return nil, "", false
	}
	if !res.Namespaced {
		ns = ""
	}
	return res, objectKey(ns, o.Name), true
}

// gcStore is the server's store as the garbage collector sees it
// (gc.Store). Its methods are called with s.mu held. An object of a
// collection no served resource stores is no object to it.
type gcStore struct{ s *Server }

// lookup returns the served resource, collection and record at ref.
func (g gcStore) lookup(ref gc.ObjectRef) (*resource, *collection, *record) {
	col := g.s.cols[ref.Col]
	if col == nil {
		return nil, nil, nil
	}
	rec := col.objects[ref.Key]
	res := g.s.resourceOfLocked(ref.Col)
	if rec == nil || res == nil {
		return nil, nil, nil
	}
	return res, col, rec
}

func (g gcStore) Object(ref gc.ObjectRef) (gc.Object, bool) {
	_, _, rec := g.lookup(ref)
	if rec == nil {
		return gc.Object{}, false
	}
	return gc.Object{UID: rec.uid, Namespace: rec.namespace, Owners: slices.Clone(rec.owners), Deleting: rec.deleting,
		Foreground: rec.foreground, Orphan: rec.orphan, GCFinalizer: rec.gcFinalizer}, true
}

func (g gcStore) OwnerState(ns string, o gc.Owner) gc.OwnerState {
	res, key, ok := g.s.ownerKeyLocked(ns, o)
	if !ok {
		return gc.OwnerUnresolved
	}
	col := g.s.cols[res.colKey()]
	if col == nil {
		return gc.OwnerUnresolved
	}
	owner := col.objects[key]
	switch {
	case owner == nil || owner.uid != o.UID:
		return gc.OwnerAbsent
	case owner.deleting && owner.foreground:
		return gc.OwnerWaiting
	}
	return gc.OwnerSolid
}

func (g gcStore) Dependents(uid string) []gc.ObjectRef {
	deps := g.s.ctl.owners.Dependents(uid)
	out := make([]gc.ObjectRef, len(deps))
	for i, d := range deps {
		out[i] = gc.ObjectRef{Col: d.Col, Key: d.Key}
	}
	return out
}

func (g gcStore) Delete(ref gc.ObjectRef, propagation string) {
	if res, col, rec := g.lookup(ref); rec != nil {
		g.s.gcDeleteLocked(res, col, rec, propagation)
	}
}

func (g gcStore) Update(ref gc.ObjectRef, edit func(o map[string]any) bool) {
	if res, col, rec := g.lookup(ref); rec != nil {
		if o := mustDecode(rec.raw); edit(o) {
			g.s.controllerUpdateLocked(res, col, rec, "", o)
		}
	}
}

func (g gcStore) Enqueue(ref gc.ObjectRef, owner bool) {
	op := opCollect
	if owner {
		op = opOwner
	}
	g.s.enqueueLocked(ctlItem{Op: op, Col: ref.Col, Key: ref.Key})
}

func (g gcStore) ReportOwnerElsewhere(ref gc.ObjectRef, o gc.Owner) {
	if res, _, rec := g.lookup(ref); rec != nil {
		g.s.reportOwnerInOtherNamespaceLocked(res, rec, o)
	}
}

// gcDeleteLocked deletes rec as the collector does, with propagation.
func (s *Server) gcDeleteLocked(res *resource, col *collection, rec *record, propagation string) {
	wr := &write{res: res, col: col, namespace: rec.namespace, name: rec.name,
		manager: "kube-controller-manager", propagation: propagation}
	_, _, _ = s.deleteLocked(wr, rec)
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

func anyList(ss []string) []any { return unstructured.AnyList(ss) }

// reportOwnerInOtherNamespaceLocked records the collector's Warning Event
// about rec when its reference o, absent from rec's namespace, names by
// uid an object of a namespaced kind in another namespace; for a
// cluster-scoped rec, any object of a namespaced kind (the event then goes
// to namespace default, as the real recorder puts it). It costs a scan of
// the owner kind's objects, only for references found dangling or
// unresolved.
func (s *Server) reportOwnerInOtherNamespaceLocked(res *resource, rec *record, o gc.Owner) {
	group, version := kinds.SplitAPIVersion(o.APIVersion)
	ores := s.reg.byKind(group, version, o.Kind)
	if ores == nil || !ores.Namespaced || s.cols[ores.colKey()] == nil {
		return
	}
	found := false
	for _, r := range s.cols[ores.colKey()].objects {
		if r.uid == o.UID && r.namespace != rec.namespace {
			found = true
			break
		}
	}
	if !found {
		return
	}
	events := s.reg.lookup("", "v1", "events")
	dependent := gc.Ref{APIVersion: res.apiVersion(), Kind: res.Kind, Namespace: rec.namespace, Name: rec.name, UID: rec.uid}
	owner := gc.Ref{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: o.UID}
	ev := gc.InvalidNamespaceEvent(dependent, owner, time.Now())
	evNamespace := unstructured.String(unstructured.Metadata(ev), "namespace")
	wr := &write{res: events, col: s.cols[events.colKey()], namespace: evNamespace, manager: "kube-controller-manager"}
	if _, err := s.createLocked(wr, ev); err != nil {
		s.log.Warn("garbage collector event refused", "key", rec.key, "err", err)
	}
}
