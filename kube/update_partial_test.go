// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// dataOnly declares a ConfigMap's data, not its binaryData.
type dataOnly struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (*dataOnly) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

// newPartialServer starts kubetest with a ConfigMap "cm" holding data
// a=1 and binaryData b, and returns a client of it.
func newPartialServer(t *testing.T) (*kubetest.Server, *kube.Client) {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm"},
		Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": {0, 1, 2}}}
	if err := c.Create(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// storedConfigMap reads "cm" whole.
func storedConfigMap(t *testing.T, c *kube.Client) *kube.ConfigMap {
	t.Helper()
	cm := &kube.ConfigMap{}
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "cm"}, cm); err != nil {
		t.Fatal(err)
	}
	return cm
}

// An Update of a type that declares a ConfigMap's data alone keeps its
// binaryData, and still does what a PUT of the declared fields means:
// data changed, or removed when the type's encoding leaves it out.
func TestUpdateKeepsUndeclaredFields(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*dataOnly)
		data   map[string]string
	}{
		{"data changed", func(p *dataOnly) { p.Data["a"] = "2" }, map[string]string{"a": "2"}},
		{"data emptied", func(p *dataOnly) { p.Data = nil }, nil},
		{"unconditional", func(p *dataOnly) { p.ResourceVersion = ""; p.Data["c"] = "3" }, map[string]string{"a": "1", "c": "3"}},
		{"metadata alone", func(p *dataOnly) { p.Labels = map[string]string{"x": "y"} }, map[string]string{"a": "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, c := newPartialServer(t)
			p := &dataOnly{}
			if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "cm"}, p); err != nil {
				t.Fatal(err)
			}
			tc.change(p)
			if err := c.Update(t.Context(), p); err != nil {
				t.Fatal(err)
			}
			got := storedConfigMap(t, c)
			if !reflect.DeepEqual(got.Data, tc.data) || string(got.BinaryData["b"]) != "\x00\x01\x02" {
				t.Errorf("stored data %v binaryData %v, want %v and b kept", got.Data, got.BinaryData, tc.data)
			}
			if got.ResourceVersion != p.ResourceVersion {
				t.Errorf("obj after Update: rv %q, want the stored %q", p.ResourceVersion, got.ResourceVersion)
			}
		})
	}
}

// An Update of PartialObjectMetadata changes the metadata and keeps the
// rest of the object, where it used to send the metadata alone and
// erase the ConfigMap's data.
func TestUpdatePartialObjectMetadataKeepsContent(t *testing.T) {
	_, c := newPartialServer(t)
	m := &kube.PartialObjectMetadata{}
	m.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "cm"}, m); err != nil {
		t.Fatal(err)
	}
	m.Labels = map[string]string{"x": "y"}
	if err := c.Update(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	got := storedConfigMap(t, c)
	if got.Labels["x"] != "y" || got.Data["a"] != "1" || len(got.BinaryData["b"]) != 3 {
		t.Errorf("stored %+v, want the label set and data, binaryData kept", got)
	}
	if m.Kind != "ConfigMap" || m.Labels["x"] != "y" {
		t.Errorf("obj after Update: %+v", m)
	}
}

