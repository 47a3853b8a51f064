// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestByObjectNamespaceSelectors declares ConfigMaps with selectors of
// their own in two namespaces and none in a third, which takes the
// kind's LabelSelector: each namespace caches what its selectors select.
func TestByObjectNamespaceSelectors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		for _, ns := range []string{"a", "b", "c"} {
			if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
				map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}); err != nil {
				t.Fatal(err)
			}
			for _, tier := range []string{"web", "db"} {
				obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
					"metadata": map[string]any{"namespace": ns, "name": tier, "labels": map[string]any{"tier": tier}}}
				if _, err := srv.Create(configMaps, obj); err != nil {
					t.Fatal(err)
				}
			}
		}
		c, err := New(client, Options{ByObject: []ByObject{{
			Object:        &kube.ConfigMap{},
			Namespaces:    []string{"a", "b", "c"},
			LabelSelector: kube.MustParseSelector("tier=db"),
			NamespaceSelectors: map[string]Selectors{
				"a": {Label: kube.MustParseSelector("tier=web")},
				"b": {Field: kube.FieldSelectorFromSet(map[string]string{"metadata.name": "db"})},
			},
		}}})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		var list kube.List[kube.ConfigMap]
		if err := c.List(context.Background(), &list, kube.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		got := names(list.Items, func(cm *kube.ConfigMap) *kube.ObjectMeta { return &cm.ObjectMeta })
		slices.Sort(got)
		if want := []string{"a/web", "b/db", "c/db"}; !slices.Equal(got, want) {
			t.Errorf("cached ConfigMaps = %v, want %v", got, want)
		}
	})
}

// TestByObjectNamespaceSelectorsKeys: selectors of a namespace outside
// the kind's, or of a kind cached in every namespace, are refused.
func TestByObjectNamespaceSelectorsKeys(t *testing.T) {
	_, client := newServer(t, kubetest.Options{})
	for _, opts := range []InformerOptions{
		{Namespaces: []string{"a"}, NamespaceSelectors: map[string]Selectors{"b": {}}},
		{NamespaceSelectors: map[string]Selectors{"b": {}}},
	} {
		if _, err := NewInformer[kube.ConfigMap](client, opts); err == nil || !strings.Contains(err.Error(), `namespace "b"`) {
			t.Errorf("NewInformer(%+v) = %v, want an error naming namespace \"b\"", opts, err)
		}
	}
	c, err := New(client, Options{Namespaces: []string{"a"}, ByObject: []ByObject{
		{Object: &kube.ConfigMap{}, NamespaceSelectors: map[string]Selectors{"b": {}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetInformer(context.Background(), &kube.ConfigMap{}); err == nil || !strings.Contains(err.Error(), `namespace "b"`) {
		t.Errorf("GetInformer of a kind with selectors outside its namespaces = %v, want an error naming namespace \"b\"", err)
	}
}

// TestByObjectSyncPeriod: a kind's own SyncPeriod replaces the cache's.
func TestByObjectSyncPeriod(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		c, err := New(client, Options{Namespaces: []string{"default"}, SyncPeriod: 10 * time.Hour, ByObject: []ByObject{
			{Object: &kube.ConfigMap{}, SyncPeriod: time.Minute},
		}})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		inf, err := c.GetInformer(context.Background(), &kube.ConfigMap{})
		if err != nil {
			t.Fatal(err)
		}
		var resyncs atomic.Int64
		if _, err := inf.AddEventHandler(HandlerFuncs[kube.Object]{UpdateFunc: func(_, _ kube.Object, resync bool) {
			if resync {
				resyncs.Add(1)
			}
		}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		// Each period is drawn within ±10% of a minute: 4 or 5 in 5m.
		if n := resyncs.Load(); n < 4*3 || n > 5*3 {
			t.Errorf("resync updates in 5m = %d, want 12 to 15 (3 objects, a period of 1m)", n)
		}
	})
}

// A kind cached with selectors per namespace: the web tier's ConfigMaps
// in namespace a, every ConfigMap in namespace b.
func ExampleByObject_namespaceSelectors() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, ns := range []string{"a", "b"} {
		if err := client.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			panic(err)
		}
		for _, tier := range []string{"web", "db"} {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: tier, Labels: map[string]string{"tier": tier}}}
			if err := client.Create(ctx, cm); err != nil {
				panic(err)
			}
		}
	}
	c, err := New(client, Options{ByObject: []ByObject{{
		Object:     &kube.ConfigMap{},
		Namespaces: []string{"a", "b"},
		NamespaceSelectors: map[string]Selectors{
			"a": {Label: kube.MustParseSelector("tier=web")},
		},
	}}})
	if err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	if err := c.WaitForSync(ctx); err != nil {
		panic(err)
	}
	var cms kube.List[kube.ConfigMap]
	if err := c.List(ctx, &cms, kube.ListOptions{}); err != nil {
		panic(err)
	}
	for _, cm := range cms.Items {
		fmt.Println(cm.Namespace + "/" + cm.Name)
	}
	cancel()
	<-done
	// Unordered output:
	// a/web
	// b/db
	// b/web
}
