// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// deployment returns a minimal valid Deployment in the fixture's namespace.
func (f *fixture) deployment(name string) *kube.Unstructured {
	labels := map[string]any{"app": name}
	d := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name}}
	d.SetGroupVersionKind(kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	d.SetField(map[string]any{
		"selector": map[string]any{"matchLabels": labels},
		"template": map[string]any{
			"metadata": map[string]any{"labels": labels},
			"spec": map[string]any{"containers": []any{
				map[string]any{"name": "app", "image": "registry.k8s.io/pause:3.10"},
			}},
		},
	}, "spec")
	return d
}

// testDeleteBumpsGeneration: marking an object deleting (finalizers hold it)
// sets deletionTimestamp and, for kinds that keep a generation, increments
// it, so that a GenerationChanged predicate lets the deletion through. Kinds
// without a generation get none.
func testDeleteBumpsGeneration(t *testing.T, f *fixture) {
	const fin = "kubeloop.dev/hold"
	widget := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "w"}}
	widget.SetGroupVersionKind(f.installWidgets(t))
	widget.SetField(map[string]any{"size": 1}, "spec")
	cm := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "cm"}}
	cm.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	for _, tc := range []struct {
		name           string
		obj            *kube.Unstructured
		wantGeneration int64 // after the delete; 0 for kinds without one
	}{
		{"ConfigMap", cm, 0},
		{"Deployment", f.deployment("d"), 2},
		{"CustomResource", widget, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.obj.Finalizers = []string{fin}
			f.mustCreate(t, tc.obj)
			if err := f.c.Delete(f.ctx, tc.obj); err != nil {
				t.Fatal(err)
			}
			got := &kube.Unstructured{}
			got.SetGroupVersionKind(tc.obj.GroupVersionKind())
			if err := f.c.Get(f.ctx, tc.obj.Key(), got); err != nil {
				t.Fatalf("Get after Delete with a finalizer: %v", err)
			}
			if got.DeletionTimestamp == nil || got.Generation != tc.wantGeneration {
				t.Errorf("after Delete: deletionTimestamp %v generation %d, want set and %d",
					got.DeletionTimestamp, got.Generation, tc.wantGeneration)
			}
			// A second DELETE changes nothing.
			if err := f.c.Delete(f.ctx, got); err != nil {
				t.Fatal(err)
			}
			if err := f.c.Get(f.ctx, tc.obj.Key(), got); err != nil {
				t.Fatal(err)
			}
			if got.Generation != tc.wantGeneration {
				t.Errorf("after a second Delete: generation %d, want %d", got.Generation, tc.wantGeneration)
			}
			got.Finalizers = nil
			if err := f.c.Update(f.ctx, got); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// testRemoveLastFinalizer: the write that removes the last finalizer of a
// deleting object answers with the object as it was finally removed
// (finalizers empty), by PUT and by patch alike; the object is then gone.
func testRemoveLastFinalizer(t *testing.T, f *fixture) {
	const fin = "kubeloop.dev/hold"
	for _, how := range []string{"update", "merge-patch"} {
		t.Run(how, func(t *testing.T) {
			cm := f.configMap("fin-"+how, nil, map[string]string{"a": "1"})
			cm.Finalizers = []string{fin}
			f.mustCreate(t, cm)
			if err := f.c.Delete(f.ctx, cm); err != nil {
				t.Fatal(err)
			}
			var got kube.ConfigMap
			if err := f.c.Get(f.ctx, cm.Key(), &got); err != nil {
				t.Fatal(err)
			}
			rv := got.ResourceVersion
			switch how {
			case "update":
				got.RemoveFinalizer(fin)
				if err := f.c.Update(f.ctx, &got); err != nil {
					t.Fatal(err)
				}
			default:
				if err := f.c.Patch(f.ctx, &got, kube.Patch{Type: kube.MergePatch,
					Data: []byte(`{"metadata":{"finalizers":null}}`)}); err != nil {
					t.Fatal(err)
				}
			}
			if len(got.Finalizers) != 0 || got.DeletionTimestamp == nil || got.Data["a"] != "1" {
				t.Errorf("answer: finalizers %v deletionTimestamp %v data %v, want none, set and a=1",
					got.Finalizers, got.DeletionTimestamp, got.Data)
			}
			if got.ResourceVersion != rv {
				t.Errorf("answer resourceVersion %s, want %s (the object was removed, not written)", got.ResourceVersion, rv)
			}
			if err := f.c.Get(f.ctx, cm.Key(), &got); !kube.IsNotFound(err) {
				t.Errorf("Get after the last finalizer went = %v, want NotFound", err)
			}
		})
	}
}
