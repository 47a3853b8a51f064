// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// startCache runs c until the test ends.
func startCache(t *testing.T, c *Cache) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Cache.Start = %v, want nil", err)
		}
	})
	if err := c.WaitForSync(ctx); err != nil {
		t.Fatal(err)
	}
}

func names[T any](items []T, meta func(*T) *kube.ObjectMeta) []string {
	var out []string
	for n := range items {
		out = append(out, meta(&items[n]).Key().String())
	}
	slices.Sort(out)
	return out
}

func seedCache(t *testing.T, srv *kubetest.Server) {
	t.Helper()
	for n := range 3 {
		createCM(t, srv, "default", fmt.Sprintf("cm%d", n), map[string]string{"owner": fmt.Sprintf("o%d", n%2)})
		createCM(t, srv, "kube-system", fmt.Sprintf("cm%d", n), nil)
	}
}

func TestCacheGetList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		c, err := New(client, Options{DefaultTransform: DropManagedFields})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := c.IndexField(ctx, &kube.ConfigMap{}, "data.owner", func(o kube.Object) []string {
			return []string{o.(*kube.ConfigMap).Data["owner"]}
		}); err != nil {
			t.Fatal(err)
		}
		var cm kube.ConfigMap
		err = c.Get(ctx, kube.Key{Namespace: "default", Name: "cm0"}, &cm)
		if !errors.Is(err, ErrNotSynced) || !contains(err.Error(), "ConfigMap") {
			t.Errorf("Get before Start = %v, want ErrNotSynced naming ConfigMap", err)
		}
		startCache(t, c)
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "cm0"}, &cm); err != nil {
			t.Fatal(err)
		}
		if cm.Name != "cm0" || cm.Data["owner"] != "o0" || cm.ManagedFields != nil || cm.Kind != "ConfigMap" {
			t.Errorf("Get = %+v, want cm0 with data, kind and no managedFields", cm)
		}
		cm.Data["owner"] = "changed" // a copy: the cache must not see it
		var again kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "cm0"}, &again); err != nil || again.Data["owner"] != "o0" {
			t.Errorf("after changing a copy, Get = %v, %v; want the cached o0", again.Data, err)
		}

		err = c.Get(ctx, kube.Key{Namespace: "default", Name: "nope"}, &cm)
		if !kube.IsNotFound(err) || !contains(err.Error(), `configmaps "nope" not found`) {
			t.Errorf("Get(missing) = %v, want a NotFound like the server's", err)
		}

		tests := []struct {
			name string
			opts kube.ListOptions
			want []string
		}{
			{"all", kube.ListOptions{}, []string{"default/cm0", "default/cm1", "default/cm2", "kube-system/cm0", "kube-system/cm1", "kube-system/cm2"}},
			{"namespace", kube.ListOptions{Namespace: "kube-system"}, []string{"kube-system/cm0", "kube-system/cm1", "kube-system/cm2"}},
			{"index", kube.ListOptions{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"data.owner": "o0"})}, []string{"default/cm0", "default/cm2"}},
			{"index and name", kube.ListOptions{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"data.owner": "o0", "metadata.name": "cm2"})}, []string{"default/cm2"}},
			{"name everywhere", kube.ListOptions{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"metadata.name": "cm1"})}, []string{"default/cm1", "kube-system/cm1"}},
			{"not a namespace", kube.ListOptions{FieldSelector: mustField(t, "metadata.namespace!=default")}, []string{"kube-system/cm0", "kube-system/cm1", "kube-system/cm2"}},
			{"labels", kube.ListOptions{Namespace: "default", LabelSelector: kube.MustParseSelector("app=demo")}, []string{"default/cm0", "default/cm1", "default/cm2"}},
			{"labels none", kube.ListOptions{LabelSelector: kube.MustParseSelector("app=other")}, nil},
		}
		for _, tt := range tests {
			var list kube.List[kube.ConfigMap]
			if err := c.List(ctx, &list, tt.opts); err != nil {
				t.Errorf("List(%s): %v", tt.name, err)
				continue
			}
			if got := names(list.Items, func(c *kube.ConfigMap) *kube.ObjectMeta { return &c.ObjectMeta }); !slices.Equal(got, tt.want) {
				t.Errorf("List(%s) = %v, want %v", tt.name, got, tt.want)
			}
		}
		var list kube.List[kube.ConfigMap]
		if err := c.List(ctx, &list, kube.ListOptions{Limit: 2}); err != nil || len(list.Items) != 2 {
			t.Errorf("List(limit 2) = %d items, %v; want 2", len(list.Items), err)
		}
		for _, bad := range []kube.ListOptions{
			{Continue: "x"},
			{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"data.unindexed": "x"})},
			{FieldSelector: mustField(t, "data.owner!=o0")},
		} {
			if err := c.List(ctx, &list, bad); err == nil {
				t.Errorf("List(%+v) = nil, want an error", bad)
			}
		}

		// The zero-copy view hands out the stored objects themselves.
		view, err := View(ctx, c, &kube.ConfigMap{})
		if err != nil {
			t.Fatal(err)
		}
		a, _ := view.Get(kube.Key{Namespace: "default", Name: "cm1"})
		b, _ := view.Get(kube.Key{Namespace: "default", Name: "cm1"})
		compact := view.inf.store.codec != nil // a compact store decodes each read
		if a == nil || a != b && !compact || a == b && compact {
			t.Errorf("View.Get twice = %p, %p; want the same stored object (a new one each time from a compact store)", a, b)
		}
		updateCM(t, srv, "default", "cm1", map[string]string{"owner": "o9"})
		synctest.Wait()
		if c, _ := view.Get(kube.Key{Namespace: "default", Name: "cm1"}); c == a || c.Data["owner"] != "o9" || a.Data["owner"] != "o1" {
			t.Errorf("after an update the view must hand out a new object and leave the old one as it was")
		}
		if st := c.Stats(); len(st) != 1 || st[0].Objects != 6 || st[0].Kind.Kind != "ConfigMap" {
			t.Errorf("Stats = %+v, want one kind of 6 objects", st)
		}
	})
}

