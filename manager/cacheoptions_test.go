// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestCacheDefaultsFromOptions: the cache's defaults set on the manager
// reach its informers: pages of PageSize lists instead of a WatchList,
// objects stored compact (a new object for every read), and reads of an
// undeclared kind refused instead of starting an informer.
func TestCacheDefaultsFromOptions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		for n := range 3 {
			if _, err := srv.Create(configMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"namespace": "default", "name": fmt.Sprintf("cm%d", n)}}); err != nil {
				t.Fatal(err)
			}
		}
		m := newTestManager(t, srv, func(o *Options) {
			o.Cache = cache.Options{Namespaces: []string{"default"}, ByObject: []cache.ByObject{{Object: &kube.ConfigMap{}}},
				Compact: true, PageSize: 1, ReaderFailOnMissingInformer: true}
		})
		start(t, m)
		<-m.Elected()
		ctx := context.Background()
		for _, st := range m.Cache().Stats() {
			if st.Kind.Kind == "ConfigMap" && st.ListRequests < 3 {
				t.Errorf("ConfigMap list pages = %d, want 3 or more (PageSize 1, no WatchList)", st.ListRequests)
			}
		}
		view, err := cache.View(ctx, m.Cache(), &kube.ConfigMap{})
		if err != nil {
			t.Fatal(err)
		}
		key := kube.Key{Namespace: "default", Name: "cm0"}
		a, _ := view.Get(key)
		b, _ := view.Get(key)
		if a == nil || a == b {
			t.Errorf("two reads of a compact store = %p, %p, want two objects", a, b)
		}
		var s kube.Secret
		if err := m.Client().Get(ctx, key, &s); !errors.Is(err, cache.ErrNotAllowed) {
			t.Errorf("Get of an undeclared kind = %v, want ErrNotAllowed", err)
		}
	})
}

// The cache's defaults and a kind's own settings, from the manager's
// options: every kind stored compact and read in pages of 500, only
// declared kinds served; Secrets resynced every
// five minutes, all those of namespace db and those labelled app=web
// in namespace web.
func ExampleOptions_cache() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	mgr, err := New(srv.Config(), Options{
		MetricsBindAddress: "0",
		Cache: cache.Options{
			Compact:                     true,
			PageSize:                    500,
			ReaderFailOnMissingInformer: true,
			ByObject: []cache.ByObject{
				{Object: &kube.ConfigMap{}},
				{Object: &kube.Secret{}, SyncPeriod: 5 * time.Minute, Namespaces: []string{"web", "db"}, NamespaceSelectors: map[string]cache.Selectors{
					"web": {Label: kube.MustParseSelector("app=web")},
				}},
			},
		},
	})
	if err != nil {
		panic(err)
	}
	err = mgr.Client().Get(context.Background(), kube.Key{Namespace: "default", Name: "x"}, &kube.Lease{})
	fmt.Println(errors.Is(err, cache.ErrNotAllowed))
	// Output: true
}
