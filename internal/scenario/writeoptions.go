// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testWriteOptions checks the options of one write (kube.WriteOptions)
// on a client whose own options are the defaults: a dry run of each
// write changes nothing, FieldOwner names the manager of this write
// alone, FieldValidation Strict refuses an unknown field, Warn stores
// the object and hands the server's warning to the caller, Ignore says
// nothing, and ForceOwnership lets an apply patch take a field another
// manager owns.
func testWriteOptions(t *testing.T, f *fixture) {
	get := func(name string) (*kube.ConfigMap, error) {
		var cm kube.ConfigMap
		err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: name}, &cm)
		return &cm, err
	}

	t.Run("DryRun", func(t *testing.T) {
		cm := f.configMap("dry", nil, map[string]string{"k": "v"})
		if err := f.c.Create(f.ctx, cm, kube.DryRunAll); err != nil || cm.UID == "" {
			t.Fatalf("dry-run Create = %v, uid %q; want the object as it would be stored", err, cm.UID)
		}
		if _, err := get("dry"); !kube.IsNotFound(err) {
			t.Errorf("Get after a dry-run Create = %v, want NotFound", err)
		}
		cm = f.configMap("dry", nil, map[string]string{"k": "v"})
		f.mustCreate(t, cm)
		rv := cm.ResourceVersion
		cm.Data["k"] = "updated"
		if err := f.c.Update(f.ctx, cm, kube.WriteOptions{DryRun: true}); err != nil || cm.Data["k"] != "updated" {
			t.Errorf("dry-run Update = %v, data %v; want the updated object answered", err, cm.Data)
		}
		if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"k":"patched"}}`)}, kube.DryRunAll); err != nil || cm.Data["k"] != "patched" {
			t.Errorf("dry-run Patch = %v, data %v; want the patched object answered", err, cm.Data)
		}
		if err := f.c.Delete(f.ctx, cm, kube.DeleteOptions{DryRun: true}); err != nil {
			t.Errorf("dry-run Delete = %v", err)
		}
		if got, err := get("dry"); err != nil || got.ResourceVersion != rv || got.Data["k"] != "v" {
			t.Errorf("after dry-run Update, Patch and Delete: %v, rv %s data %v; want rv %s data k=v", err, got.ResourceVersion, got.Data, rv)
		}
	})

	t.Run("FieldOwner", func(t *testing.T) {
		cm := f.configMap("owned", nil, map[string]string{"k": "v"})
		if err := f.c.Create(f.ctx, cm, kube.FieldOwner("scenario-installer")); err != nil {
			t.Fatal(err)
		}
		cm.Data["k"] = "w"
		if err := f.c.Update(f.ctx, cm); err != nil {
			t.Fatal(err)
		}
		var entries []struct{ Manager string }
		if err := json.Unmarshal(cm.ManagedFields, &entries); err != nil {
			t.Fatal(err)
		}
		var managers []string
		for _, m := range entries {
			managers = append(managers, m.Manager)
		}
		slices.Sort(managers)
		if want := []string{"kubeloop-scenario", "scenario-installer"}; !slices.Equal(managers, want) {
			t.Errorf("managers = %v, want %v: FieldOwner for the create, the client's for the update", managers, want)
		}
	})

	t.Run("FieldValidation", func(t *testing.T) {
		unknown := func(name string) *kube.Unstructured {
			return &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name},
				Content:    map[string]any{"data": map[string]any{"k": "v"}, "bogus": 1}}
		}
		err := f.c.Create(f.ctx, unknown("strict"), kube.FieldValidationStrict)
		if se, ok := kube.AsStatusError(err); !ok || se.Status.Reason != kube.ReasonBadRequest || !strings.Contains(err.Error(), `strict decoding error: unknown field "bogus"`) {
			t.Errorf("Create with an unknown field, Strict = %v, want BadRequest naming the field", err)
		}
		var warnings []string
		obj := unknown("warn")
		if err := f.c.Create(f.ctx, obj, kube.FieldValidationWarn, kube.WriteOptions{Warnings: &warnings}); err != nil {
			t.Fatalf("Create with an unknown field, Warn = %v", err)
		}
		if want := []string{`unknown field "bogus"`}; !slices.Equal(warnings, want) {
			t.Errorf("warnings of Warn = %q, want %q", warnings, want)
		}
		if _, ok := obj.Content["bogus"]; ok {
			t.Errorf("stored object keeps the unknown field: %v", obj.Content)
		}
		warnings = nil
		if err := f.c.Create(f.ctx, unknown("ignore"), kube.FieldValidationIgnore, kube.WriteOptions{Warnings: &warnings}); err != nil || len(warnings) != 0 {
			t.Errorf("Create with an unknown field, Ignore = %v with warnings %q, want none", err, warnings)
		}
	})

	t.Run("Force", func(t *testing.T) {
		apply := func(manager, value string, opts ...kube.WriteOption) error {
			cm := &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
				ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "forced"}, Data: map[string]string{"k": value}}
			body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"forced","namespace":"` + f.ns + `"},"data":{"k":"` + value + `"}}`
			return f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.ApplyPatch, Data: []byte(body)}, append(opts, kube.FieldOwner(manager))...)
		}
		if err := apply("first", "a"); err != nil {
			t.Fatal(err)
		}
		if err := apply("second", "b"); !kube.IsConflict(err) {
			t.Errorf("apply of a field another manager owns = %v, want a Conflict", err)
		}
		if err := apply("second", "b", kube.ForceOwnership); err != nil {
			t.Errorf("apply with ForceOwnership = %v", err)
		}
		if got, err := get("forced"); err != nil || got.Data["k"] != "b" {
			t.Errorf("after the forced apply: %v, data %v; want k=b", err, got.Data)
		}
	})
}
