// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"errors"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

const widgetGroup = "scenario.kubeloop.dev"

// widgetCRD is the CustomResourceDefinition of the scenarios' custom
// resource, kind given: namespaced, with a spec.size, a status.phase and a
// status subresource, and the plural given (each run uses a fresh one, so
// that a reused real server does not already know it).
func widgetCRD(plural, kind string) *kube.Unstructured {
	return widgetCRDIn(widgetGroup, plural, kind)
}

// widgetCRDIn is [widgetCRD] in another group.
func widgetCRDIn(group, plural, kind string) *kube.Unstructured {
	return &kube.Unstructured{
		TypeMeta:   kube.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: kube.ObjectMeta{Name: plural + "." + group},
		Content: map[string]any{"spec": map[string]any{
			"group": group,
			"scope": "Namespaced",
			"names": map[string]any{"plural": plural, "singular": kindLower(kind), "kind": kind, "listKind": kind + "List"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object",
					"properties": map[string]any{
						"spec":   map[string]any{"type": "object", "properties": map[string]any{"size": map[string]any{"type": "integer"}}},
						"status": map[string]any{"type": "object", "properties": map[string]any{"phase": map[string]any{"type": "string"}}},
					},
				}},
			}},
		}},
	}
}

func kindLower(kind string) string {
	b := []byte(kind)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// installWidgets installs a fresh Widget-like CRD and returns its kind,
// waiting until the server serves it.
func (f *fixture) installWidgets(t *testing.T) kube.GroupVersionKind {
	t.Helper()
	suffix := randomSuffix()
	kind := "Widget" + suffix
	crd := widgetCRD("widgets"+suffix, kind)
	f.mustCreate(t, crd)
	t.Cleanup(func() { _ = f.c.Delete(f.ctx, crd) })
	gvk := kube.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: kind}
	f.eventually(t, "CRD served", func() error {
		var list kube.List[kube.Unstructured]
		list.SetGroupVersionKind(kube.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind + "List"})
		return f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns})
	})
	return gvk
}

func testCustomResource(t *testing.T, f *fixture) {
	gvk := f.installWidgets(t)
	var nk *kube.NoKindMatchError
	if _, err := f.c.Mapping(f.ctx, kube.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: "Nope" + randomSuffix()}); !errors.As(err, &nk) {
		t.Errorf("Mapping of an unknown kind = %v, want NoKindMatchError", err)
	}
	m, err := f.c.Mapping(f.ctx, gvk)
	if err != nil || !m.Namespaced {
		t.Fatalf("Mapping(%v) = %+v, %v", gvk, m, err)
	}

	w := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "w"}}
	w.SetGroupVersionKind(gvk)
	w.SetField(map[string]any{"size": 1}, "spec")
	w.SetField(map[string]any{"phase": "Ignored"}, "status")
	f.mustCreate(t, w)
	if w.Generation != 1 {
		t.Errorf("created generation = %d, want 1", w.Generation)
	}
	if _, ok := w.Field("status", "phase"); ok {
		t.Errorf("status set on create, want it ignored with a status subresource")
	}

	w.SetField(map[string]any{"size": 2}, "spec")
	if err := f.c.Update(f.ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.Generation != 2 {
		t.Errorf("generation after a spec change = %d, want 2", w.Generation)
	}
	w.Labels = map[string]string{"touched": "yes"}
	if err := f.c.Update(f.ctx, w); err != nil {
		t.Fatal(err)
	}
	if w.Generation != 2 {
		t.Errorf("generation after a metadata change = %d, want 2", w.Generation)
	}

	w.SetField(map[string]any{"phase": "Ready"}, "status")
	w.SetField(map[string]any{"size": 99}, "spec")
	if err := f.c.Status().Update(f.ctx, w); err != nil {
		t.Fatal(err)
	}
	if phase, _ := w.Field("status", "phase"); phase != "Ready" {
		t.Errorf("status.phase after Status().Update = %v, want Ready", phase)
	}
	if size, _ := w.Field("spec", "size"); size != float64(2) || w.Generation != 2 {
		t.Errorf("spec.size %v generation %d after Status().Update, want 2 and 2 (status writes leave spec alone)", size, w.Generation)
	}
	if err := f.c.Status().Patch(f.ctx, w, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"status":{"phase":"Done"}}`)}); err != nil {
		t.Fatal(err)
	}
	if phase, _ := w.Field("status", "phase"); phase != "Done" {
		t.Errorf("status.phase after Status().Patch = %v, want Done", phase)
	}
}
