// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
)

// testCRDFromGoTypes, scenario CRDFromGoTypes of [Run], checks kube/crd
// against a server: it installs the CRDs built from [Sprocket] and [Cog],
// waits for them to be Established, creates objects encoded from Go
// values and reads them back equal, sees defaults filled in and unknown
// fields pruned, and sees invalid objects refused with the field paths
// and messages kube-apiserver gives (an int64 beyond 2^53 included, which
// both servers keep exactly).
func testCRDFromGoTypes(t *testing.T, f *fixture) {
	group := "t" + randomSuffix() + ".crd.kubeloop.dev"
	sprocketKind := kube.GroupVersionKind{Group: group, Version: "v1", Kind: "Sprocket"}
	cogKind := kube.GroupVersionKind{Group: group, Version: "v1", Kind: "Cog"}

	sprockets, err := crd.For(&Sprocket{TypeMeta: typeMeta(sprocketKind)}, crd.Options{ShortNames: []string{"spr"}})
	if err != nil {
		t.Fatal(err)
	}
	cogs, err := crd.For(&Cog{TypeMeta: typeMeta(cogKind)}, crd.Options{Scope: crd.Cluster})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, c := range []*crd.CustomResourceDefinition{sprockets, cogs} {
			_ = f.c.Delete(context.Background(), c)
		}
	})
	ctx, cancel := context.WithTimeout(f.ctx, f.env.Wait)
	defer cancel()
	if err := crd.Install(ctx, f.c, sprockets, cogs); err != nil {
		t.Fatalf("install: %v", err)
	}

	t.Run("Installed", func(t *testing.T) {
		var got crd.CustomResourceDefinition
		if err := f.c.Get(f.ctx, kube.Key{Name: sprockets.Name}, &got); err != nil {
			t.Fatal(err)
		}
		if !kube.IsStatusConditionTrue(got.Status.Conditions, crd.Established) || got.Status.AcceptedNames.Plural != "sprockets" {
			t.Errorf("status = %+v, want Established with the names accepted", got.Status)
		}
		cols := got.Spec.Versions[0].AdditionalPrinterColumns
		if len(cols) != 2 || cols[0].JSONPath != ".spec.size" || cols[1].Name != "Age" {
			t.Errorf("printer columns = %+v, want Size and Age", cols)
		}
	})
	t.Run("RoundTrip", func(t *testing.T) { testCRDRoundTrip(t, f, sprocketKind) })
	t.Run("Defaults", func(t *testing.T) { testCRDDefaults(t, f, sprocketKind) })
	t.Run("Pruning", func(t *testing.T) { testCRDPruning(t, f, sprocketKind) })
	t.Run("Status", func(t *testing.T) { testCRDStatus(t, f, sprocketKind) })
	t.Run("Invalid", func(t *testing.T) { testCRDInvalid(t, f, sprocketKind) })
	t.Run("ClusterScoped", func(t *testing.T) { testCRDCluster(t, f, cogKind) })
}

func typeMeta(gvk kube.GroupVersionKind) kube.TypeMeta {
	return kube.TypeMeta{APIVersion: gvk.APIVersion(), Kind: gvk.Kind}
}

