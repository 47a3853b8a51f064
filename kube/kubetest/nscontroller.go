// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"maps"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/nscontroller"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the namespace's own DELETE and gives package
// nscontroller, the namespace controller, the server's store (nsStore);
// package nscontroller's doc tells a namespace's lifecycle.

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

// nsStore is the server's store as the namespace controller sees it
// (nscontroller.Store). Its methods are called with s.mu held.
type nsStore struct{ s *Server }

func (n nsStore) Namespace(name string) (map[string]any, bool) {
	rec := n.s.cols["/namespaces"].objects[name]
	if rec == nil {
		return nil, false
	}
	return mustDecode(rec.raw), rec.deleting
}

func (n nsStore) Collections() (keys, names []string) {
	stored := n.s.storedResourcesLocked()
	for _, key := range slices.Sorted(maps.Keys(stored)) {
		if res := stored[key]; res.Namespaced && n.s.cols[key] != nil {
			keys, names = append(keys, key), append(names, res.Plural+"."+res.Group)
		}
	}
	return keys, names
}

func (n nsStore) DeleteContent(key, ns string, finalizers map[string]int) int {
	return n.s.deleteNamespaceContentLocked(n.s.resourceOfLocked(key), n.s.cols[key], ns, finalizers)
}

func (n nsStore) Update(name, sub string, o map[string]any) {
	nsCol := n.s.cols["/namespaces"]
	if rec := nsCol.objects[name]; rec != nil {
		n.s.controllerUpdateLocked(n.s.reg.lookup("", "v1", "namespaces"), nsCol, rec, sub, o)
	}
}

// deleteNamespaceContentLocked deletes, in the background, the objects of
// col in namespace ns not marked deleting yet, and answers how many are
// left, counting the finalizers they hold into finalizers.
func (s *Server) deleteNamespaceContentLocked(res *resource, col *collection, ns string, finalizers map[string]int) int {
	prefix := ns + "/"
	var in []string
	for _, k := range col.keys() {
		if strings.HasPrefix(k, prefix) {
			in = append(in, k)
		}
	}
	for _, k := range in {
		if r := col.objects[k]; r != nil && !r.deleting {
			wr := &write{res: res, col: col, namespace: ns, name: r.name, manager: "kube-controller-manager", propagation: "Background"}
			_, _, _ = s.deleteLocked(wr, r)
		}
	}
	left := 0
	for _, k := range in {
		r := col.objects[k]
		if r == nil {
			continue
		}
		left++
		for _, f := range stringList(unstructured.Metadata(mustDecode(r.raw)), "finalizers") {
			finalizers[f]++
		}
	}
	return left
}
