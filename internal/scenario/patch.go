// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func testPatches(t *testing.T, f *fixture) {
	cm := f.configMap("p", map[string]string{"keep": "1", "drop": "1"}, map[string]string{"k": "v"})
	f.mustCreate(t, cm)

	merge := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"drop":null,"new":"1"}},"data":{"k":"merged"}}`)}
	if err := f.c.Patch(f.ctx, cm, merge); err != nil {
		t.Fatal(err)
	}
	if cm.Data["k"] != "merged" || cm.Labels["drop"] != "" || cm.Labels["new"] != "1" || cm.Labels["keep"] != "1" {
		t.Errorf("after merge patch: labels %v data %v", cm.Labels, cm.Data)
	}

	jp := kube.Patch{Type: kube.JSONPatch, Data: []byte(`[{"op":"test","path":"/data/k","value":"merged"},{"op":"add","path":"/data/j","value":"x"},{"op":"remove","path":"/metadata/labels/keep"},{"op":"copy","from":"/data/j","path":"/data/c"},{"op":"move","from":"/data/c","path":"/data/m"},{"op":"replace","path":"/data/k","value":"jp"}]`)}
	if err := f.c.Patch(f.ctx, cm, jp); err != nil {
		t.Fatal(err)
	}
	if cm.Data["k"] != "jp" || cm.Data["j"] != "x" || cm.Data["m"] != "x" || cm.Data["c"] != "" || cm.Labels["keep"] != "" {
		t.Errorf("after JSON patch: labels %v data %v", cm.Labels, cm.Data)
	}

	failing := kube.Patch{Type: kube.JSONPatch, Data: []byte(`[{"op":"test","path":"/data/k","value":"nope"}]`)}
	err := f.c.Patch(f.ctx, cm, failing)
	if !kube.IsInvalid(err) || !strings.Contains(err.Error(), "the server rejected our request due to an error in our request") {
		t.Errorf("failing test op = %v, want 422 Invalid as the server says it", err)
	}

	smp := kube.Patch{Type: kube.StrategicMergePatch, Data: []byte(`{"data":{"s":"1"}}`)}
	if err := f.c.Patch(f.ctx, cm, smp); err != nil {
		t.Fatal(err)
	}
	if cm.Data["s"] != "1" || cm.Data["k"] != "jp" {
		t.Errorf("after strategic merge patch: data %v", cm.Data)
	}

	missing := f.configMap("absent", nil, nil)
	if err := f.c.Patch(f.ctx, missing, merge); !kube.IsNotFound(err) {
		t.Errorf("merge patch of a missing object = %v, want NotFound", err)
	}
}

func testApply(t *testing.T, f *fixture) {
	applied := &kube.Unstructured{
		TypeMeta:   kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "applied", Labels: map[string]string{"by": "apply"}},
		Content:    map[string]any{"data": map[string]any{"x": "1"}},
	}
	if err := f.c.Apply(f.ctx, applied, kube.FieldOwner("scenario"), kube.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	if applied.UID == "" {
		t.Fatalf("apply of a new object did not create it: %+v", applied.ObjectMeta)
	}
	if v, _ := applied.Field("data", "x"); v != "1" {
		t.Errorf("applied data.x = %v, want 1", v)
	}
	if !strings.Contains(string(applied.ManagedFields), `"manager":"scenario"`) || !strings.Contains(string(applied.ManagedFields), `"operation":"Apply"`) {
		t.Errorf("managedFields %s, want an Apply entry for manager scenario", applied.ManagedFields)
	}

	again := &kube.Unstructured{
		TypeMeta:   kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "applied"},
		Content:    map[string]any{"data": map[string]any{"x": "2", "y": "3"}},
	}
	if err := f.c.Apply(f.ctx, again, kube.FieldOwner("scenario"), kube.ForceOwnership); err != nil {
		t.Fatal(err)
	}
	var got kube.ConfigMap
	if err := f.c.Get(f.ctx, again.Key(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Data["x"] != "2" || got.Data["y"] != "3" || got.UID != applied.UID {
		t.Errorf("after second apply: data %v uid %s, want x=2 y=3 on the same object", got.Data, got.UID)
	}
	// What the server refuses in an apply, sent as a raw patch so that the
	// client's own care (it drops managedFields) does not hide it.
	withManaged := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied","managedFields":[{"manager":"x","operation":"Apply"}]}}`)
	noManager, err := kube.NewClient(f.env.Config, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = f.c.Patch(f.ctx, again, kube.Patch{Type: kube.ApplyPatch, Data: withManaged})
	if !isBadRequest(err) || !strings.Contains(err.Error(), "metadata.managedFields must be nil") {
		t.Errorf("apply with managedFields = %v, want 400 metadata.managedFields must be nil", err)
	}
	err = noManager.Patch(f.ctx, again, kube.Patch{Type: kube.ApplyPatch, Data: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"}}`)})
	if !kube.IsInvalid(err) || !strings.Contains(err.Error(), "fieldManager: Required value") {
		t.Errorf("apply without a field manager = %v, want 422 fieldManager required", err)
	}

	// The scenario's client has a default field manager.
	if err := f.c.Apply(f.ctx, again); err != nil {
		t.Errorf("apply with the client's default field manager: %v", err)
	}
}

func testDryRun(t *testing.T, f *fixture) {
	dry, err := kube.NewClient(f.env.Config, kube.ClientOptions{DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	cm := f.configMap("dry", nil, map[string]string{"a": "1"})
	if err := dry.Create(f.ctx, cm); err != nil {
		t.Fatalf("dry-run create: %v", err)
	}
	var got kube.ConfigMap
	if err := f.c.Get(f.ctx, cm.Key(), &got); !kube.IsNotFound(err) {
		t.Errorf("Get after a dry-run create = %v, want NotFound", err)
	}
	real := f.configMap("dry", nil, map[string]string{"a": "1"})
	f.mustCreate(t, real)
	if err := dry.Delete(f.ctx, real); err != nil {
		t.Fatalf("dry-run delete: %v", err)
	}
	if err := f.c.Get(f.ctx, real.Key(), &got); err != nil {
		t.Errorf("Get after a dry-run delete = %v, want the object", err)
	}
}
