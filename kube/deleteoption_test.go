// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"bytes"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// bodies records the body of every DELETE a client sends.
type bodies struct {
	next http.RoundTripper
	mu   sync.Mutex
	sent []string
}

func (b *bodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete && r.Body != nil {
		data, err := io.ReadAll(r.Body)
		if err != nil {
			return nil, err
		}
		r.Body = io.NopCloser(bytes.NewReader(data))
		b.mu.Lock()
		b.sent = append(b.sent, string(data))
		b.mu.Unlock()
	}
	return b.next.RoundTrip(r)
}

func (b *bodies) last() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.sent) == 0 {
		return ""
	}
	return b.sent[len(b.sent)-1]
}

// Delete and DeleteAllOf take their options one by one, as Create does,
// or as a struct, as before; several are merged in order, and none is
// the server's defaults.
func TestDeleteOptionsPerCall(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	cfg := srv.Config()
	rec := &bodies{next: cfg.Transport}
	cfg.Transport = rec
	c, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "other"}}); err != nil {
		t.Fatal(err)
	}
	cms := map[string]*kube.ConfigMap{}
	for _, m := range []kube.ObjectMeta{
		{Namespace: "default", Name: "a"},
		{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}},
		{Namespace: "default", Name: "db", Labels: map[string]string{"app": "db"}},
		{Namespace: "other", Name: "web", Labels: map[string]string{"app": "web"}},
	} {
		cm := &kube.ConfigMap{ObjectMeta: m}
		if err := c.Create(ctx, cm); err != nil {
			t.Fatal(err)
		}
		cms[m.Namespace+"/"+m.Name] = cm
	}
	exists := func(ns, name string) bool {
		t.Helper()
		err := c.Get(ctx, kube.Key{Namespace: ns, Name: name}, &kube.ConfigMap{})
		if err != nil && !kube.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}

	a := cms["default/a"]
	wrong := "00000000-0000-0000-0000-000000000000"
	if err := c.Delete(ctx, a, kube.Preconditions{UID: &wrong}); !kube.IsConflict(err) {
		t.Errorf("Delete with a wrong uid precondition = %v, want a Conflict", err)
	}
	if err := c.Delete(ctx, a, kube.DeleteOptions{PropagationPolicy: kube.PropagationOrphan}, kube.DryRunAll); err != nil || !exists("default", "a") {
		t.Errorf("dry-run Delete = %v, exists %v; want nil and still there", err, exists("default", "a"))
	}
	if want := `{"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions","propagationPolicy":"Orphan","dryRun":["All"]}`; rec.last() != want {
		t.Errorf("dry-run Delete sent %s, want %s", rec.last(), want)
	}
	uid := a.UID
	if err := c.Delete(ctx, a, kube.PropagationBackground, kube.GracePeriodSeconds(0), kube.Preconditions{UID: &uid}); err != nil || exists("default", "a") {
		t.Errorf("Delete = %v, exists %v; want nil and gone", err, exists("default", "a"))
	}
	if want := `{"apiVersion":"meta.k8s.io/v1","kind":"DeleteOptions","preconditions":{"uid":"` + uid +
		`"},"propagationPolicy":"Background","gracePeriodSeconds":0}`; rec.last() != want {
		t.Errorf("Delete sent %s, want %s", rec.last(), want)
	}

	cmKind := kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	if err := c.DeleteAllOf(ctx, cmKind, kube.DeleteAllOfOptions{Namespace: "default"}, kube.MatchingLabels{"app": "web"}, kube.DryRunAll); err != nil ||
		!exists("default", "web") {
		t.Errorf("dry-run DeleteAllOf = %v, want nil and default/web still there", err)
	}
	if err := c.DeleteAllOf(ctx, cmKind, kube.InNamespace("default"), kube.MatchingLabels{"app": "web"}); err != nil {
		t.Fatalf("DeleteAllOf = %v", err)
	}
	for _, tt := range []struct {
		ns, name string
		want     bool
	}{{"default", "web", false}, {"default", "db", true}, {"other", "web", true}} {
		if got := exists(tt.ns, tt.name); got != tt.want {
			t.Errorf("after DeleteAllOf in default of app=web: %s/%s exists %v, want %v", tt.ns, tt.name, got, tt.want)
		}
	}
}

// Apply takes the options of any write one by one: FieldOwner names the
// manager, ForceOwnership takes fields another manager owns. Without a
// field manager anywhere, it is refused before anything is sent.
func TestApplyOptionsPerCall(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cm := func(v string) *kube.ConfigMap {
		return &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "applied"}, Data: map[string]string{"k": v}}
	}
	if err := c.Apply(ctx, cm("0")); err == nil {
		t.Error("Apply without a field manager = nil, want an error")
	}
	if err := c.Apply(ctx, cm("1"), kube.FieldOwner("first")); err != nil {
		t.Fatal(err)
	}
	if err := c.Apply(ctx, cm("2"), kube.FieldOwner("second")); !kube.IsConflict(err) {
		t.Errorf("Apply of a field another manager owns = %v, want a Conflict", err)
	}
	got := cm("2")
	if err := c.Apply(ctx, got, kube.FieldOwner("second"), kube.ForceOwnership); err != nil || got.Data["k"] != "2" {
		t.Errorf("forced Apply = %v, data %v; want nil and k=2", err, got.Data)
	}
	if err := c.Apply(ctx, cm("3"), kube.ApplyOptions{FieldManager: "first", Force: true}, kube.DryRunAll); err != nil {
		t.Errorf("dry-run Apply with an ApplyOptions = %v", err)
	}
	var stored kube.ConfigMap
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "applied"}, &stored); err != nil || stored.Data["k"] != "2" {
		t.Errorf("after a dry run: %v, data %v; want k=2", err, stored.Data)
	}
}
