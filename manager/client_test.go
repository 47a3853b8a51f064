// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"os"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

var secrets = kube.GroupVersionResource{Version: "v1", Resource: "secrets"}

func TestClientReadsCacheAndWritesServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createCM(t, srv, "default", "cached")
		if _, err := srv.Create(secrets, map[string]any{"apiVersion": "v1", "kind": "Secret",
			"metadata": map[string]any{"namespace": "default", "name": "token"}}); err != nil {
			t.Fatal(err)
		}
		m := newTestManager(t, srv, func(o *Options) {
			o.Cache.ByObject = []cache.ByObject{{Object: &kube.ConfigMap{}}}
			o.DisableFor = []kube.Object{&kube.Secret{}}
			o.FieldManager = "manager-test"
		})
		run := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		ctx := context.Background()
		c := m.Client()
		srv.ResetCounts()

		var cm kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "cached"}, &cm); err != nil {
			t.Fatal(err)
		}
		var cms kube.List[kube.ConfigMap]
		if err := c.List(ctx, &cms, kube.ListOptions{Namespace: "default"}); err != nil || len(cms.Items) != 1 {
			t.Fatalf("List configmaps = %d items, %v", len(cms.Items), err)
		}
		if err := c.List(ctx, &cms, kube.InNamespace("kube-system")); err != nil || len(cms.Items) != 0 {
			t.Fatalf("List configmaps in kube-system = %d items, %v; want none", len(cms.Items), err)
		}
		if err := c.List(ctx, &cms, kube.InNamespace("default"), kube.MatchingFields{"metadata.name": "cached"}); err != nil || len(cms.Items) != 1 {
			t.Fatalf("List configmaps by option helpers = %d items, %v; want 1", len(cms.Items), err)
		}
		if n := srv.Count("get", "configmaps") + srv.Count("list", "configmaps"); n != 0 {
			t.Errorf("cached reads made %d requests, want 0", n)
		}
		var s kube.Secret
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "token"}, &s); err != nil {
			t.Fatal(err)
		}
		var ss kube.List[kube.Secret]
		if err := c.List(ctx, &ss, kube.InNamespace("default"), kube.MatchingLabels{}); err != nil || len(ss.Items) != 1 {
			t.Fatalf("List secrets = %d items, %v", len(ss.Items), err)
		}
		if g, l := srv.Count("get", "secrets"), srv.Count("list", "secrets"); g != 1 || l != 1 {
			t.Errorf("uncached reads: %d gets, %d lists; want 1 and 1", g, l)
		}
		if len(m.Cache().Stats()) != 1 {
			t.Errorf("the cache holds %d kinds, want ConfigMaps only", len(m.Cache().Stats()))
		}

		// Writes go to the server; the cache follows.
		fresh := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "fresh"}, Data: map[string]string{"a": "1"}}
		if err := c.Create(ctx, fresh); err != nil {
			t.Fatal(err)
		}
		fresh.Data["a"] = "2"
		if err := c.Update(ctx, fresh); err != nil {
			t.Fatal(err)
		}
		if err := c.Patch(ctx, fresh, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"b":"3"}}`)}); err != nil {
			t.Fatal(err)
		}
		applied := &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "applied"}, Data: map[string]string{"x": "y"}}
		if err := c.Apply(ctx, applied); err != nil {
			t.Fatalf("Apply with the default field manager: %v", err)
		}
		synctest.Wait()
		var got kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "fresh"}, &got); err != nil || got.Data["a"] != "2" || got.Data["b"] != "3" {
			t.Errorf("cached fresh = %v (%v), want a=2 b=3", got.Data, err)
		}
		if err := c.Delete(ctx, fresh); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteAllOf(ctx, fresh.GroupVersionKind(), kube.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "applied"}, &got); !kube.IsNotFound(err) {
			t.Errorf("Get after DeleteAllOf = %v, want NotFound", err)
		}

		// Status goes to the subresource.
		dep := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "web"},
			Content: map[string]any{"spec": map[string]any{"replicas": 1.0, "selector": map[string]any{"matchLabels": map[string]any{"app": "web"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "web"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}}}
		if err := c.Create(ctx, dep); err != nil {
			t.Fatal(err)
		}
		if err := c.Status().Patch(ctx, dep, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"status":{"replicas":1}}`)}); err != nil {
			t.Fatal(err)
		}
		dep.SetField(2.0, "status", "replicas")
		if err := c.Status().Update(ctx, dep); err != nil {
			t.Fatal(err)
		}
		if n := srv.Count("patch", "deployments.apps/status") + srv.Count("update", "deployments.apps/status"); n != 2 {
			t.Errorf("status writes = %d, want 2", n)
		}
		if v, _ := dep.Field("status", "replicas"); v != 2.0 {
			t.Errorf("status.replicas = %v, want 2", v)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestSignalContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan os.Signal, 2)
		exits := make(chan int, 1)
		ctx := signalContext(ch, func(code int) { exits <- code })
		synctest.Wait()
		if ctx.Err() != nil {
			t.Fatal("cancelled before any signal")
		}
		ch <- syscall.SIGTERM
		synctest.Wait()
		if ctx.Err() == nil {
			t.Fatal("not cancelled by the first signal")
		}
		select {
		case <-exits:
			t.Fatal("exited on the first signal")
		default:
		}
		ch <- os.Interrupt
		synctest.Wait()
		select {
		case code := <-exits:
			if code != 1 {
				t.Errorf("exit code = %d, want 1", code)
			}
		default:
			t.Fatal("did not exit on the second signal")
		}
	})
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan os.Signal)
		ctx := signalContext(ch, func(int) { t.Error("exit called") })
		close(ch) // the goroutine ends with the channel
		synctest.Wait()
		if ctx.Err() != nil {
			t.Error("a closed channel cancelled the context")
		}
	})
}
