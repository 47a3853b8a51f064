// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func testCRUD(t *testing.T, f *fixture) {
	cm := f.configMap("crud", map[string]string{"app": "demo"}, map[string]string{"a": "1"})
	f.mustCreate(t, cm)
	if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
		t.Fatalf("created object lacks uid, resourceVersion or creationTimestamp: %+v", cm.ObjectMeta)
	}
	if cm.Generation != 0 {
		t.Errorf("ConfigMap generation = %d, want none (the real server sets none)", cm.Generation)
	}
	if err := f.c.Create(f.ctx, f.configMap("crud", nil, nil)); !kube.IsAlreadyExists(err) {
		t.Errorf("second Create = %v, want AlreadyExists", err)
	}

	var got kube.ConfigMap
	if err := f.c.Get(f.ctx, cm.Key(), &got); err != nil {
		t.Fatal(err)
	}
	if got.UID != cm.UID || got.Data["a"] != "1" || got.Labels["app"] != "demo" || got.Kind != "ConfigMap" {
		t.Errorf("Get = %+v, want what was created", got)
	}

	stale := got
	got.Data = map[string]string{"a": "2"}
	if err := f.c.Update(f.ctx, &got); err != nil {
		t.Fatal(err)
	}
	if got.ResourceVersion == stale.ResourceVersion || got.Data["a"] != "2" {
		t.Errorf("Update: rv %s data %v, want a new rv and a=2", got.ResourceVersion, got.Data)
	}
	stale.Data = map[string]string{"a": "3"}
	err := f.c.Update(f.ctx, &stale)
	if !kube.IsConflict(err) {
		t.Fatalf("Update with stale rv = %v, want Conflict", err)
	}
	if !strings.Contains(err.Error(), "the object has been modified") {
		t.Errorf("conflict message %q, want the server's", err)
	}

	if err := f.c.Delete(f.ctx, &got); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Get(f.ctx, cm.Key(), &got); !kube.IsNotFound(err) {
		t.Errorf("Get after Delete = %v, want NotFound", err)
	}
	if err := f.c.Delete(f.ctx, &got); !kube.IsNotFound(err) {
		t.Errorf("second Delete = %v, want NotFound", err)
	}
}

var generatedName = regexp.MustCompile(`^gen-[bcdfghjklmnpqrstvwxz2456789]{5}$`)

func testGenerateName(t *testing.T, f *fixture) {
	seen := map[string]bool{}
	for range 3 {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, GenerateName: "gen-"}}
		f.mustCreate(t, cm)
		if !generatedName.MatchString(cm.Name) || seen[cm.Name] {
			t.Errorf("generated name %q, want gen- and 5 new random characters", cm.Name)
		}
		seen[cm.Name] = true
	}
}

func testInvalid(t *testing.T, f *fixture) {
	err := f.c.Create(f.ctx, f.configMap("Bad_Name", nil, nil))
	if !kube.IsInvalid(err) {
		t.Fatalf("Create(Bad_Name) = %v, want Invalid", err)
	}
	se, _ := kube.AsStatusError(err)
	if se.Status.Details == nil || len(se.Status.Details.Causes) == 0 || se.Status.Details.Causes[0].Field != "metadata.name" {
		t.Errorf("Invalid details = %+v, want a cause on metadata.name", se.Status.Details)
	}
	if !strings.Contains(err.Error(), "a lowercase RFC 1123 subdomain must consist of") {
		t.Errorf("message %q, want the server's DNS-1123 explanation", err)
	}
	err = f.c.Create(f.ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "not.a.label"}})
	if !kube.IsInvalid(err) {
		t.Errorf("Create(namespace not.a.label) = %v, want Invalid (namespaces are DNS-1123 labels)", err)
	}
}

func testMissingNamespace(t *testing.T, f *fixture) {
	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "nowhere-" + randomSuffix(), Name: "x"}}
	if err := f.c.Create(f.ctx, cm); !kube.IsNotFound(err) {
		t.Errorf("Create in a missing namespace = %v, want NotFound", err)
	}
}

func testFinalizers(t *testing.T, f *fixture) {
	cm := f.configMap("fin", nil, nil)
	cm.Finalizers = []string{"kubeloop.dev/test"}
	f.mustCreate(t, cm)
	if err := f.c.Delete(f.ctx, cm); err != nil {
		t.Fatal(err)
	}
	var got kube.ConfigMap
	if err := f.c.Get(f.ctx, cm.Key(), &got); err != nil {
		t.Fatalf("Get after Delete with a finalizer = %v, want the object still there", err)
	}
	if got.DeletionTimestamp == nil {
		t.Fatalf("deletionTimestamp not set after Delete with a finalizer")
	}
	got.RemoveFinalizer("kubeloop.dev/test")
	if err := f.c.Update(f.ctx, &got); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Get(f.ctx, cm.Key(), &got); !kube.IsNotFound(err) {
		t.Errorf("Get after removing the last finalizer = %v, want NotFound", err)
	}
}

func testDeletePreconditions(t *testing.T, f *fixture) {
	cm := f.configMap("pre", nil, nil)
	f.mustCreate(t, cm)
	wrong := "00000000-0000-0000-0000-000000000000"
	err := f.c.Delete(f.ctx, cm, kube.DeleteOptions{Preconditions: &kube.Preconditions{UID: &wrong}})
	if !kube.IsConflict(err) {
		t.Fatalf("Delete with a wrong uid precondition = %v, want Conflict", err)
	}
	uid := cm.UID
	if err := f.c.Delete(f.ctx, cm, kube.Preconditions{UID: &uid}); err != nil {
		t.Fatalf("Delete with the right uid: %v", err)
	}
}

func testDeleteAllOf(t *testing.T, f *fixture) {
	for i, tier := range []string{"a", "a", "b"} {
		f.mustCreate(t, f.configMap("dao-"+string(rune('0'+i)), map[string]string{"tier": tier}, nil))
	}
	err := f.c.DeleteAllOf(f.ctx, (&kube.ConfigMap{}).GroupVersionKind(), kube.InNamespace(f.ns), kube.MatchingLabels{"tier": "a"})
	if err != nil {
		t.Fatal(err)
	}
	var list kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, LabelSelector: kube.MustParseSelector("tier")}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Labels["tier"] != "b" {
		t.Errorf("after DeleteAllOf(tier=a): %d left, want only the tier=b one", len(list.Items))
	}
}
