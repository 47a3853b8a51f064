// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/internal/stacks"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// createTiered creates namespace ns if it is new and ConfigMap ns/name
// labelled tier=tier.
func createTiered(t *testing.T, srv *kubetest.Server, ns, name, tier string) {
	t.Helper()
	if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		map[string]any{"metadata": map[string]any{"name": ns}}); err != nil && !kube.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	obj := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name, "labels": map[string]any{"tier": tier}}}
	if _, err := srv.Create(configMaps, obj); err != nil {
		t.Fatalf("create %s/%s: %v", ns, name, err)
	}
}

// serverKeys returns key → resourceVersion of the server's ConfigMaps at
// keys ("ns/name").
func serverKeys(t *testing.T, srv *kubetest.Server, keys ...string) map[string]string {
	t.Helper()
	all := serverState(t, srv, "")
	out := map[string]string{}
	for _, k := range keys {
		v, ok := all[k]
		if !ok {
			t.Fatalf("no ConfigMap %s on the server", k)
		}
		out[k] = v
	}
	return out
}

// TestSetScope changes a running informer's namespaces and selectors: a
// namespace whose selectors change is read again and its handlers hear
// only what differs (an object that no longer matches: OnDelete(obj,
// true); a new match: OnAdd(obj, true); one kept: nothing); a namespace
// kept with the same selectors, even written again, is not read; a
// namespace added is read with its selectors; the watches follow the new
// selectors; and SetNamespaces after keeps them.
func TestSetScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		for _, ns := range []string{"a", "b", "c", "d"} {
			createTiered(t, srv, ns, "web", "web")
			createTiered(t, srv, ns, "db", "db")
		}
		web, db := kube.MustParseSelector("tier=web"), kube.MustParseSelector("tier=db")
		inf, rec := startSynced(t, client, InformerOptions{Namespaces: []string{"a", "b", "d"},
			NamespaceSelectors: map[string]Selectors{"a": {Label: web}}})
		if got, want := storeState(inf), serverKeys(t, srv, "a/web", "b/web", "b/db", "d/web", "d/db"); !maps.Equal(got, want) {
			t.Fatalf("store before = %v, want %v", sorted(got), sorted(want))
		}
		rec.take()
		initialAdds := rec.initialAdds
		spy := spyReads(srv)
		ctx := context.Background()

		// a: tier=web -> tier (a/db comes); b: all -> tier=db (b/web
		// goes); c: added with tier=web; d: its selectors written again
		// as they were.
		if err := inf.SetScope(ctx, []string{"a", "b", "c", "d"}, map[string]Selectors{
			"a": {Label: kube.MustParseSelector("tier")},
			"b": {Label: db},
			"c": {Label: web},
			"d": {},
		}); err != nil {
			t.Fatalf("SetScope = %v", err)
		}
		synctest.Wait()
		want := serverKeys(t, srv, "a/web", "a/db", "b/db", "c/web", "d/web", "d/db")
		if got := storeState(inf); !maps.Equal(got, want) {
			t.Errorf("store after SetScope = %v, want %v", sorted(got), sorted(want))
		}
		if got := rec.snapshot(); !maps.Equal(got, want) {
			t.Errorf("handler's view after SetScope = %v, want %v", sorted(got), sorted(want))
		}
		wantLog := []string{"add a/db@" + want["a/db"], "add c/web@" + want["c/web"], "delete b/web unknown=true"}
		if got := rec.take(); !slices.Equal(sortedCopy(got), wantLog) {
			t.Errorf("handler events after SetScope = %q, want %q (nothing for a/web, b/db, d)", got, wantLog)
		}
		if got := rec.initialAdds - initialAdds; got != 2 {
			t.Errorf("adds marked isInInitialList = %d, want 2", got)
		}
		if got := spy.take(); got["a"] == 0 || got["b"] == 0 || got["c"] == 0 || got["d"] != 0 {
			t.Errorf("reads after SetScope = %v, want a, b and c (selectors changed or added), not d", got)
		}
		if got := stacks.Count("kubetest.(*Server).serveWatch"); got != 4 {
			t.Errorf("watches open on the server = %d, want 4", got)
		}

		// The watches read with the new selectors.
		createTiered(t, srv, "b", "web2", "web")
		createTiered(t, srv, "b", "db2", "db")
		createTiered(t, srv, "c", "db2", "db")
		synctest.Wait()
		if got, want := rec.take(), []string{"add b/db2@" + rv(t, srv, "b", "db2")}; !slices.Equal(got, want) {
			t.Errorf("handler events of creations = %q, want %q", got, want)
		}

		// SetNamespaces keeps the selectors of the namespaces kept.
		if err := inf.SetNamespaces(ctx, []string{"a", "b"}); err != nil {
			t.Fatalf("SetNamespaces(a, b) = %v", err)
		}
		synctest.Wait()
		if got := rec.take(); len(got) != 0 {
			t.Errorf("handler events after SetNamespaces(a, b) = %q, want none", got)
		}
		if got := spy.take(); len(got) != 0 {
			t.Errorf("reads after SetNamespaces(a, b) = %v, want none", got)
		}
		if got, want := storeState(inf), serverKeys(t, srv, "a/web", "a/db", "b/db", "b/db2"); !maps.Equal(got, want) {
			t.Errorf("store after SetNamespaces(a, b) = %v, want %v", sorted(got), sorted(want))
		}
		if got := stacks.Count("cache.(*reflector).run"); got != 2 {
			t.Errorf("reflectors running = %d, want 2", got)
		}
	})
}

