// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// The scenario of this file checks that an Update of a Go type that
// declares part of an object keeps what the type does not declare: a
// ConfigMap's binaryData under a type with data alone, the metadata
// projection's type, a custom resource's undeclared spec and status
// fields, and the elements of a list its type declares in part; and that
// a list the client cannot line up is refused, naming what it would
// erase.

// partialConfigMap declares a ConfigMap's data, not its binaryData.
type partialConfigMap struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

// GroupVersionKind implements kube.Object.
func (*partialConfigMap) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

// partialSchema is a Part's schema: partialPart declares some of it.
const partialSchema = `{"type":"object","properties":{
"spec":{"type":"object","properties":{"size":{"type":"integer"},"color":{"type":"string"},
 "items":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"value":{"type":"string"}}}}}},
"status":{"type":"object","properties":{"phase":{"type":"string"},"reason":{"type":"string"}}}}}`

// partialPart declares spec.size, the names of spec.items and
// status.phase of a Part, not spec.color, the items' values nor
// status.reason. Its kind is in its TypeMeta, as each run's CRD is a
// fresh one.
type partialPart struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Size  int `json:"size"`
		Items []struct {
			Name string `json:"name"`
		} `json:"items,omitempty"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status,omitzero"`
}

func testPartialUpdate(t *testing.T, f *fixture) {
	t.Run("ConfigMap", func(t *testing.T) { testPartialUpdateConfigMap(t, f) })
	t.Run("CustomResource", func(t *testing.T) { testPartialUpdateCustomResource(t, f) })
}

func testPartialUpdateConfigMap(t *testing.T, f *fixture) {
	full := f.configMap("partial", nil, map[string]string{"a": "1"})
	full.BinaryData = map[string][]byte{"b": {0, 1, 2}}
	f.mustCreate(t, full)
	check := func(what string, data map[string]string) {
		t.Helper()
		got := &kube.ConfigMap{}
		if err := f.c.Get(f.ctx, full.Key(), got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got.Data, data) || !reflect.DeepEqual(got.BinaryData, full.BinaryData) {
			t.Errorf("after %s: data %v binaryData %v, want %v and %v", what, got.Data, got.BinaryData, data, full.BinaryData)
		}
	}

	p := &partialConfigMap{}
	if err := f.c.Get(f.ctx, full.Key(), p); err != nil {
		t.Fatal(err)
	}
	p.Data["a"] = "2"
	if err := f.c.Update(f.ctx, p); err != nil {
		t.Fatal(err)
	}
	check("an update of data", map[string]string{"a": "2"})

	p.Data, p.ResourceVersion = nil, "" // declared and empty: removed, unconditionally
	if err := f.c.Update(f.ctx, p); err != nil {
		t.Fatal(err)
	}
	check("an update that empties data", nil)

	m := &kube.PartialObjectMetadata{}
	m.SetGroupVersionKind(full.GroupVersionKind())
	if err := f.c.Get(f.ctx, full.Key(), m); err != nil {
		t.Fatal(err)
	}
	m.Labels = map[string]string{"touched": "yes"}
	if err := f.c.Update(f.ctx, m); err != nil {
		t.Fatal(err)
	}
	check("an update of metadata alone", nil)
}

func testPartialUpdateCustomResource(t *testing.T, f *fixture) {
	c := f.installSchemaCRD(t, "Part", "parts", partialSchema)
	if r := f.send(t, "POST", c.collection, ctJSON, `{"apiVersion":"`+c.apiVersion+`","kind":"`+c.kind+`","metadata":{"name":"p"},
"spec":{"size":1,"color":"red","items":[{"name":"a","value":"x"}]}}`); r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	if r := f.send(t, "PATCH", c.collection+"/p/status", "application/merge-patch+json",
		`{"status":{"phase":"A","reason":"because"}}`); r.code != 200 {
		t.Fatalf("patch status = %d %s", r.code, r.body)
	}
	stored := func() map[string]any {
		t.Helper()
		r := f.send(t, "GET", c.collection+"/p", "", "")
		var obj map[string]any
		if err := json.Unmarshal(r.body, &obj); err != nil || r.code != 200 {
			t.Fatalf("get = %d %s", r.code, r.body)
		}
		delete(obj, "apiVersion")
		delete(obj, "kind")
		delete(obj, "metadata")
		return obj
	}
	want := func(what, spec, status string) {
		t.Helper()
		var w map[string]any
		if err := json.Unmarshal([]byte(`{"spec":`+spec+`,"status":`+status+`}`), &w); err != nil {
			t.Fatal(err)
		}
		if got := stored(); !reflect.DeepEqual(got, w) {
			t.Errorf("after %s: %v, want %v", what, got, w)
		}
	}

	p := &partialPart{}
	p.SetGroupVersionKind(c.gvk)
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "p"}, p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Size = 2
	if err := f.c.Update(f.ctx, p); err != nil {
		t.Fatal(err)
	}
	want("an update of spec.size", `{"size":2,"color":"red","items":[{"name":"a","value":"x"}]}`, `{"phase":"A","reason":"because"}`)

	p.Status.Phase = "B"
	if err := f.c.Status().Update(f.ctx, p); err != nil {
		t.Fatal(err)
	}
	want("a status update", `{"size":2,"color":"red","items":[{"name":"a","value":"x"}]}`, `{"phase":"B","reason":"because"}`)

	p.Spec.Items[0].Name = "b" // another element: the value would go with it
	err := f.c.Update(f.ctx, p)
	var undeclared *kube.UndeclaredFieldsError
	if !errors.As(err, &undeclared) || !reflect.DeepEqual(undeclared.Paths, []string{"spec.items[0].value"}) {
		t.Errorf("update that renames a list element = %v, want an UndeclaredFieldsError naming spec.items[0].value", err)
	}
	want("a refused update", `{"size":2,"color":"red","items":[{"name":"a","value":"x"}]}`, `{"phase":"B","reason":"because"}`)
}
