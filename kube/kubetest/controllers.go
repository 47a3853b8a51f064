// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"maps"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/controllers"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/nscontroller"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file runs, inside the server, the garbage collector and the
// namespace controller (internal/controllers says how and when), and
// gives them the server's store (ctlStore). The namespace's own DELETE
// is here too.

// runControllersLocked does the queued work, and the work it queues, until
// none is left. It costs nothing when nothing was queued.
func (s *Server) runControllersLocked() {
	if dropped := s.ctl.Run(ctlStore{s}); dropped > 0 {
		s.log.Warn("controllers stopped after too many steps; work dropped", "left", dropped)
	}
}

// observeLocked is called for every committed event of res: it keeps the
// owner index and queues the controllers' work.
func (s *Server) observeLocked(res *resource, e *event) {
	ch := controllers.Change{Ref: gc.ObjectRef{Col: res.colKey(), Key: e.obj.key}, Gone: e.typ == "DELETED",
		Obj: gcObject(e.obj), Name: e.obj.name, Namespace: isNamespaces(res), Namespaced: res.Namespaced,
		Collected: !gcIgnored(res)}
	if e.prev != nil {
		prev := gcObject(e.prev)
		ch.Prev = &prev
	}
	s.ctl.Observe(ctlStore{s}, ch)
}

// gcObject is what the garbage collector reads of rec; its owners are
// rec's, not a copy.
func gcObject(rec *record) gc.Object {
	return gc.Object{UID: rec.uid, Namespace: rec.namespace, Owners: rec.owners, Deleting: rec.deleting,
		Foreground: rec.foreground, Orphan: rec.orphan, GCFinalizer: rec.gcFinalizer}
}

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

// deleteNamespaceLocked is the namespaces' own DELETE: the first marks
// the namespace Terminating, with the orphan or foregroundDeletion
// finalizer the options ask for; a later one changes nothing while
// spec.finalizers is not empty. done is false when the generic deletion
// applies (a terminating namespace already finalized).
func (s *Server) deleteNamespaceLocked(wr *write, prev *record) (rec *record, done bool) {
	o := mustDecode(prev.raw)
	if prev.deleting {
		spec, _ := o["spec"].(obj)
		if len(stringList(spec, "finalizers")) > 0 {
			return prev, true
		}
		return nil, false
	}
	nscontroller.MarkTerminating(o, wr.propagation, nowString())
	if wr.dryRun {
		return makeRecord(wr.res, o), true
	}
	return s.commitLocked(wr.res, wr.col, "MODIFIED", o, prev), true
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

// ctlStore is the server's store as the controllers see it
// (controllers.Store). Its methods are called with s.mu held; the
// controllers' writes are kube-controller-manager's.
type ctlStore struct{ s *Server }

func (c ctlStore) record(ref gc.ObjectRef) *record {
	if col := c.s.cols[ref.Col]; col != nil {
		return col.objects[ref.Key]
	}
	return nil
}

func (c ctlStore) Object(ref gc.ObjectRef) (controllers.Object, bool) {
	if rec := c.record(ref); rec != nil {
		return controllers.Object{Object: gcObject(rec), Name: rec.name}, true
	}
	return controllers.Object{}, false
}

func (c ctlStore) Served(col string) (apiVersion, kind string, ok bool) {
	if res := c.s.resourceOfLocked(col); res != nil {
		return res.APIVersion(), res.Kind, true
	}
	return "", "", false
}

func (c ctlStore) Decode(ref gc.ObjectRef) map[string]any { return mustDecode(c.record(ref).raw) }

func (c ctlStore) Keys(col string) []string {
	if cl := c.s.cols[col]; cl != nil {
		return cl.keys()
	}
	return nil
}

func (c ctlStore) Owner(ns string, o gc.Owner) (gc.ObjectRef, bool, bool) {
	group, version := kinds.SplitAPIVersion(o.APIVersion)
	res := c.s.reg.ByKind(group, version, o.Kind)
	if res == nil || res.Namespaced && ns == "" {
		return gc.ObjectRef{}, false, false
	}
	if !res.Namespaced {
		ns = ""
	}
	return gc.ObjectRef{Col: res.colKey(), Key: objectKey(ns, o.Name)}, res.Namespaced, true
}

func (c ctlStore) HasUID(col, uid, ns string) bool {
	for _, r := range c.s.cols[col].objects {
		if r.uid == uid && r.namespace != ns {
			return true
		}
	}
	return false
}

func (c ctlStore) NamespaceDeleting(name string) bool {
	ns := c.s.cols["/namespaces"].objects[name]
	return ns != nil && ns.deleting
}

func (c ctlStore) Namespaced() (keys, names []string) {
	stored := c.s.storedResourcesLocked()
	for _, key := range slices.Sorted(maps.Keys(stored)) {
		if res := stored[key]; res.Namespaced && c.s.cols[key] != nil {
			keys, names = append(keys, key), append(names, res.Plural+"."+res.Group)
		}
	}
	return keys, names
}

// write is a write of kube-controller-manager's to the object at ref;
// nil when it is gone or its collection is not served.
func (c ctlStore) write(ref gc.ObjectRef) (*write, *record) {
	rec, res := c.record(ref), c.s.resourceOfLocked(ref.Col)
	if rec == nil || res == nil {
		return nil, nil
	}
	return &write{res: res, col: c.s.cols[ref.Col], namespace: rec.namespace, name: rec.name,
		manager: "kube-controller-manager"}, rec
}

func (c ctlStore) Delete(ref gc.ObjectRef, propagation string) {
	if wr, rec := c.write(ref); wr != nil {
		wr.propagation = propagation
		_, _, _ = c.s.deleteLocked(wr, rec)
	}
}

func (c ctlStore) Update(ref gc.ObjectRef, sub string, o map[string]any) {
	wr, rec := c.write(ref)
	if wr == nil {
		return
	}
	wr.sub = sub
	if _, err := c.s.updateLocked(wr, wr.res.fromStored(o), nil); err != nil {
		c.s.log.Warn("controller update failed", "kind", wr.res.Kind, "key", rec.key, "err", err)
	}
}

func (c ctlStore) Record(about gc.ObjectRef, ev map[string]any) {
	events := c.s.reg.Lookup("", "v1", "events")
	wr := &write{res: events, col: c.s.cols[events.colKey()], manager: "kube-controller-manager",
		namespace: unstructured.String(unstructured.Metadata(ev), "namespace")}
	if _, err := c.s.createLocked(wr, ev); err != nil {
		c.s.log.Warn("garbage collector event refused", "key", about.Key, "err", err)
	}
}
