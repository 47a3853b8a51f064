// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
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

	// A copy read before the write neither Conflicts nor drops the
	// finalizer added since: it is read afresh (a {} patch) and the
	// change made again.
	srv.ResetCounts()
	if got, err := RemoveFinalizer(ctx, c, &stale, "other/keep"); err != nil || !got {
		t.Errorf("RemoveFinalizer with a stale object = %v, %v; want true, nil", got, err)
	}
	if n := srv.Count("patch", "configmaps"); n != 3 {
		t.Errorf("RemoveFinalizer with a stale object sent %d patches, want 3 (refused, read afresh, sent again)", n)
	}
	stored = mustGet(t, srv, "f")["metadata"].(map[string]any)["finalizers"]
	if want := []any{fin}; !slices.Equal(stored.([]any), want) {
		t.Errorf("finalizers on the server = %v, want %v", stored, want)
	}
	if !slices.Equal(stale.Finalizers, []string{fin}) {
		t.Errorf("finalizers of the stale object after = %v, want the server's %v", stale.Finalizers, []string{fin})
	}
	// An object named but never read is read first.
	unread := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "f"}}
	if got, err := EnsureFinalizer(ctx, c, unread, "other/keep"); err != nil || !got {
		t.Errorf("EnsureFinalizer of an unread object = %v, %v; want true, nil", got, err)
	}
	stored = mustGet(t, srv, "f")["metadata"].(map[string]any)["finalizers"]
	if want := []any{fin, "other/keep"}; !slices.Equal(stored.([]any), want) {
		t.Errorf("finalizers on the server = %v, want %v", stored, want)
	}
	if err := c.Get(ctx, o.Key(), o); err != nil {
		t.Fatal(err)
	}

	if err := c.Delete(ctx, o); err != nil {
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
	// A copy that still has the finalizer of an object gone: nothing to do.
	gone := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "f", ResourceVersion: stale.ResourceVersion,
		Finalizers: []string{fin}}}
	if got, err := RemoveFinalizer(ctx, c, gone, fin); err != nil || got {
		t.Errorf("RemoveFinalizer of an object gone = %v, %v; want false, nil", got, err)
	}
	if got, err := EnsureFinalizer(ctx, c, gone, "x/y"); !kube.IsNotFound(err) || got {
		t.Errorf("EnsureFinalizer of an object gone = %v, %v; want false, NotFound", got, err)
	}
}

// deletedOn133 is a Client whose patches meet an object deleted
// meanwhile as kube-apiserver 1.33 answers it: 409 Conflict naming
// storage's invalid object with an empty stored uid (1.36 and 1.37 answer
// 404).
type deletedOn133 struct {
	Client
	patches int
}

func (c *deletedOn133) Patch(ctx context.Context, obj kube.Object, p kube.Patch, opts ...kube.WriteOption) error {
	c.patches++
	return kube.NewStatusError(409, kube.ReasonConflict, `Operation cannot be fulfilled on configmaps "f": `+
		`StorageError: invalid object, Code: 4, Key: /registry/configmaps/default/f, ResourceVersion: 0, `+
		`AdditionalErrorMsg: Precondition failed: UID in precondition: 6d1f0c8e-1111-4222-8333-944455556666, UID in object meta: `)
}

// TestRemoveFinalizerDeletedOn133: the last finalizer removed by another
// writer meanwhile is "already gone" on 1.33 too: RemoveFinalizer returns
// false and nil after its one patch, without reading afresh.
func TestRemoveFinalizerDeletedOn133(t *testing.T) {
	c := &deletedOn133{}
	o := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "f", ResourceVersion: "7", Finalizers: []string{"example.com/cleanup"}}}
	if got, err := RemoveFinalizer(t.Context(), c, o, "example.com/cleanup"); got || err != nil {
		t.Errorf("RemoveFinalizer of an object deleted meanwhile (1.33) = %v, %v; want false, nil", got, err)
	}
	if c.patches != 1 {
		t.Errorf("RemoveFinalizer sent %d patches, want 1 (the object is gone: nothing to read afresh)", c.patches)
	}
}
