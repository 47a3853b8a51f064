// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// deployment is an apps/v1 Deployment with a free-form spec and status:
// a kind with a status subresource.
type deployment struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            map[string]any `json:"spec,omitempty"`
	Status          map[string]any `json:"status,omitempty"`
}

func (*deployment) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
}

// podTemplate is a Deployment's pod template with the container the real
// server requires.
func podTemplate() map[string]any {
	return map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}
}

var deployments = kube.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}

func TestCreateOrUpdate(t *testing.T) {
	srv, c := newServer(t)
	ctx := t.Context()
	setData := func(o *kube.ConfigMap, v string) func() error {
		return func() error { o.Data = map[string]string{"k": v}; return nil }
	}
	steps := []struct {
		name    string
		data    string
		want    OperationResult
		updates int
	}{
		{"create", "1", OperationCreated, 0},
		{"same", "1", OperationUnchanged, 0},
		{"change", "2", OperationUpdated, 1},
	}
	for _, s := range steps {
		o := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cou"}}
		srv.ResetCounts()
		got, err := CreateOrUpdate(ctx, c, o, setData(o, s.data))
		if err != nil || got != s.want {
			t.Fatalf("%s: CreateOrUpdate = %q, %v; want %q", s.name, got, err, s.want)
		}
		if n := srv.Count("update", "configmaps"); n != s.updates {
			t.Errorf("%s: %d updates sent, want %d", s.name, n, s.updates)
		}
		if o.ResourceVersion == "" || o.Data["k"] != s.data {
			t.Errorf("%s: obj after = %+v, want the server's copy with k=%s", s.name, o.ObjectMeta, s.data)
		}
		stored := mustGet(t, srv, "cou")
		if d := stored["data"].(map[string]any)["k"]; d != s.data {
			t.Errorf("%s: server has k=%v, want %s", s.name, d, s.data)
		}
	}

	o := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cou"}}
	boom := errors.New("boom")
	if got, err := CreateOrUpdate(ctx, c, o, func() error { return boom }); !errors.Is(err, boom) || got != OperationUnchanged {
		t.Errorf("mutate error: CreateOrUpdate = %q, %v; want unchanged, boom", got, err)
	}
	o = &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cou"}}
	if _, err := CreateOrUpdate(ctx, c, o, func() error { o.Name = "other"; return nil }); err == nil || !strings.Contains(err.Error(), "must not") {
		t.Errorf("mutate renaming: CreateOrUpdate = %v, want an error", err)
	}
	o = &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "new"}}
	if _, err := CreateOrUpdate(ctx, c, o, func() error { o.Namespace = "kube-system"; return nil }); err == nil {
		t.Errorf("mutate moving a new object: CreateOrUpdate = nil, want an error")
	}
	srv.Deny("*", "get", "configmaps")
	o = &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cou"}}
	if _, err := CreateOrUpdate(ctx, c, o, setData(o, "3")); !kube.IsForbidden(err) {
		t.Errorf("get refused: CreateOrUpdate = %v, want Forbidden", err)
	}
}

