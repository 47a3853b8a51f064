// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/gc"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the lifecycle of a namespace, as kube-apiserver and
// kube-controller-manager's namespace controller give it:
//
//  1. DELETE marks the namespace: deletionTimestamp (without
//     deletionGracePeriodSeconds), status.phase Terminating, spec.finalizers
//     ["kubernetes"] kept; the answer is that object, 200. Creates in it are
//     refused (create.go, 403 "unable to create new content in namespace X
//     because it is being terminated").
//  2. The controller deletes its content, pods first (and nothing else
//     while pods remain, when it writes its conditions all False, counting
//     nothing), each object in the background (so objects with finalizers
//     are marked deleting and stay).
//  3. It writes five status conditions, each False with its "all is well"
//     reason, or True for content and finalizers remaining (with the counts
//     by resource and by finalizer in the real messages).
//  4. When nothing remains it finalizes the namespace (the "kubernetes"
//     entry leaves spec.finalizers, as PUT namespaces/X/finalize does), and
//     the namespace goes once no finalizer is left.
//
// The real controller waits 5 s before it starts and polls while content
// remains; here each step happens in the request that makes it possible.

const namespaceFinalizer = "kubernetes"

// namespaceConditions are the condition types the controller keeps, in its
// order, with the reason and message of their False status.
var namespaceConditions = [...]struct{ typ, reason, message string }{
	{"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
	{"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
	{"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
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
	meta := unstructured.Metadata(o)
	meta["deletionTimestamp"] = nowString()
	st, _ := o["status"].(obj)
	if st == nil {
		st = obj{}
		o["status"] = st
	}
	st["phase"] = "Terminating"
	fins := stringList(meta, "finalizers")
	orphan, foreground := slices.Contains(fins, gc.FinalizerOrphan), slices.Contains(fins, gc.FinalizerForeground)
	switch wr.propagation {
	case "Orphan":
		orphan, foreground = true, false
	case "Foreground":
		orphan, foreground = false, true
	case "Background":
		orphan, foreground = false, false
	}
	fins = slices.DeleteFunc(fins, func(f string) bool { return f == gc.FinalizerOrphan || f == gc.FinalizerForeground })
	if orphan {
		fins = append(fins, gc.FinalizerOrphan)
	}
	if foreground {
		fins = append(fins, gc.FinalizerForeground)
	}
	if len(fins) > 0 {
		meta["finalizers"] = anyList(fins)
	} else {
		delete(meta, "finalizers")
	}
	if wr.dryRun {
		return makeRecord(wr.res, o), true
	}
	return s.commitLocked(wr.res, wr.col, "MODIFIED", o, prev), true
}

// syncNamespaceLocked is one pass of the namespace controller over the
// namespace name.
func (s *Server) syncNamespaceLocked(name string) {
	nsCol := s.cols["/namespaces"]
	rec := nsCol.objects[name]
	if rec == nil || !rec.deleting {
		return
	}
	o := mustDecode(rec.raw)
	spec, _ := o["spec"].(obj)
	if !slices.Contains(stringList(spec, "finalizers"), namespaceFinalizer) {
		return
	}
	stored := s.storedResourcesLocked()
	keys := slices.Sorted(maps.Keys(stored))
	// Pods first, and nothing else while a pod remains
	// (OrderedNamespaceDeletion, on by default).
	if i := slices.Index(keys, "/pods"); i > 0 {
		keys = append([]string{"/pods"}, slices.Delete(keys, i, i+1)...)
	}
	remaining := map[string]int{}  // "plural.group" → objects left
	finalizers := map[string]int{} // finalizer → objects left holding it
	for _, key := range keys {
		res := stored[key]
		col := s.cols[key]
		if !res.Namespaced || col == nil {
			continue
		}
		left := s.deleteNamespaceContentLocked(res, col, name, finalizers)
		if key == "/pods" && left > 0 {
			// The real controller stops here and writes its conditions
			// without counting what remains: all of them False.
			s.setNamespaceConditionsLocked(name, nil, nil)
			return
		}
		if left > 0 {
			remaining[res.Plural+"."+res.Group] = left
		}
	}
	s.setNamespaceConditionsLocked(name, remaining, finalizers)
	if len(remaining) > 0 {
		return
	}
	// Finalize, as the controller's PUT of namespaces/X/finalize.
	rec = nsCol.objects[name]
	if rec == nil {
		return
	}
	o = mustDecode(rec.raw)
	spec, _ = o["spec"].(obj)
	if spec == nil {
		return
	}
	spec["finalizers"] = anyList(slices.DeleteFunc(stringList(spec, "finalizers"), func(f string) bool { return f == namespaceFinalizer }))
	s.controllerUpdateLocked(s.reg.lookup("", "v1", "namespaces"), nsCol, rec, "finalize", o)
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

// setNamespaceConditionsLocked writes the controller's conditions to the
// status of namespace name, when they change.
func (s *Server) setNamespaceConditionsLocked(name string, remaining, finalizers map[string]int) {
	nsCol := s.cols["/namespaces"]
	rec := nsCol.objects[name]
	o := mustDecode(rec.raw)
	st, _ := o["status"].(obj)
	if st == nil {
		st = obj{}
		o["status"] = st
	}
	conds, _ := st["conditions"].([]any)
	now := nowString()
	changed := false
	for _, c := range namespaceConditions {
		status, reason, message := "False", c.reason, c.message
		switch {
		case c.typ == "NamespaceContentRemaining" && len(remaining) > 0:
			status, reason = "True", "SomeResourcesRemain"
			message = "Some resources are remaining: " + countList(remaining, "%s has %d resource instances")
		case c.typ == "NamespaceFinalizersRemaining" && len(finalizers) > 0:
			status, reason = "True", "SomeFinalizersRemain"
			message = "Some content in the namespace has finalizers remaining: " + countList(finalizers, "%s in %d resource instances")
		}
		i := slices.IndexFunc(conds, func(x any) bool { m, _ := x.(obj); return unstructured.String(m, "type") == c.typ })
		if i < 0 {
			conds = append(conds, obj{"type": c.typ, "status": status, "lastTransitionTime": now, "reason": reason, "message": message})
			changed = true
			continue
		}
		cur, _ := conds[i].(obj)
		if unstructured.String(cur, "status") == status && unstructured.String(cur, "reason") == reason &&
			unstructured.String(cur, "message") == message {
			continue
		}
		next := obj{"type": c.typ, "status": status, "lastTransitionTime": cur["lastTransitionTime"], "reason": reason, "message": message}
		if unstructured.String(cur, "status") != status {
			next["lastTransitionTime"] = now
		}
		conds[i] = next
		changed = true
	}
	if !changed {
		return
	}
	st["conditions"] = conds
	s.controllerUpdateLocked(s.reg.lookup("", "v1", "namespaces"), nsCol, rec, "status", o)
}

// countList formats the counts of m with format, sorted, joined by ", ".
func countList(m map[string]int, format string) string {
	out := make([]string, 0, len(m))
	for k, n := range m {
		out = append(out, fmt.Sprintf(format, k, n))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}
