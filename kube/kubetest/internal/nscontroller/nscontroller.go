// SPDX-License-Identifier: Apache-2.0

package nscontroller

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// Finalizer is the spec finalizer of every namespace, which the
// controller removes once the namespace is empty.
const Finalizer = "kubernetes"

// Store is what the controller needs of the server it runs in. The server
// calls [Sync] with its lock held, and the Store's methods run under it.
type Store interface {
	// Namespace returns a decoded copy of the namespace name, nil when
	// there is none, and whether it is being deleted.
	Namespace(name string) (o map[string]any, deleting bool)
	// Collections returns the keys ("/pods", "apps/deployments") of the
	// collections of namespaced resources, sorted, and the name
	// ("pods.", "deployments.apps") under which the conditions count
	// their objects.
	Collections() (keys, names []string)
	// DeleteContent deletes in the background the objects of the
	// collection key in namespace ns not marked deleting yet, and answers
	// how many are left, counting the finalizers they hold into
	// finalizers.
	DeleteContent(key, ns string, finalizers map[string]int) (left int)
	// Update writes o, a changed copy of namespace name, as
	// kube-controller-manager's update of its subresource sub (status,
	// finalize).
	Update(name, sub string, o map[string]any)
}

// Sync is one pass of the controller over the namespace name, at now:
// nothing unless it is deleting and still has the [Finalizer]; else it
// deletes its content, pods first (and nothing else while pods remain),
// writes its conditions, and finalizes it when nothing remains.
func Sync(st Store, name string, now time.Time) {
	o, deleting := st.Namespace(name)
	if o == nil || !deleting {
		return
	}
	spec, _ := o["spec"].(obj)
	if !slices.Contains(stringList(spec, "finalizers"), Finalizer) {
		return
	}
	keys, names := st.Collections()
	// Pods first, and nothing else while a pod remains
	// (OrderedNamespaceDeletion, on by default).
	order := make([]int, 0, len(keys))
	if i := slices.Index(keys, "/pods"); i >= 0 {
		order = append(order, i)
	}
	for i, k := range keys {
		if k != "/pods" {
			order = append(order, i)
		}
	}
	remaining := map[string]int{}  // "plural.group" → objects left
	finalizers := map[string]int{} // finalizer → objects left holding it
	for _, i := range order {
		left := st.DeleteContent(keys[i], name, finalizers)
		if keys[i] == "/pods" && left > 0 {
			// The real controller stops here and writes its conditions
			// without counting what remains: all of them False.
			setConditions(st, name, nil, nil, now)
			return
		}
		if left > 0 {
			remaining[names[i]] = left
		}
	}
	setConditions(st, name, remaining, finalizers, now)
	if len(remaining) > 0 {
		return
	}
	// Finalize, as the controller's PUT of namespaces/X/finalize.
	if o, _ = st.Namespace(name); o == nil {
		return
	}
	if spec, _ = o["spec"].(obj); spec == nil {
		return
	}
	spec["finalizers"] = anyList(slices.DeleteFunc(stringList(spec, "finalizers"), func(f string) bool { return f == Finalizer }))
	st.Update(name, "finalize", o)
}

// setConditions writes the controller's conditions to the status of
// namespace name, when they change.
func setConditions(st Store, name string, remaining, finalizers map[string]int, now time.Time) {
	o, _ := st.Namespace(name)
	if o != nil && Conditions(o, remaining, finalizers, now) {
		st.Update(name, "status", o)
	}
}

// namespaceConditions are the condition types the controller keeps, in its
// order, with the reason and message of their False status.
var namespaceConditions = [...]struct{ typ, reason, message string }{
	{"NamespaceDeletionDiscoveryFailure", "ResourcesDiscovered", "All resources successfully discovered"},
	{"NamespaceDeletionGroupVersionParsingFailure", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
	{"NamespaceDeletionContentFailure", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
	{"NamespaceContentRemaining", "ContentRemoved", "All content successfully removed"},
	{"NamespaceFinalizersRemaining", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
}

// Conditions sets in o, a namespace, the controller's status conditions
// for the content remaining (by resource) and the finalizers it holds (by
// finalizer): each False with its "all is well" reason, or True with the
// counts, a condition's lastTransitionTime now when its status changes.
// It reports whether o changed.
func Conditions(o map[string]any, remaining, finalizers map[string]int, now time.Time) bool {
	st, _ := o["status"].(obj)
	if st == nil {
		st = obj{}
		o["status"] = st
	}
	stamp := now.UTC().Truncate(time.Second).Format(time.RFC3339)
	conds, _ := st["conditions"].([]any)
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
			conds = append(conds, obj{"type": c.typ, "status": status, "lastTransitionTime": stamp, "reason": reason, "message": message})
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
			next["lastTransitionTime"] = stamp
		}
		conds[i] = next
		changed = true
	}
	if changed {
		st["conditions"] = conds
	}
	return changed
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

// stringList returns m[k] as a list of strings (finalizers).
func stringList(m obj, k string) []string {
	in, _ := m[k].([]any)
	out := make([]string, 0, len(in))
	for _, v := range in {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func anyList(ss []string) []any { return unstructured.AnyList(ss) }