// fullSprocket fills every field of a Sprocket with a valid value.
func fullSprocket(ns, name string, gvk kube.GroupVersionKind) *Sprocket {
	yes := true
	deadline := kube.Time{Time: time.Date(2026, 11, 21, 4, 48, 10, 0, time.UTC)}
	return &Sprocket{
		TypeMeta:   typeMeta(gvk),
		ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "sprocket"}},
		Spec: SprocketSpec{
			Size: 3, Name: "main-sprocket", Color: "blue", Port: kube.IntOrStringFromString("http"),
			Ratio: 0.25, Big: 1<<53 + 1, Enabled: &yes,
			Tags:    []string{"a", "b"},
			Limits:  map[string]int64{"cpu": 2, "memory": 1 << 40},
			Parts:   []Part{{Name: "gear", Count: 2, Notes: []Note{{Text: "oiled"}}}, {Name: "chain"}},
			Owner:   &Owner{Team: "infra", Contact: &Contact{Email: "infra@example.com"}},
			Payload: []byte{0, 1, 2, 0xff}, Deadline: &deadline,
			Started:  kube.MicroTime{Time: time.Date(2026, 11, 21, 4, 50, 0, 123456000, time.UTC)},
			Timeout:  90 * time.Second,
			Template: kube.ObjectMeta{Name: "tmpl", Labels: map[string]string{"tier": "web"}, Annotations: map[string]string{"note": "kept"}},
			Extra:    map[string]any{"free": "form", "nested": map[string]any{"n": 1.5, "list": []any{"x", true}}},
			Anything: []any{"any", 2.0},
			Raw:      json.RawMessage(`{"raw":[1,2,3]}`),
			Config: &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: kube.ObjectMeta{Name: "embedded", Labels: map[string]string{"x": "y"}}, Data: map[string]string{"k": "v"}},
			Object: &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "example.com/v1", Kind: "Anything"},
				ObjectMeta: kube.ObjectMeta{Name: "inner"}, Content: map[string]any{"spec": map[string]any{"whatever": "kept"}}},
		},
	}
}

func testCRDRoundTrip(t *testing.T, f *fixture, gvk kube.GroupVersionKind) {
	want := fullSprocket(f.ns, "full", gvk)
	if err := f.c.Create(f.ctx, fullSprocket(f.ns, "full", gvk)); err != nil {
		t.Fatalf("create a valid Sprocket: %v", err)
	}
	got := &Sprocket{TypeMeta: typeMeta(gvk)}
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "full"}, got); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Spec, want.Spec) {
		gb, _ := json.Marshal(got.Spec)
		wb, _ := json.Marshal(want.Spec)
		t.Errorf("read back:\n%s\nwant\n%s", gb, wb)
	}
	// The selectable field works in a field selector.
	var list kube.List[Sprocket]
	list.SetGroupVersionKind(kube.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind + "List"})
	if err := f.c.List(f.ctx, &list, kube.InNamespace(f.ns), kube.MatchingFields{"spec.color": "blue"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "full" {
		t.Errorf("list by spec.color=blue = %d items, want the blue one", len(list.Items))
	}
}

func testCRDDefaults(t *testing.T, f *fixture, gvk kube.GroupVersionKind) {
	s := &Sprocket{TypeMeta: typeMeta(gvk), ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "minimal"},
		Spec: SprocketSpec{Size: 1, Name: "m"}}
	if err := f.c.Create(f.ctx, s); err != nil {
		t.Fatalf("create a minimal Sprocket: %v", err)
	}
	if s.Spec.Color != "red" {
		t.Errorf("spec.color = %q, want the default red", s.Spec.Color)
	}
}

func testCRDPruning(t *testing.T, f *fixture, gvk kube.GroupVersionKind) {
	u := &kube.Unstructured{TypeMeta: typeMeta(gvk), ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "pruned"}}
	u.SetField(map[string]any{"size": 2, "name": "p", "unknown": "dropped",
		"owner": map[string]any{"team": "t", "stray": 1},
		"extra": map[string]any{"unknown": "kept"}}, "spec")
	if err := f.c.Create(f.ctx, u); err != nil {
		t.Fatalf("create: %v", err)
	}
	for _, path := range [][]string{{"spec", "unknown"}, {"spec", "owner", "stray"}} {
		if v, ok := u.Field(path...); ok {
			t.Errorf("%s = %v after create, want it pruned", strings.Join(path, "."), v)
		}
	}
	if v, _ := u.Field("spec", "extra", "unknown"); v != "kept" {
		t.Errorf("spec.extra.unknown = %v, want it kept (free-form map)", v)
	}
}

