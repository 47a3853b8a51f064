// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

func TestFinalizers(t *testing.T) {
	srv, c := newServer(t)
	ctx := t.Context()
	const fin = "example.com/cleanup"
	o := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "f", Finalizers: []string{"other/keep"}}}
	if err := c.Create(ctx, o); err != nil {
		t.Fatal(err)
	}
	stale := *o
	stale.ObjectMeta.Finalizers = slices.Clone(o.Finalizers)

	for i, want := range []bool{true, false} {
		srv.ResetCounts()
		got, err := EnsureFinalizer(ctx, c, o, fin)
		if err != nil || got != want {
			t.Fatalf("EnsureFinalizer #%d = %v, %v; want %v", i+1, got, err, want)
		}
		if n := srv.Count("patch", "configmaps"); n != map[bool]int{true: 1}[want] {
			t.Errorf("EnsureFinalizer #%d sent %d patches", i+1, n)
		}
	}
	stored := mustGet(t, srv, "f")["metadata"].(map[string]any)["finalizers"]
	if want := []any{"other/keep", fin}; !slices.Equal(stored.([]any), want) {
		t.Errorf("finalizers on the server = %v, want %v", stored, want)
	}

	// A copy read before the write must not drop the finalizer.
	if _, err := RemoveFinalizer(ctx, c, &stale, "other/keep"); !kube.IsConflict(err) {
		t.Errorf("RemoveFinalizer with a stale object = %v, want a Conflict", err)
	}

	if err := c.Delete(ctx, o, kube.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, o.Key(), o); err != nil || o.DeletionTimestamp == nil {
		t.Fatalf("after delete: %v, deletionTimestamp %v; want the object kept, being deleted", err, o.DeletionTimestamp)
	}
	for _, f := range []string{fin, "other/keep"} {
		if got, err := RemoveFinalizer(ctx, c, o, f); err != nil || !got {
			t.Fatalf("RemoveFinalizer(%s) = %v, %v; want true, nil", f, got, err)
		}
	}
	if err := c.Get(ctx, o.Key(), o); !kube.IsNotFound(err) {
		t.Errorf("after the last finalizer went: Get = %v, want NotFound", err)
	}
	if got, err := RemoveFinalizer(ctx, c, o, fin); err != nil || got {
		t.Errorf("RemoveFinalizer of an absent finalizer = %v, %v; want false, nil", got, err)
	}
}