func mustField(t *testing.T, s string) kube.FieldSelector {
	t.Helper()
	f, err := kube.ParseFieldSelector(s)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func TestCacheLazyInformerStartsAndWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		srv.Delay(isList, 10*time.Second) // slow lists: the read must wait for the sync
		c, err := New(client, Options{})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		short, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		var cm kube.ConfigMap
		err = c.Get(short, kube.Key{Namespace: "default", Name: "cm0"}, &cm)
		if !errors.Is(err, ErrNotSynced) || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Get bounded by 5s while the list takes 10s = %v, want ErrNotSynced", err)
		}
		start := time.Now()
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "cm0"}, &cm); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d <= 0 || d > 10*time.Second {
			t.Errorf("Get waited %v for the sync, want (0, 10s]", d)
		}
		if !c.HasSynced() {
			t.Errorf("HasSynced = false after a read")
		}
	})
}

func TestCacheScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		createCM(t, srv, "default", "labelled", nil)
		c, err := New(client, Options{
			Namespaces:                  []string{"default"},
			ReaderFailOnMissingInformer: true,
			ByObject: []ByObject{
				{Object: &kube.ConfigMap{}},
				{Object: &kube.Namespace{}},
				{Object: &kube.Secret{}, Namespaces: []string{"kube-system"}, LabelSelector: kube.MustParseSelector("keep=yes")},
			},
		})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		if err := c.WaitForSync(ctx); err != nil {
			t.Fatal(err)
		}
		var cm kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "kube-system", Name: "cm0"}, &cm); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Get outside the namespaces = %v, want ErrNotAllowed", err)
		}
		var list kube.List[kube.ConfigMap]
		if err := c.List(ctx, &list, kube.ListOptions{Namespace: "kube-system"}); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("List outside the namespaces = %v, want ErrNotAllowed", err)
		}
		if err := c.List(ctx, &list, kube.ListOptions{}); err != nil || len(list.Items) != 4 {
			t.Errorf("List = %d items, %v; want the 4 of default", len(list.Items), err)
		}
		// Cluster-scoped kinds ignore the namespaces.
		var ns kube.Namespace
		if err := c.Get(ctx, kube.Key{Name: "kube-system"}, &ns); err != nil || ns.Status.Phase != "Active" {
			t.Errorf("Get(namespace kube-system) = %+v, %v", ns.Status, err)
		}
		var lease kube.Lease
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "x"}, &lease); !errors.Is(err, ErrNotAllowed) {
			t.Errorf("Get of an undeclared kind = %v, want ErrNotAllowed", err)
		}
		secrets := kube.GroupVersionResource{Version: "v1", Resource: "secrets"}
		for _, s := range []struct{ ns, name, keep string }{{"kube-system", "a", "yes"}, {"kube-system", "b", "no"}, {"default", "c", "yes"}} {
			if _, err := srv.Create(secrets, map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"namespace": s.ns, "name": s.name, "labels": map[string]any{"keep": s.keep}}}); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		var sl kube.List[kube.Secret]
		if err := c.List(ctx, &sl, kube.ListOptions{}); err != nil || len(sl.Items) != 1 || sl.Items[0].Name != "a" {
			t.Errorf("List(secrets) = %v, %v; want only kube-system/a (namespace and selector of the kind)", sl.Items, err)
		}
	})
}