// TestSetScopeBeforeStart: the scope set before Start is what Start
// reads, and a namespace removed by SetNamespaces loses its selectors.
func TestSetScopeBeforeStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		for _, ns := range []string{"a", "b"} {
			createTiered(t, srv, ns, "web", "web")
			createTiered(t, srv, ns, "db", "db")
		}
		inf := newCMInformer(t, client, InformerOptions{Namespaces: []string{"a"}})
		ctx := context.Background()
		if err := inf.SetScope(ctx, []string{"a", "b"}, map[string]Selectors{"b": {Label: kube.MustParseSelector("tier=db")}}); err != nil {
			t.Fatalf("SetScope before Start = %v", err)
		}
		startInformer(t, inf)
		waitSynced(t, inf)
		if got, want := storeState(inf), serverKeys(t, srv, "a/web", "a/db", "b/db"); !maps.Equal(got, want) {
			t.Errorf("store = %v, want %v", sorted(got), sorted(want))
		}
		if err := inf.SetNamespaces(ctx, []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if err := inf.SetNamespaces(ctx, []string{"a", "b"}); err != nil {
			t.Fatal(err)
		}
		if got, want := storeState(inf), serverKeys(t, srv, "a/web", "a/db", "b/web", "b/db"); !maps.Equal(got, want) {
			t.Errorf("store after b removed and added back = %v, want %v", sorted(got), sorted(want))
		}
	})
}

// TestSetScopeRefused: selectors of a namespace outside the scope, and a
// sharded informer's scope, are refused.
func TestSetScopeRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client := newServer(t, kubetest.Options{})
		ctx := context.Background()
		inf := newCMInformer(t, client, InformerOptions{})
		for _, ns := range [][]string{{"a"}, nil} {
			if err := inf.SetScope(ctx, ns, map[string]Selectors{"b": {}}); err == nil || !strings.Contains(err.Error(), `namespace "b"`) {
				t.Errorf("SetScope(%q, selectors of b) = %v, want an error naming namespace \"b\"", ns, err)
			}
		}
		sharded := newCMInformer(t, client, InformerOptions{Sharded: true, Namespaces: []string{"a"}})
		if err := sharded.SetScope(ctx, []string{"a"}, map[string]Selectors{"a": {}}); err == nil || !strings.Contains(err.Error(), "sharded") {
			t.Errorf("SetScope of a sharded informer = %v, want an error saying it is sharded", err)
		}
		c, err := New(client, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.SetScope(ctx, &kube.ConfigMap{}, []string{"a"}, map[string]Selectors{"b": {}}); err == nil || !strings.Contains(err.Error(), `namespace "b"`) {
			t.Errorf("Cache.SetScope(a, selectors of b) = %v, want an error naming namespace \"b\"", err)
		}
	})
}

