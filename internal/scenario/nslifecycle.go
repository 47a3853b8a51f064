// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
)

// The lifecycle of a namespace, as kube-apiserver and the namespace
// controller of kube-controller-manager give it.

// condition is a namespace status condition without its time.
type condition struct{ Type, Status, Reason, Message string }

// namespaceState reads the namespace name: found is false on 404.
func (f *fixture) namespaceState(t *testing.T, name string) (ns map[string]any, found bool) {
	t.Helper()
	r := f.send(t, "GET", "/api/v1/namespaces/"+name, "", "")
	switch r.code {
	case 404:
		return nil, false
	case 200:
		return r.object(t), true
	}
	t.Fatalf("get namespace %s = %d %s", name, r.code, r.body)
	return nil, false
}

func conditionsOf(ns map[string]any) []condition {
	st, _ := ns["status"].(map[string]any)
	list, _ := st["conditions"].([]any)
	var out []condition
	for _, c := range list {
		m, _ := c.(map[string]any)
		str := func(k string) string { s, _ := m[k].(string); return s }
		out = append(out, condition{str("type"), str("status"), str("reason"), str("message")})
	}
	return out
}

func specFinalizers(ns map[string]any) []any {
	spec, _ := ns["spec"].(map[string]any)
	fins, _ := spec["finalizers"].([]any)
	return fins
}

// namespaceConditions are the conditions the namespace controller writes,
// with content and finalizers remaining as given (empty: none).
func namespaceConditions(remaining, finalizers string) []condition {
	out := []condition{
		{"NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"},
		{"NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"},
		{"NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"},
		{"NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"},
		{"NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished"},
	}
	if remaining != "" {
		out[3] = condition{"NamespaceContentRemaining", "True", "SomeResourcesRemain", "Some resources are remaining: " + remaining}
	}
	if finalizers != "" {
		out[4] = condition{"NamespaceFinalizersRemaining", "True", "SomeFinalizersRemain",
			"Some content in the namespace has finalizers remaining: " + finalizers}
	}
	return out
}

