// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"testing"
)

func TestUnstructuredRoundTrip(t *testing.T) {
	in := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"a":"b"}},"spec":{"replicas":3,"template":{"x":[1,"two",null]}},"status":{"ready":true}}`
	var u Unstructured
	if err := json.Unmarshal([]byte(in), &u); err != nil {
		t.Fatal(err)
	}
	if gvk := u.GroupVersionKind(); gvk != (GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) {
		t.Errorf("GroupVersionKind() = %v", gvk)
	}
	if r, _ := u.Field("spec", "replicas"); r != float64(3) {
		t.Errorf(`Field("spec", "replicas") = %v, want 3`, r)
	}
	if _, ok := u.Field("spec", "nope", "deeper"); ok {
		t.Error("Field of a missing path reported ok")
	}
	out, err := json.Marshal(&u)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	json.Unmarshal([]byte(in), &a)
	json.Unmarshal(out, &b)
	if ja, jb := mustJSON(a), mustJSON(b); ja != jb {
		t.Errorf("round trip:\n got %s\nwant %s", jb, ja)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestUnstructuredDeepCopySharesNothing(t *testing.T) {
	u := &Unstructured{
		TypeMeta:   TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}, Finalizers: []string{"f"}, ManagedFields: json.RawMessage(`[{"manager":"m"}]`)},
		Content:    map[string]any{"data": map[string]any{"x": "1"}, "list": []any{map[string]any{"y": "2"}}},
	}
	c := u.DeepCopy()
	c.Labels["k"] = "changed"
	c.Finalizers[0] = "changed"
	c.ManagedFields[3] = 'X'
	c.SetField("changed", "data", "x")
	c.Content["list"].([]any)[0].(map[string]any)["y"] = "changed"
	if u.Labels["k"] != "v" || u.Finalizers[0] != "f" || string(u.ManagedFields) != `[{"manager":"m"}]` {
		t.Errorf("copy shares metadata with the original: %+v", u.ObjectMeta)
	}
	if x, _ := u.Field("data", "x"); x != "1" {
		t.Errorf("copy shares content: data.x = %v", x)
	}
	if y := u.Content["list"].([]any)[0].(map[string]any)["y"]; y != "2" {
		t.Errorf("copy shares a list element: y = %v", y)
	}
}

func TestListItemKinds(t *testing.T) {
	var typed List[ConfigMap]
	if gvk := typed.ItemGroupVersionKind(); gvk.Kind != "ConfigMap" || gvk.Version != "v1" {
		t.Errorf("List[ConfigMap].ItemGroupVersionKind() = %v", gvk)
	}
	u := List[Unstructured]{TypeMeta: TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}}
	if gvk := u.ItemGroupVersionKind(); gvk != (GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}) {
		t.Errorf("List[Unstructured].ItemGroupVersionKind() = %v", gvk)
	}
}
