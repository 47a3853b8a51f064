// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"weak"

	"github.com/kubeloop/kubeloop/internal/stacks"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestRemoveInformer: an informer a handler is registered on is not
// removed; once the handler is gone it is, with its reflector, its watch
// on the server, its objects and the informer itself; a later read makes
// a new one, which lists again.
func TestRemoveInformer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		c, err := New(client, Options{})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		inf, err := c.GetInformer(ctx, &kube.ConfigMap{})
		if err != nil {
			t.Fatal(err)
		}
		rec := newRecorder(t)
		reg, err := inf.AddEventHandler(rec)
		if err != nil {
			t.Fatal(err)
		}
		waitSynced(t, inf)
		if _, err := c.GetInformer(ctx, &kube.Secret{}); err != nil { // another kind, which stays
			t.Fatal(err)
		}
		synctest.Wait()
		if got := stacks.Count("cache.(*reflector).run"); got != 2 {
			t.Fatalf("reflectors running = %d, want 2 (ConfigMaps and Secrets)", got)
		}

		err = c.RemoveInformer(ctx, &kube.ConfigMap{})
		if !errors.Is(err, ErrInUse) || !strings.Contains(err.Error(), "ConfigMap") || !strings.Contains(err.Error(), "1 handlers") {
			t.Fatalf("RemoveInformer with a handler registered = %v, want ErrInUse naming ConfigMap and 1 handler", err)
		}
		createCM(t, srv, "default", "after-refusal", nil)
		synctest.Wait()
		if _, ok := rec.snapshot()["default/after-refusal"]; !ok {
			t.Fatal("the informer stopped delivering after a refused RemoveInformer")
		}

		if err := inf.RemoveEventHandler(reg); err != nil {
			t.Fatal(err)
		}
		ref := weak.Make(inf.(*informer))
		if err := c.RemoveInformer(ctx, &kube.ConfigMap{}); err != nil {
			t.Fatalf("RemoveInformer = %v, want nil", err)
		}
		if objs, _ := inf.(*informer).store.size(); objs != 0 {
			t.Errorf("the removed informer still holds %d objects", objs)
		}
		if _, err := inf.AddEventHandler(newRecorder(t)); !errors.Is(err, ErrStopped) {
			t.Errorf("AddEventHandler on the removed informer = %v, want ErrStopped", err)
		}
		synctest.Wait()
		if got := stacks.Count("cache.(*reflector).run"); got != 1 {
			t.Errorf("reflectors running = %d, want 1 (Secrets)", got)
		}
		if got := stacks.Count("kubetest.(*Server).serveWatch"); got != 1 {
			t.Errorf("watches open on the server = %d, want 1 (Secrets)", got)
		}
		for _, st := range c.Stats() {
			if st.Kind.Kind == "ConfigMap" {
				t.Errorf("Stats holds a ConfigMap informer after RemoveInformer: %+v", st)
			}
		}
		inf, reg = nil, nil
		runtime.GC()
		if ref.Value() != nil {
			t.Error("the removed informer is still reachable after a GC")
		}
		if err := c.RemoveInformer(ctx, &kube.ConfigMap{}); err == nil || !strings.Contains(err.Error(), "holds none") {
			t.Errorf("RemoveInformer of a removed informer = %v, want an error saying the cache holds none", err)
		}

		lists := srv.Count("list", "configmaps") + srv.Count("watch", "configmaps")
		var cm kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "after-refusal"}, &cm); err != nil {
			t.Fatalf("Get after RemoveInformer = %v, want the object from a new informer", err)
		}
		if got := srv.Count("list", "configmaps") + srv.Count("watch", "configmaps"); got <= lists {
			t.Error("a read after RemoveInformer did not list the kind again")
		}
	})
}

// TestRemoveInformerNotStarted: an informer made before the cache starts
// and removed never runs.
func TestRemoveInformerNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		c, err := New(client, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := c.GetInformer(ctx, &kube.ConfigMap{}); err != nil {
			t.Fatal(err)
		}
		if err := c.RemoveInformer(ctx, &kube.ConfigMap{}); err != nil {
			t.Fatalf("RemoveInformer before Start = %v, want nil", err)
		}
		startCache(t, c)
		synctest.Wait()
		if n := srv.Count("list", "configmaps") + srv.Count("watch", "configmaps"); n != 0 {
			t.Errorf("the removed informer read ConfigMaps %d times, want none", n)
		}
	})
}