func TestCreateOrPatch(t *testing.T) {
	srv, c := newServer(t)
	ctx := t.Context()
	type step struct {
		name    string
		mutate  func(d *deployment)
		want    OperationResult
		patches int // patch requests sent (object and status)
	}
	steps := []step{
		{"create", func(d *deployment) { d.Spec = map[string]any{"replicas": 1, "paused": true, "template": podTemplate()} }, OperationCreated, 0},
		{"same", func(d *deployment) { d.Spec["replicas"] = 1 }, OperationUnchanged, 0},
		{"spec", func(d *deployment) { d.Spec["replicas"] = 2 }, OperationUpdated, 1},
		{"status only", func(d *deployment) { d.Status = map[string]any{"readyReplicas": 2} }, OperationUpdatedStatusOnly, 1},
		{"both, and a field removed", func(d *deployment) {
			delete(d.Spec, "paused")
			d.Status["readyReplicas"] = 3
		}, OperationUpdatedStatus, 2},
	}
	for _, s := range steps {
		d := &deployment{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cop"}}
		srv.ResetCounts()
		got, err := CreateOrPatch(ctx, c, d, func() error { s.mutate(d); return nil })
		if err != nil || got != s.want {
			t.Fatalf("%s: CreateOrPatch = %q, %v; want %q", s.name, got, err, s.want)
		}
		if n := srv.Count("patch", "deployments.apps") + srv.Count("patch", "deployments.apps/status"); n != s.patches {
			t.Errorf("%s: %d patches sent, want %d (counts %v)", s.name, n, s.patches, srv.Counts())
		}
	}
	stored, err := srv.Get(deployments, "default", "cop")
	if err != nil {
		t.Fatal(err)
	}
	// The server adds a Deployment's defaults (strategy, revisionHistoryLimit...).
	spec, _ := stored["spec"].(map[string]any)
	_, paused := spec["paused"]
	if status := fmt.Sprint(stored["status"]); fmt.Sprint(spec["replicas"]) != "2" || paused || status != "map[readyReplicas:3]" {
		t.Errorf("server has spec %v, status %s; want replicas 2 without paused, map[readyReplicas:3]", spec, status)
	}
}

// TestCreateOrPatchKeepsConcurrentChanges changes the object on the server
// between the read and the write: an update conflicts, a patch keeps
// both changes.
func TestCreateOrPatchKeepsConcurrentChanges(t *testing.T) {
	srv, c := newServer(t)
	ctx := t.Context()
	createCM(t, srv, cm{ns: "default", name: "shared", data: map[string]any{"k": "0"}})
	concurrent := func() {
		cur := mustGet(t, srv, "shared")
		cur["metadata"].(map[string]any)["labels"] = map[string]any{"by": "someone-else"}
		if _, err := srv.Update(configMaps, cur); err != nil {
			t.Fatal(err)
		}
	}
	o := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "shared"}}
	_, err := CreateOrUpdate(ctx, c, o, func() error { concurrent(); o.Data["k"] = "1"; return nil })
	if !kube.IsConflict(err) {
		t.Errorf("CreateOrUpdate racing a change = %v, want a Conflict", err)
	}
	o = &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "shared"}}
	got, err := CreateOrPatch(ctx, c, o, func() error { concurrent(); o.Data["k"] = "2"; return nil })
	if err != nil || got != OperationUpdated {
		t.Fatalf("CreateOrPatch racing a change = %q, %v; want updated", got, err)
	}
	if o.Labels["by"] != "someone-else" || o.Data["k"] != "2" {
		t.Errorf("after the patch: labels %v, data %v; want both changes", o.Labels, o.Data)
	}

	// The same for the status: another writer's status field is kept.
	d := &deployment{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "shared"}, Spec: map[string]any{"replicas": 1, "template": podTemplate()}}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	d = &deployment{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "shared"}}
	got, err = CreateOrPatch(ctx, c, d, func() error {
		other := &deployment{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "shared"}}
		if err := c.Status().Patch(ctx, other, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"status":{"replicas":1}}`)}); err != nil {
			t.Fatal(err)
		}
		d.Status = map[string]any{"readyReplicas": 1}
		return nil
	})
	if err != nil || got != OperationUpdatedStatusOnly {
		t.Fatalf("CreateOrPatch of the status racing a change = %q, %v; want updatedStatusOnly", got, err)
	}
	if s := fmt.Sprint(d.Status); s != "map[readyReplicas:1 replicas:1]" {
		t.Errorf("status after the patch = %s, want both changes", s)
	}
}

// dataOnly declares a ConfigMap's data, not its binaryData.
type dataOnly struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (*dataOnly) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

// CreateOrUpdate of a type that declares part of an object changes what
// mutate changed and keeps the rest: a ConfigMap's binaryData survives a
// type that declares its data alone.
func TestCreateOrUpdateKeepsUndeclaredFields(t *testing.T) {
	srv, c := newServer(t)
	ctx := t.Context()
	full := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "partial"},
		Data: map[string]string{"k": "1"}, BinaryData: map[string][]byte{"b": {0, 1}}}
	if err := c.Create(ctx, full); err != nil {
		t.Fatal(err)
	}
	o := &dataOnly{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "partial"}}
	got, err := CreateOrUpdate(ctx, c, o, func() error { o.Data["k"] = "2"; return nil })
	if err != nil || got != OperationUpdated {
		t.Fatalf("CreateOrUpdate = %q, %v; want %q", got, err, OperationUpdated)
	}
	stored := mustGet(t, srv, "partial")
	if d, b := stored["data"], stored["binaryData"]; fmt.Sprint(d) != "map[k:2]" || fmt.Sprint(b) != "map[b:AAE=]" {
		t.Errorf("server has data %v binaryData %v, want k=2 and b kept", d, b)
	}
}
