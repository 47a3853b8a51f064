// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testSubResources drives subresources through kube.Client.SubResource:
// the scale of a Deployment (Get, Update, a MergeFrom patch to zero, a
// stale Update's Conflict, a dry run), the eviction of pods (a plain
// pod is deleted; a pod with a finalizer is marked deleting with the
// DisruptionTarget condition; a dry run and a missing pod), a status
// apply that takes a field from another manager with Force, and the
// server-side apply of a Scale.
func testSubResources(t *testing.T, f *fixture) {
	t.Run("Scale", func(t *testing.T) { testSubResourceScale(t, f) })
	t.Run("Eviction", func(t *testing.T) { testSubResourceEviction(t, f) })
	t.Run("StatusApply", func(t *testing.T) { testStatusApply(t, f) })
	t.Run("ScaleApply", func(t *testing.T) { testScaleApply(t, f) })
}

// testScaleApply applies a Deployment's Scale: the spec replicas the
// create's manager owns conflict (named as the Scale's version sees
// them), force takes them, and the applier's entry is of subresource
// scale, without a time.
func testScaleApply(t *testing.T, f *fixture) {
	d := deployment(f.ns, "scaled", 1)
	f.mustCreate(t, d)
	path := "/apis/apps/v1/namespaces/" + f.ns + "/deployments/scaled/scale?fieldManager=scaler"
	config := func(n string) string {
		return `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"scaled","namespace":"` + f.ns + `"},"spec":{"replicas":` + n + `}}`
	}
	r := f.send(t, "PATCH", path, "application/apply-patch+yaml", config("4"))
	expectStatus(t, "apply a Scale", r, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "kubeloop-scenario" using autoscaling/v1: .spec.replicas`)
	r = f.send(t, "PATCH", path+"&force=true", "application/apply-patch+yaml", config("4"))
	sc := f.scale(t, "forced apply of a Scale", r)
	expectScale(t, "forced apply of a Scale", sc, `{"replicas":4}`, `{"replicas":0,"selector":"app=scaled"}`)
	r = f.send(t, "PATCH", path, "application/apply-patch+yaml", config("2"))
	expectScale(t, "apply of a Scale by its owner", f.scale(t, "apply by the owner", r), `{"replicas":2}`, `{"replicas":0,"selector":"app=scaled"}`)
	if err := f.c.Get(f.ctx, d.Key(), d); err != nil {
		t.Fatal(err)
	}
	if n, _ := kube.NestedInt64(d.Content, "spec", "replicas"); n != 2 {
		t.Errorf("spec.replicas after the applies = %d, want 2", n)
	}
	var entries []map[string]any
	if err := json.Unmarshal(d.ManagedFields, &entries); err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, e := range entries {
		if e["manager"] == "scaler" {
			found = true
			fields, _ := json.Marshal(e["fieldsV1"])
			if e["operation"] != "Apply" || e["subresource"] != "scale" || e["apiVersion"] != "apps/v1" || e["time"] != nil ||
				string(fields) != `{"f:spec":{"f:replicas":{}}}` {
				t.Errorf("the applier's entry = %v, want an Apply of subresource scale at apps/v1 owning spec.replicas, without a time", e)
			}
		}
	}
	if !found {
		t.Errorf("managedFields %s have no entry of the applier", d.ManagedFields)
	}
}

func deployment(ns, name string, replicas int) *kube.Unstructured {
	return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name},
		Content: map[string]any{"spec": map[string]any{"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}}}}
}

func testSubResourceScale(t *testing.T, f *fixture) {
	d := deployment(f.ns, "web", 1)
	f.mustCreate(t, d)
	scale := f.c.SubResource("scale")
	var sc kube.Scale
	if err := scale.Get(f.ctx, d, &sc); err != nil {
		t.Fatal(err)
	}
	if sc.Kind != "Scale" || sc.APIVersion != "autoscaling/v1" || sc.Name != "web" || sc.UID != d.UID ||
		sc.Spec.Replicas != 1 || sc.Status.Selector != "app=web" {
		t.Errorf("Get scale = %+v, want the Deployment's Scale with 1 replica and selector app=web", sc)
	}
	stale := sc.ResourceVersion
	sc.Spec.Replicas = 3
	if err := scale.Update(f.ctx, d, &sc); err != nil || sc.Spec.Replicas != 3 || sc.ResourceVersion == stale {
		t.Errorf("Update scale = %v, %+v; want 3 replicas at a new resourceVersion", err, sc)
	}
	patch := kube.MergeFrom(&sc)
	sc.Spec.Replicas = 0
	if err := scale.Patch(f.ctx, d, &sc, patch); err != nil || sc.Spec.Replicas != 0 {
		t.Errorf("Patch scale to 0 = %v, %+v", err, sc.Spec)
	}
	dry := kube.Scale{Spec: kube.ScaleSpec{Replicas: 7}}
	if err := scale.Update(f.ctx, d, &dry, kube.DryRunAll); err != nil || dry.Spec.Replicas != 7 || dry.Name != "web" {
		t.Errorf("dry-run Update of a Scale without a name = %v, %+v; want obj's name filled in and 7 answered", err, dry)
	}
	if err := f.c.Get(f.ctx, d.Key(), d); err != nil {
		t.Fatal(err)
	}
	if r, _ := kube.NestedInt64(d.Content, "spec", "replicas"); r != 0 {
		t.Errorf("Deployment replicas = %d, want 0 (the dry run changes nothing)", r)
	}
	old := kube.Scale{ObjectMeta: kube.ObjectMeta{Name: "web", Namespace: f.ns, ResourceVersion: stale}, Spec: kube.ScaleSpec{Replicas: 2}}
	if err := scale.Update(f.ctx, d, &old); !kube.IsConflict(err) {
		t.Errorf("Update scale at a stale resourceVersion = %v, want a Conflict", err)
	}
	cm := f.configMap("unscalable", nil, nil)
	f.mustCreate(t, cm)
	if err := scale.Get(f.ctx, cm, &sc); !kube.IsNotFound(err) {
		t.Errorf("Get scale of a ConfigMap = %v, want NotFound", err)
	}
}

func pod(ns, name string, finalizers ...string) *kube.Unstructured {
	return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, Finalizers: finalizers},
		Content:    map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}}}}
}

func testSubResourceEviction(t *testing.T, f *fixture) {
	evict := f.c.SubResource("eviction")
	plain := pod(f.ns, "plain")
	f.mustCreate(t, plain)
	if err := evict.Create(f.ctx, plain, &kube.Eviction{}, kube.DryRunAll); err != nil {
		t.Fatalf("dry-run eviction = %v", err)
	}
	if err := f.c.Get(f.ctx, plain.Key(), plain); err != nil {
		t.Fatalf("Get after a dry-run eviction = %v, want the pod", err)
	}
	ev := &kube.Eviction{}
	if err := evict.Create(f.ctx, plain, ev); err != nil {
		t.Fatalf("evict = %v", err)
	}
	if ev.Kind != "Status" {
		t.Errorf("eviction answered %s, want a Status", ev.Kind)
	}
	if err := f.c.Get(f.ctx, plain.Key(), plain); !kube.IsNotFound(err) {
		t.Errorf("Get after the eviction = %v, want NotFound", err)
	}
	if err := evict.Create(f.ctx, plain, &kube.Eviction{}); !kube.IsNotFound(err) {
		t.Errorf("evict a missing pod = %v, want NotFound", err)
	}
	if err := evict.Create(f.ctx, plain, &kube.Eviction{ObjectMeta: kube.ObjectMeta{Name: "other"}}); err == nil ||
		!strings.Contains(err.Error(), "name in URL does not match name in Eviction object") {
		t.Errorf("evict with another name = %v, want BadRequest", err)
	}

	held := pod(f.ns, "held", "example.com/hold")
	f.mustCreate(t, held)
	t.Cleanup(func() {
		held.Finalizers = nil
		_ = f.c.Update(f.ctx, held)
	})
	if err := evict.Create(f.ctx, held, &kube.Eviction{}); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Get(f.ctx, held.Key(), held); err != nil {
		t.Fatal(err)
	}
	conds, _ := held.Content["status"].(map[string]any)["conditions"].([]any)
	var target map[string]any
	for _, c := range conds {
		if m := c.(map[string]any); m["type"] == "DisruptionTarget" {
			target = m
		}
	}
	if held.DeletionTimestamp == nil || target == nil || target["status"] != "True" || target["reason"] != "EvictionByEvictionAPI" ||
		target["message"] != "Eviction API: evicting" {
		t.Errorf("pod with a finalizer after eviction: deletionTimestamp %v, DisruptionTarget %v; want marked deleting with the condition",
			held.DeletionTimestamp, target)
	}
	var entries []struct{ Manager, Subresource string }
	if err := json.Unmarshal(held.ManagedFields, &entries); err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Manager != "kubeloop-scenario" || entries[0].Subresource != "" {
		t.Errorf("managedFields after eviction = %+v, want the create's entry alone (the condition is written past the field manager)", entries)
	}
}

// testStatusApply applies a Deployment's status as two managers: the
// second's apply of the field the first owns conflicts, and with Force
// takes it.
func testStatusApply(t *testing.T, f *fixture) {
	d := deployment(f.ns, "applied", 1)
	f.mustCreate(t, d)
	status := func(manager string, replicas int, force bool) error {
		cfg := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "applied"},
			Content:    map[string]any{"status": map[string]any{"replicas": replicas}}}
		return f.c.Status().Apply(f.ctx, cfg, kube.ApplyOptions{FieldManager: manager, Force: force})
	}
	if err := status("first", 1, false); err != nil {
		t.Fatal(err)
	}
	if err := status("second", 2, false); !kube.IsConflict(err) {
		t.Errorf("status apply of a field another manager owns = %v, want a Conflict", err)
	}
	if err := status("second", 2, true); err != nil {
		t.Errorf("status apply with Force = %v", err)
	}
	if err := f.c.Get(f.ctx, d.Key(), d); err != nil {
		t.Fatal(err)
	}
	if r, _ := kube.NestedInt64(d.Content, "status", "replicas"); r != 2 {
		t.Errorf("status.replicas after the forced apply = %d, want 2", r)
	}
	if r, _ := kube.NestedInt64(d.Content, "spec", "replicas"); r != 1 {
		t.Errorf("spec.replicas after status applies = %d, want 1 (untouched)", r)
	}
}