// TestCacheSetScope: the cache's scope of a kind, selectors included,
// changes for its informers and for those made later, and SetNamespaces
// keeps the selectors of the namespaces kept and drops the others'.
func TestCacheSetScope(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		for _, ns := range []string{"a", "b", "c"} {
			createTiered(t, srv, ns, "web", "web")
			createTiered(t, srv, ns, "db", "db")
		}
		web, db := kube.MustParseSelector("tier=web"), kube.MustParseSelector("tier=db")
		c, err := New(client, Options{ByObject: []ByObject{{Object: &kube.ConfigMap{}, Namespaces: []string{"a", "b"},
			NamespaceSelectors: map[string]Selectors{"a": {Label: web}}}}})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		list := func() []string {
			t.Helper()
			var l kube.List[kube.ConfigMap]
			if err := c.List(ctx, &l, kube.ListOptions{}); err != nil {
				t.Fatalf("List = %v", err)
			}
			keys := names(l.Items, func(cm *kube.ConfigMap) *kube.ObjectMeta { return &cm.ObjectMeta })
			slices.Sort(keys)
			return keys
		}
		if got, want := list(), []string{"a/web", "b/db", "b/web"}; !slices.Equal(got, want) {
			t.Fatalf("ConfigMaps = %q, want %q", got, want)
		}

		if err := c.SetScope(ctx, &kube.ConfigMap{}, []string{"a", "c"}, map[string]Selectors{"a": {Label: db}, "c": {Label: web}}); err != nil {
			t.Fatalf("SetScope = %v", err)
		}
		if got, want := list(), []string{"a/db", "c/web"}; !slices.Equal(got, want) {
			t.Errorf("ConfigMaps after SetScope = %q, want %q", got, want)
		}
		// An informer made now (metadata only) starts with the new scope.
		ml := kube.List[kube.PartialObjectMetadata]{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
		if err := c.List(ctx, &ml, kube.ListOptions{}); err != nil {
			t.Fatalf("metadata List = %v", err)
		}
		got := names(ml.Items, func(m *kube.PartialObjectMetadata) *kube.ObjectMeta { return &m.ObjectMeta })
		slices.Sort(got)
		if want := []string{"a/db", "c/web"}; !slices.Equal(got, want) {
			t.Errorf("metadata ConfigMaps after SetScope = %q, want %q", got, want)
		}

		// c keeps its selectors, a's are dropped with a: added back, it
		// is read whole.
		if err := c.SetNamespaces(ctx, &kube.ConfigMap{}, []string{"c"}); err != nil {
			t.Fatalf("SetNamespaces(c) = %v", err)
		}
		if err := c.SetNamespaces(ctx, &kube.ConfigMap{}, []string{"a", "c"}); err != nil {
			t.Fatalf("SetNamespaces(a, c) = %v", err)
		}
		if got, want := list(), []string{"a/db", "a/web", "c/web"}; !slices.Equal(got, want) {
			t.Errorf("ConfigMaps after SetNamespaces = %q, want %q", got, want)
		}
		var notAllowed *NotAllowedError
		if err := c.Get(ctx, kube.Key{Namespace: "b", Name: "db"}, &kube.ConfigMap{}); !errors.As(err, &notAllowed) {
			t.Errorf("Get b/db = %v, want a NotAllowedError", err)
		}
	})
}

// TestCacheSetNamespacesDeclaredSelectors: an informer made after
// SetNamespaces removed a namespace the kind declared selectors for is
// made (the selectors of the namespace removed are dropped with it).
func TestCacheSetNamespacesDeclaredSelectors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		createTiered(t, srv, "b", "web", "web")
		c, err := New(client, Options{ByObject: []ByObject{{Object: &kube.ConfigMap{}, Namespaces: []string{"a", "b"},
			NamespaceSelectors: map[string]Selectors{"a": {Label: kube.MustParseSelector("tier=web")}}}}})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		if err := c.SetNamespaces(ctx, &kube.ConfigMap{}, []string{"b"}); err != nil {
			t.Fatalf("SetNamespaces(b) = %v", err)
		}
		meta := &kube.PartialObjectMetadata{}
		meta.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
		if err := c.Get(ctx, kube.Key{Namespace: "b", Name: "web"}, meta); err != nil {
			t.Errorf("metadata Get b/web after SetNamespaces(b) = %v", err)
		}
	})
}

// A running cache of ConfigMaps moves namespace a from the web tier to
// the db tier: a is read again, its handlers hear what left and what
// came, and namespace b, kept as it was, is not read again.
func ExampleCache_SetScope() {
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
	web, db := kube.MustParseSelector("tier=web"), kube.MustParseSelector("tier=db")
	c, err := New(client, Options{ByObject: []ByObject{{Object: &kube.ConfigMap{}, Namespaces: []string{"a", "b"},
		NamespaceSelectors: map[string]Selectors{"a": {Label: web}}}}})
	if err != nil {
		panic(err)
	}
	source, err := c.GetInformer(ctx, &kube.ConfigMap{})
	if err != nil {
		panic(err)
	}
	events := make(chan string, 10)
	if _, err := source.AddEventHandler(HandlerFuncs[kube.Object]{
		AddFunc: func(obj kube.Object, initial bool) {
			events <- fmt.Sprintf("add %s (initial list: %v)", obj.GetObjectMeta().Key(), initial)
		},
		DeleteFunc: func(obj kube.Object, unknown bool) {
			events <- fmt.Sprintf("delete %s (final state unknown: %v)", obj.GetObjectMeta().Key(), unknown)
		},
	}); err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	if err := c.WaitForSync(ctx); err != nil {
		panic(err)
	}
	for range 3 { // a/web, b/db, b/web
		<-events
	}

	// b keeps its selectors (none); a's change.
	if err := c.SetScope(ctx, &kube.ConfigMap{}, []string{"a", "b"}, map[string]Selectors{"a": {Label: db}}); err != nil {
		panic(err)
	}
	fmt.Println(<-events)
	fmt.Println(<-events)
	var cms kube.List[kube.ConfigMap]
	if err := c.List(ctx, &cms, kube.ListOptions{Namespace: "a"}); err != nil {
		panic(err)
	}
	for _, cm := range cms.Items {
		fmt.Println("cached:", cm.Namespace+"/"+cm.Name)
	}
	cancel()
	<-done
	// Output:
	// add a/db (initial list: true)
	// delete a/web (final state unknown: true)
	// cached: a/db
}