// A type that holds everything (Unstructured, and the kinds this package
// declares in full) is written without the read before.
func TestUpdateOfCompleteTypesReadsNothing(t *testing.T) {
	srv, c := newPartialServer(t)
	cm := storedConfigMap(t, c)
	u := &kube.Unstructured{}
	u.SetGroupVersionKind(cm.GroupVersionKind())
	if err := c.Get(t.Context(), cm.Key(), u); err != nil {
		t.Fatal(err)
	}
	srv.ResetCounts()
	cm.Data["a"] = "2"
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	u.ResourceVersion = cm.ResourceVersion
	u.SetField(map[string]any{"a": "3"}, "data")
	if err := c.Update(t.Context(), u); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("get", "configmaps"); n != 0 {
		t.Errorf("gets of ConfigMaps = %d, want 0", n)
	}
	p := &dataOnly{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm"}, Data: map[string]string{"a": "4"}}
	if err := c.Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if n := srv.Count("get", "configmaps"); n != 1 {
		t.Errorf("gets of ConfigMaps for a partial type = %d, want 1", n)
	}
}

// An unconditional Update (no resourceVersion) that races another
// writer's change to a field its type does not declare keeps that
// change: the read it builds on is the precondition of its write, and a
// Conflict reads again.
func TestUpdateUnconditionalKeepsRacingChange(t *testing.T) {
	srv, c := newPartialServer(t)
	other, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	raced := false
	srv.FailNext(1, func(info kubetest.RequestInfo) bool {
		if info.Verb == "update" && info.Resource == "configmaps" && !raced {
			raced = true // between the client's read and its write
			patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"binaryData":{"r":"AQ=="}}`)}
			if err := other.Patch(t.Context(), &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm"}}, patch); err != nil {
				t.Error(err)
			}
		}
		return false
	}, nil)
	p := &dataOnly{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm"}, Data: map[string]string{"a": "2"}}
	if err := c.Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	got := storedConfigMap(t, c)
	if !raced || got.Data["a"] != "2" || len(got.BinaryData) != 2 {
		t.Errorf("raced %v, stored data %v binaryData %v, want a=2 and both b and r", raced, got.Data, got.BinaryData)
	}
	if n := srv.Count("update", "configmaps"); n != 2 {
		t.Errorf("updates = %d, want 2 (one Conflict, then the write)", n)
	}
}

// A stale resourceVersion still Conflicts, as a PUT does.
func TestUpdatePartialStaleConflicts(t *testing.T) {
	_, c := newPartialServer(t)
	p := &dataOnly{}
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "cm"}, p); err != nil {
		t.Fatal(err)
	}
	cm := storedConfigMap(t, c)
	cm.Data["a"] = "other"
	if err := c.Update(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	p.Data["a"] = "mine"
	if err := c.Update(t.Context(), p); !kube.IsConflict(err) {
		t.Errorf("Update from a stale read = %v, want a Conflict", err)
	}
}

// partCRD is a CRD whose objects hold more than gadget declares.
const partCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"parts.example.com"},
"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"parts","singular":"part","kind":"Part","listKind":"PartList"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{
"spec":{"type":"object","properties":{"size":{"type":"integer"},"color":{"type":"string"},
 "containers":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"image":{"type":"string"},
  "resources":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}},
"status":{"type":"object","properties":{"phase":{"type":"string"},"reason":{"type":"string"}}}}}}}]}}`

// part declares some of a Part: not spec.color, the containers'
// resources nor status.reason.
type part struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Size       int `json:"size"`
		Containers []struct {
			Name  string `json:"name"`
			Image string `json:"image,omitempty"`
		} `json:"containers"`
	} `json:"spec"`
	Status struct {
		Phase string `json:"phase,omitempty"`
	} `json:"status,omitzero"`
}

func (*part) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Part"}
}

// newPartServer serves the Part CRD and a Part "p" with every field set,
// and returns a client.
func newPartServer(t *testing.T) (*kubetest.Server, *kube.Client) {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	crd := &kube.Unstructured{}
	if err := json.Unmarshal([]byte(partCRD), crd); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), crd); err != nil {
		t.Fatal(err)
	}
	p := &kube.Unstructured{}
	if err := json.Unmarshal([]byte(`{"apiVersion":"example.com/v1","kind":"Part","metadata":{"namespace":"default","name":"p"},
"spec":{"size":1,"color":"red","containers":[{"name":"a","image":"i","resources":{"cpu":"1"}},{"name":"b","resources":{"cpu":"2"}}]}}`), p); err != nil {
		t.Fatal(err)
	}
	if err := c.Create(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	p.SetField(map[string]any{"phase": "A", "reason": "because"}, "status")
	if err := c.Status().Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// storedPart returns Part "p" as JSON without apiVersion, kind and
// metadata.
func storedPart(t *testing.T, c *kube.Client) string {
	t.Helper()
	u := &kube.Unstructured{}
	u.SetGroupVersionKind((&part{}).GroupVersionKind())
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "p"}, u); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(u.Content)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A custom resource's spec and status fields its type does not declare
// survive an Update and a Status().Update, a list of partial elements
// lined up by name included; a list that cannot be lined up is refused
// with an error naming what would be lost.
func TestUpdateKeepsUndeclaredCustomResourceFields(t *testing.T) {
	_, c := newPartServer(t)
	p := &part{}
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "p"}, p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Size = 2
	p.Spec.Containers[1].Image = "j"
	if err := c.Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	const spec = `"spec":{"color":"red","containers":[{"image":"i","name":"a","resources":{"cpu":"1"}},{"image":"j","name":"b","resources":{"cpu":"2"}}],"size":2}`
	if got, want := storedPart(t, c), `{`+spec+`,"status":{"phase":"A","reason":"because"}}`; got != want {
		t.Errorf("after Update: %s\nwant %s", got, want)
	}

	p.Status.Phase = "B"
	if err := c.Status().Update(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if got, want := storedPart(t, c), `{`+spec+`,"status":{"phase":"B","reason":"because"}}`; got != want {
		t.Errorf("after Status().Update: %s\nwant %s", got, want)
	}

	p.Spec.Containers = p.Spec.Containers[1:] // "a" goes, and "b" moves
	err := c.Update(t.Context(), p)
	var undeclared *kube.UndeclaredFieldsError
	if !errors.As(err, &undeclared) || !reflect.DeepEqual(undeclared.Paths, []string{"spec.containers[0].resources", "spec.containers[1].resources"}) {
		t.Fatalf("Update of a list that cannot be lined up = %v, want an UndeclaredFieldsError naming both resources", err)
	}
	for _, want := range []string{"update Part default/p", "spec.containers[0].resources", "kube.MergeFrom", "Apply"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if got, want := storedPart(t, c), `{`+spec+`,"status":{"phase":"B","reason":"because"}}`; got != want {
		t.Errorf("after a refused Update: %s\nwant %s", got, want)
	}
}

// Replace writes a type that holds everything as it is, without a read,
// and refuses any other type without sending anything.
func TestReplace(t *testing.T) {
	srv, c := newPartialServer(t)
	cm := storedConfigMap(t, c)
	srv.ResetCounts()
	cm.Data = map[string]string{"a": "2"}
	if err := c.Replace(t.Context(), cm); err != nil {
		t.Fatal(err)
	}
	p := &dataOnly{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm"}}
	err := c.Replace(t.Context(), p)
	if want := "replace ConfigMap default/cm: *kube_test.dataOnly does not hold every field of its kind: use Update"; err == nil || err.Error() != want {
		t.Errorf("Replace of a partial type = %v, want %s", err, want)
	}
	if got := srv.Counts(); got["update configmaps"] != 1 || got["get configmaps"] != 0 {
		t.Errorf("requests = %v, want one update of ConfigMaps and no get", got)
	}
	if got := storedConfigMap(t, c); got.Data["a"] != "2" || len(got.BinaryData) != 1 {
		t.Errorf("stored %v %v, want a=2 and binaryData kept", got.Data, got.BinaryData)
	}
}

// An update from a stale read that cannot be laid over the stored
// object gets the Conflict any stale update gets, which RetryOnConflict
// handles, not an UndeclaredFieldsError.
func TestUpdatePartialStaleListConflicts(t *testing.T) {
	_, c := newPartServer(t)
	p := &part{}
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "p"}, p); err != nil {
		t.Fatal(err)
	}
	other := &kube.Unstructured{}
	other.SetGroupVersionKind(p.GroupVersionKind())
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "p"}, other); err != nil {
		t.Fatal(err)
	}
	other.SetField([]any{map[string]any{"name": "a", "resources": map[string]any{"cpu": "3"}}}, "spec", "containers")
	if err := c.Update(t.Context(), other); err != nil {
		t.Fatal(err)
	}
	if err := c.Update(t.Context(), p); !kube.IsConflict(err) {
		t.Errorf("stale Update whose list no longer lines up = %v, want a Conflict", err)
	}
}