func testCRDStatus(t *testing.T, f *fixture, gvk kube.GroupVersionKind) {
	s := &Sprocket{TypeMeta: typeMeta(gvk), ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "status"}, Spec: SprocketSpec{Size: 1, Name: "s"}}
	if err := f.c.Create(f.ctx, s); err != nil {
		t.Fatal(err)
	}
	s.Status.Replicas = 1
	kube.SetStatusCondition(&s.Status.Conditions, kube.Condition{Type: "Ready", Status: kube.ConditionTrue, Reason: "AllGood", ObservedGeneration: s.Generation})
	kube.SetStatusCondition(&s.Status.Conditions, kube.Condition{Type: "example.com/Degraded", Status: kube.ConditionFalse, Reason: "Fine", Message: "nothing, to report"})
	want := s.Status
	if err := f.c.Status().Update(f.ctx, s); err != nil {
		t.Fatalf("update status: %v", err)
	}
	if !reflect.DeepEqual(s.Status, want) {
		t.Errorf("status read back = %+v, want %+v", s.Status, want)
	}
	// A condition the API's rules refuse.
	kube.SetStatusCondition(&s.Status.Conditions, kube.Condition{Type: "Bad Type", Status: "Maybe"})
	err := f.c.Status().Update(f.ctx, s)
	checkCauses(t, "status with a bad condition", err, []string{
		`status.conditions[2].reason: Invalid value: "": conditions[2].reason in body should be at least 1 chars long`,
		`status.conditions[2].status: Unsupported value: "Maybe": supported values: "True", "False", "Unknown"`,
		`status.conditions[2].type: Invalid value: "Bad Type": conditions[2].type in body should match '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$'`,
	})
}

func testCRDCluster(t *testing.T, f *fixture, gvk kube.GroupVersionKind) {
	c := &Cog{TypeMeta: typeMeta(gvk), ObjectMeta: kube.ObjectMeta{Name: "cog-" + randomSuffix()},
		CogFields: CogFields{Diameter: 12, Material: "brass"}, Teeth: map[string][]int32{"outer": {1, 2, 3}}}
	want := *c
	if err := f.c.Create(f.ctx, c); err != nil {
		t.Fatalf("create a Cog: %v", err)
	}
	t.Cleanup(func() { _ = f.c.Delete(context.Background(), c) })
	if c.Namespace != "" || c.CogFields != want.CogFields || !reflect.DeepEqual(c.Teeth, want.Teeth) {
		t.Errorf("Cog read back = %+v, want %+v", c, want)
	}
	bad := &kube.Unstructured{TypeMeta: typeMeta(gvk), ObjectMeta: kube.ObjectMeta{Name: "cog-bad-" + randomSuffix()},
		Content: map[string]any{"diameter": -1, "teeth": map[string]any{"x": []any{"one"}}}}
	err := f.c.Create(f.ctx, bad)
	checkCauses(t, "a bad Cog", err, []string{
		"diameter: Invalid value: -1: diameter in body should be greater than or equal to 0",
		`teeth.x[0]: Invalid value: "string": teeth.x[0] in body must be of type integer: "string"`,
	})
}

// checkCauses asserts that err is Invalid with exactly the causes want,
// each "field: message", in any order.
func checkCauses(t *testing.T, what string, err error, want []string) {
	t.Helper()
	se, ok := kube.AsStatusError(err)
	if !ok || !kube.IsInvalid(err) {
		t.Errorf("%s: error %v, want Invalid", what, err)
		return
	}
	var got []string
	if se.Status.Details != nil {
		for _, c := range se.Status.Details.Causes {
			got = append(got, c.Field+": "+c.Message)
		}
	}
	slices.Sort(got)
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		var b strings.Builder
		for _, g := range got {
			fmt.Fprintf(&b, "\t\t%q,\n", g)
		}
		t.Errorf("%s: causes\n%swant\n\t\t%q", what, b.String(), want)
	}
}