func TestCacheUnstructuredAndMetadata(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		c, err := New(client, Options{})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		ul := kube.List[kube.Unstructured]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
		if err := c.List(ctx, &ul, kube.ListOptions{Namespace: "default"}); err != nil || len(ul.Items) != 3 {
			t.Fatalf("List(unstructured) = %d items, %v", len(ul.Items), err)
		}
		if v, _ := ul.Items[0].Field("data", "owner"); v == nil || ul.Items[0].Kind != "ConfigMap" {
			t.Errorf("unstructured item = %+v, want data and kind", ul.Items[0])
		}
		ml := kube.List[kube.PartialObjectMetadata]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
		if err := c.List(ctx, &ml, kube.ListOptions{}); err != nil || len(ml.Items) != 6 {
			t.Fatalf("List(metadata) = %d items, %v", len(ml.Items), err)
		}
		var m kube.PartialObjectMetadata
		m.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
		if err := c.Get(ctx, kube.Key{Namespace: "kube-system", Name: "cm2"}, &m); err != nil || m.UID == "" {
			t.Errorf("Get(metadata) = %+v, %v", m, err)
		}
		if st := c.Stats(); len(st) != 2 {
			t.Errorf("Stats = %d informers, want 2 (unstructured and metadata-only are apart)", len(st))
		}
		src, err := c.GetInformer(ctx, &m)
		if err != nil || src.Kind().Kind != "ConfigMap" || !src.HasSynced() {
			t.Errorf("GetInformer = %v, %v", src, err)
		}
	})
}

func TestNewCacheErrors(t *testing.T) {
	_, client := newServer(t, kubetest.Options{})
	for _, opts := range []Options{
		{ByObject: []ByObject{{}}},
		{ByObject: []ByObject{{Object: &kube.Unstructured{}}}},
		{ByObject: []ByObject{{Object: &kube.ConfigMap{}}, {Object: &kube.ConfigMap{}}}},
	} {
		if _, err := New(client, opts); err == nil {
			t.Errorf("New(%+v) = nil error, want one", opts)
		}
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Errorf("New(nil client) = nil error, want one")
	}
}

func TestCacheStartFailsOnUnknownDeclaredKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client := newServer(t, kubetest.Options{})
		widget := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"}}
		c, err := New(client, Options{ByObject: []ByObject{{Object: widget}}})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- c.Start(context.Background()) }()
		if err := c.WaitForSync(context.Background()); err == nil || !contains(err.Error(), "Widget") {
			t.Errorf("WaitForSync = %v, want the discovery error naming Widget", err)
		}
		if err := <-done; err == nil {
			t.Errorf("Start = nil, want the discovery error")
		}
		if err := c.Start(context.Background()); err == nil {
			t.Errorf("second Start = nil, want an error")
		}
	})
}

// TestManagedFieldsOutOfTheCacheByDefault: a cache decodes objects without
// metadata.managedFields unless told to keep them, for every kind or for
// one, typed, metadata-only or Unstructured, through lists and watches.
func TestManagedFieldsOutOfTheCacheByDefault(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		ctx := context.Background()
		key := kube.Key{Namespace: "default", Name: "cm0"}
		var fromAPI kube.ConfigMap
		if err := client.Get(ctx, key, &fromAPI); err != nil || len(fromAPI.ManagedFields) == 0 {
			t.Fatalf("Get from the server = %v, %v; want managedFields to drop", fromAPI.ManagedFields, err)
		}
		for i, tc := range []struct {
			name string
			opts Options
			keep bool
		}{
			{"default", Options{}, false},
			{"Options.KeepManagedFields", Options{KeepManagedFields: true}, true},
			{"ByObject.KeepManagedFields", Options{ByObject: []ByObject{{Object: &kube.ConfigMap{}, KeepManagedFields: true}}}, true},
		} {
			c, err := New(client, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			startCache(t, c)
			var cm kube.ConfigMap
			if err := c.Get(ctx, key, &cm); err != nil {
				t.Fatal(err)
			}
			meta := &kube.PartialObjectMetadata{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
			if err := c.Get(ctx, key, meta); err != nil {
				t.Fatal(err)
			}
			u := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
			if err := c.Get(ctx, key, u); err != nil {
				t.Fatal(err)
			}
			// A change after the sync arrives through the watch.
			createCM(t, srv, "default", "late-"+strings.ReplaceAll(strings.ToLower(tc.name), ".", "-"), nil)
			synctest.Wait()
			var all kube.List[kube.ConfigMap]
			if err := c.List(ctx, &all, kube.ListOptions{Namespace: "default"}); err != nil {
				t.Fatal(err)
			}
			got := map[string]json.RawMessage{"typed": cm.ManagedFields, "metadata-only": meta.ManagedFields, "Unstructured": u.ManagedFields}
			for _, it := range all.Items {
				got["listed "+it.Name] = it.ManagedFields
			}
			if len(all.Items) != 4+i { // one more created after each sync
				t.Errorf("%s: listed %d objects, want %d", tc.name, len(all.Items), 4+i)
			}
			for name, mf := range got {
				if got := len(mf) > 0; got != tc.keep {
					t.Errorf("%s: %s object has managedFields %v, want kept %v", tc.name, name, got, tc.keep)
				}
			}
		}
	})
}