// testNamespaceLifecycle: DELETE of a namespace answers it Terminating;
// creates in it are refused with 403; its content is deleted, objects with
// finalizers stay, marked deleting, and the controller says so in the
// namespace's conditions; when they go, so does the namespace.
func testNamespaceLifecycle(t *testing.T, f *fixture) {
	f.needControllers(t)
	ns := f.ns + "-doomed"
	if r := f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`); r.code != 201 {
		t.Fatalf("create namespace = %d %s", r.code, r.body)
	}
	cms := "/api/v1/namespaces/" + ns + "/configmaps"
	for _, body := range []string{`{"metadata":{"name":"free"}}`,
		`{"metadata":{"name":"held","finalizers":["` + holdFinalizer + `"]}}`} {
		if r := f.send(t, "POST", cms, "application/json", body); r.code != 201 {
			t.Fatalf("create %s = %d %s", body, r.code, r.body)
		}
	}
	t.Cleanup(func() {
		f.send(t, "PATCH", cms+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	})

	r := f.send(t, "DELETE", "/api/v1/namespaces/"+ns, "", "")
	if r.code != 200 {
		t.Fatalf("delete namespace = %d %s", r.code, r.body)
	}
	del := r.object(t)
	meta, _ := del["metadata"].(map[string]any)
	st, _ := del["status"].(map[string]any)
	if meta["deletionTimestamp"] == nil || meta["deletionGracePeriodSeconds"] != nil || st["phase"] != "Terminating" ||
		!reflect.DeepEqual(specFinalizers(del), []any{"kubernetes"}) {
		t.Errorf("answer to DELETE: deletionTimestamp %v deletionGracePeriodSeconds %v phase %v spec.finalizers %v, "+
			"want set, none, Terminating, [kubernetes]", meta["deletionTimestamp"], meta["deletionGracePeriodSeconds"], st["phase"], specFinalizers(del))
	}

	late := f.send(t, "POST", cms, "application/json", `{"metadata":{"name":"late"}}`)
	expectStatus(t, "create in a terminating namespace", late, 403, "Forbidden",
		`configmaps "late" is forbidden: unable to create new content in namespace `+ns+` because it is being terminated`)
	var details struct {
		Details json.RawMessage `json:"details"`
	}
	_ = json.Unmarshal(late.body, &details)
	wantDetails := `{"name":"late","kind":"configmaps","causes":[{"reason":"NamespaceTerminating","message":"namespace ` + ns +
		` is being terminated","field":"metadata.namespace"}]}`
	if !jsonEqual(details.Details, []byte(wantDetails)) {
		t.Errorf("details of the 403 = %s, want %s", details.Details, wantDetails)
	}

	want := namespaceConditions("configmaps. has 1 resource instances", holdFinalizer+" in 1 resource instances")
	f.settled(t, "content deleted and conditions written", func() error {
		if r := f.send(t, "GET", cms+"/free", "", ""); r.code != 404 {
			return fmt.Errorf("configmap free = %d", r.code)
		}
		held := f.send(t, "GET", cms+"/held", "", "").object(t)
		if m, _ := held["metadata"].(map[string]any); m["deletionTimestamp"] == nil {
			return errors.New("configmap held is not marked deleting")
		}
		got, found := f.namespaceState(t, ns)
		if !found {
			return errors.New("the namespace went while content with a finalizer remains")
		}
		if c := conditionsOf(got); !reflect.DeepEqual(c, want) {
			return fmt.Errorf("conditions %+v, want %+v", c, want)
		}
		return nil
	})

	if r := f.send(t, "PATCH", cms+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`); r.code != 200 {
		t.Fatalf("remove the finalizer = %d %s", r.code, r.body)
	}
	f.settled(t, "namespace gone", func() error {
		if _, found := f.namespaceState(t, ns); found {
			return errors.New("namespace still there")
		}
		return nil
	})
}

// testNamespaceFinalize: a finalizer of the namespace's own (in
// spec.finalizers) keeps it Terminating after the controller has removed
// "kubernetes"; PUT of the finalize subresource with no finalizers ends it.
func testNamespaceFinalize(t *testing.T, f *fixture) {
	f.needControllers(t)
	ns := f.ns + "-held"
	if r := f.send(t, "POST", "/api/v1/namespaces", "application/json",
		`{"metadata":{"name":"`+ns+`"},"spec":{"finalizers":["`+holdFinalizer+`"]}}`); r.code != 201 {
		t.Fatalf("create namespace = %d %s", r.code, r.body)
	} else if got := specFinalizers(r.object(t)); !reflect.DeepEqual(got, []any{holdFinalizer, "kubernetes"}) {
		t.Errorf("spec.finalizers of the new namespace = %v, want [%s kubernetes]", got, holdFinalizer)
	}
	if r := f.send(t, "DELETE", "/api/v1/namespaces/"+ns, "", ""); r.code != 200 {
		t.Fatalf("delete namespace = %d %s", r.code, r.body)
	}
	var last map[string]any
	f.settled(t, "namespace emptied and finalized by the controller", func() error {
		got, found := f.namespaceState(t, ns)
		if !found {
			return errors.New("namespace gone despite its own finalizer")
		}
		if fins := specFinalizers(got); !reflect.DeepEqual(fins, []any{holdFinalizer}) {
			return fmt.Errorf("spec.finalizers %v, want [%s]", fins, holdFinalizer)
		}
		if c, want := conditionsOf(got), namespaceConditions("", ""); !reflect.DeepEqual(c, want) {
			return fmt.Errorf("conditions %+v, want %+v", c, want)
		}
		last = got
		return nil
	})
	for _, method := range []string{"GET", "PATCH"} {
		if r := f.send(t, method, "/api/v1/namespaces/"+ns+"/finalize", "application/merge-patch+json", `{}`); r.code != 405 {
			t.Errorf("%s of finalize = %d %s, want 405", method, r.code, r.body)
		}
	}
	last["spec"] = map[string]any{"finalizers": []any{}}
	body, _ := json.Marshal(last)
	r := f.send(t, "PUT", "/api/v1/namespaces/"+ns+"/finalize", "application/json", string(body))
	if r.code != 200 {
		t.Fatalf("PUT finalize = %d %s", r.code, r.body)
	}
	if fins := specFinalizers(r.object(t)); len(fins) != 0 {
		t.Errorf("answer to PUT finalize: spec.finalizers %v, want none", fins)
	}
	if _, found := f.namespaceState(t, ns); found {
		t.Errorf("namespace still there after its last finalizer went")
	}
}

// jsonEqual reports whether two JSON documents hold the same value.
func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// testNamespacePodsFirst: the namespace controller deletes pods first and
// touches nothing else while one remains, writing its conditions all False
// meanwhile (it counts nothing in that pass); once the pods are gone it
// deletes the rest and the namespace goes.
func testNamespacePodsFirst(t *testing.T, f *fixture) {
	f.needControllers(t)
	ns := f.ns + "-pods"
	if r := f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`); r.code != 201 {
		t.Fatalf("create namespace = %d %s", r.code, r.body)
	}
	base := "/api/v1/namespaces/" + ns
	for _, c := range []struct{ path, body string }{
		{"/pods", `{"metadata":{"name":"p","finalizers":["` + holdFinalizer + `"]},"spec":{"containers":[{"name":"c","image":"registry.k8s.io/pause:3.10"}]}}`},
		{"/configmaps", `{"metadata":{"name":"c"}}`},
	} {
		if r := f.send(t, "POST", base+c.path, "application/json", c.body); r.code != 201 {
			t.Fatalf("create %s = %d %s", c.path, r.code, r.body)
		}
	}
	t.Cleanup(func() {
		f.send(t, "PATCH", base+"/pods/p", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	})
	if r := f.send(t, "DELETE", base, "", ""); r.code != 200 {
		t.Fatalf("delete namespace = %d %s", r.code, r.body)
	}
	f.settled(t, "pod marked deleting, conditions written", func() error {
		pod := f.send(t, "GET", base+"/pods/p", "", "").object(t)
		if m, _ := pod["metadata"].(map[string]any); m["deletionTimestamp"] == nil {
			return errors.New("pod p is not marked deleting")
		}
		got, found := f.namespaceState(t, ns)
		if !found {
			return errors.New("namespace gone while a pod remains")
		}
		if c, want := conditionsOf(got), namespaceConditions("", ""); !reflect.DeepEqual(c, want) {
			return fmt.Errorf("conditions %+v, want %+v", c, want)
		}
		return nil
	})
	cm := f.send(t, "GET", base+"/configmaps/c", "", "")
	if m, _ := cm.object(t)["metadata"].(map[string]any); cm.code != 200 || m["deletionTimestamp"] != nil {
		t.Errorf("configmap while a pod remains = %d %s, want it untouched", cm.code, cm.body)
	}
	if r := f.send(t, "PATCH", base+"/pods/p", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`); r.code != 200 {
		t.Fatalf("remove the pod's finalizer = %d %s", r.code, r.body)
	}
	f.settled(t, "namespace gone after its pod", func() error {
		if _, found := f.namespaceState(t, ns); found {
			return errors.New("namespace still there")
		}
		return nil
	})
}

// testNamespaceDeleteOptions: the namespace storage reads orphanDependents
// as its own: true gives the deleted namespace the orphan finalizer, and
// false the foregroundDeletion one (where other kinds read false as
// Background); the garbage collector removes either, as the namespace has
// no dependents, and the namespace goes. A DELETE with orphanDependents
// false that leaves its object in place answers 202, of any kind.
func testNamespaceDeleteOptions(t *testing.T, f *fixture) {
	f.needControllers(t)
	cms := "/api/v1/namespaces/" + f.ns + "/configmaps"
	if r := f.send(t, "POST", cms, "application/json", `{"metadata":{"name":"held","finalizers":["`+holdFinalizer+`"]}}`); r.code != 201 {
		t.Fatalf("create configmap = %d %s", r.code, r.body)
	}
	if r := f.send(t, "DELETE", cms+"/held?orphanDependents=false", "", ""); r.code != 202 {
		t.Errorf("delete of a configmap held by a finalizer ?orphanDependents=false = %d %s, want 202", r.code, r.body)
	}
	f.send(t, "PATCH", cms+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	for _, tc := range []struct {
		query, finalizer string
		code             int
	}{
		{"orphanDependents=false", "foregroundDeletion", 202},
		{"orphanDependents=true", "orphan", 200},
		{"propagationPolicy=Foreground", "foregroundDeletion", 200},
	} {
		ns := f.ns + "-" + randomSuffix()
		if r := f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`); r.code != 201 {
			t.Fatalf("create namespace = %d %s", r.code, r.body)
		}
		r := f.send(t, "DELETE", "/api/v1/namespaces/"+ns+"?"+tc.query, "", "")
		if r.code != tc.code {
			t.Fatalf("delete namespace ?%s = %d %s, want %d", tc.query, r.code, r.body, tc.code)
		}
		meta, _ := r.object(t)["metadata"].(map[string]any)
		if fins, _ := meta["finalizers"].([]any); !reflect.DeepEqual(fins, []any{tc.finalizer}) {
			t.Errorf("delete namespace ?%s: finalizers %v, want [%s]", tc.query, fins, tc.finalizer)
		}
		f.settled(t, "namespace deleted ?"+tc.query+" gone", func() error {
			if _, found := f.namespaceState(t, ns); found {
				return errors.New("namespace still there")
			}
			return nil
		})
	}
}
