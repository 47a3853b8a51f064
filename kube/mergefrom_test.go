// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func TestMergeFromData(t *testing.T) {
	read := func() *kube.ConfigMap {
		return &kube.ConfigMap{
			TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: kube.ObjectMeta{Namespace: "ns", Name: "cm", ResourceVersion: "7",
				Labels: map[string]string{"a": "1", "b": "2"}, Finalizers: []string{"x", "y"}},
			Data: map[string]string{"k": "v"},
		}
	}
	lock := []kube.MergeFromOption{kube.MergeFromWithOptimisticLock{}}
	tests := []struct {
		name    string
		opts    []kube.MergeFromOption
		change  func(cm *kube.ConfigMap)
		want    string
		wantErr string
	}{
		{name: "no change", change: func(*kube.ConfigMap) {}, want: `{}`},
		{name: "changed value", change: func(cm *kube.ConfigMap) { cm.Data["k"] = "w" }, want: `{"data":{"k":"w"}}`},
		{name: "added key", change: func(cm *kube.ConfigMap) { cm.Data["n"] = "1" }, want: `{"data":{"n":"1"}}`},
		{name: "removed map key is null", change: func(cm *kube.ConfigMap) { delete(cm.Labels, "a") },
			want: `{"metadata":{"labels":{"a":null}}}`},
		{name: "removed field is null", change: func(cm *kube.ConfigMap) { cm.Data = nil }, want: `{"data":null}`},
		{name: "list replaced whole", change: func(cm *kube.ConfigMap) { cm.Finalizers = cm.Finalizers[1:] },
			want: `{"metadata":{"finalizers":["y"]}}`},
		{name: "list removed", change: func(cm *kube.ConfigMap) { cm.Finalizers = nil },
			want: `{"metadata":{"finalizers":null}}`},
		{name: "resourceVersion and kind never sent", change: func(cm *kube.ConfigMap) {
			cm.ResourceVersion, cm.APIVersion, cm.Kind = "9", "", ""
		}, want: `{}`},
		{name: "lock, no change", opts: lock, change: func(*kube.ConfigMap) {}, want: `{"metadata":{"resourceVersion":"7"}}`},
		{name: "lock carries the original's version", opts: lock, change: func(cm *kube.ConfigMap) {
			cm.Finalizers, cm.ResourceVersion = append(cm.Finalizers, "z"), "9"
		}, want: `{"metadata":{"finalizers":["x","y","z"],"resourceVersion":"7"}}`},
		{name: "lock without a version", opts: lock, change: func(cm *kube.ConfigMap) {},
			wantErr: "make merge patch: the original has no resourceVersion for the optimistic lock"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cm := read()
			if tt.wantErr != "" {
				cm.ResourceVersion = ""
			}
			patch := kube.MergeFromWithOptions(cm, tt.opts...)
			tt.change(cm) // the original itself: MergeFrom has encoded it
			got, err := patch.DataFor(cm)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("DataFor = %s, %v, want error %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil || string(got) != tt.want || patch.Type != kube.MergePatch {
				t.Errorf("DataFor = %s (%s), %v, want %s (%s)", got, patch.Type, err, tt.want, kube.MergePatch)
			}
		})
	}

	written := kube.Patch{Type: kube.JSONPatch, Data: []byte(`[]`)}
	if got, err := written.DataFor(read()); err != nil || string(got) != `[]` {
		t.Errorf("DataFor of a patch written out = %s, %v, want its Data", got, err)
	}
}

// deployment is the part of an apps/v1 Deployment the test writes.
type deployment struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            map[string]any   `json:"spec,omitempty"`
	Status          deploymentStatus `json:"status,omitzero"`
}

type deploymentStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	Replicas           int32 `json:"replicas,omitempty"`
	ReadyReplicas      int32 `json:"readyReplicas,omitempty"`
}

func (*deployment) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
}

// A status patch made from a stale copy writes what it changed and
// leaves the field another writer changed since: it neither Conflicts
// (as an Update from the copy does) nor reverts that field. With the
// optimistic lock it Conflicts.
func TestStatusMergeFromStaleCopy(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	c, err := srv.Client(kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	d := &deployment{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "d"}, Spec: map[string]any{"replicas": 3,
		"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	d.Status = deploymentStatus{Replicas: 3, ReadyReplicas: 1}
	if err := c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	stale := *d
	locked := *d
	other := &deployment{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "d"}}
	if err := c.Status().Patch(ctx, other, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"status":{"replicas":4}}`)}); err != nil {
		t.Fatal(err)
	}

	update := stale
	update.Status.ReadyReplicas = 2
	if err := c.Status().Update(ctx, &update); !kube.IsConflict(err) {
		t.Errorf("Status().Update from a stale copy = %v, want a Conflict", err)
	}

	patch := kube.MergeFrom(&stale)
	stale.Status.ReadyReplicas = 2
	if err := c.Status().Patch(ctx, &stale, patch); err != nil {
		t.Fatalf("Status().Patch(MergeFrom) from a stale copy = %v, want it to succeed", err)
	}
	var got deployment
	if err := c.Get(ctx, d.Key(), &got); err != nil {
		t.Fatal(err)
	}
	if want := (deploymentStatus{Replicas: 4, ReadyReplicas: 2}); got.Status != want {
		t.Errorf("status after the stale copy's patch = %+v, want %+v (the other writer's replicas kept)", got.Status, want)
	}
	if stale.ResourceVersion != got.ResourceVersion || stale.Status != got.Status {
		t.Errorf("the patched object = rv %s %+v, want what the server stored: rv %s %+v", stale.ResourceVersion, stale.Status, got.ResourceVersion, got.Status)
	}

	patch = kube.MergeFromWithOptions(&locked, kube.MergeFromWithOptimisticLock{})
	locked.Status.ReadyReplicas = 3
	err = c.Status().Patch(ctx, &locked, patch)
	if !kube.IsConflict(err) || !strings.Contains(err.Error(), "patch status of Deployment default/d") {
		t.Errorf("Status().Patch(MergeFrom with the lock) from a stale copy = %v, want a Conflict", err)
	}
}
