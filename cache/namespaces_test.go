// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/internal/stacks"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// reads records the ConfigMap lists and watches a server gets, by
// namespace ("" for all).
type reads struct {
	mu sync.Mutex
	by map[string]int
}

func spyReads(srv *kubetest.Server) *reads {
	r := &reads{by: map[string]int{}}
	srv.Delay(func(ri kubetest.RequestInfo) bool {
		if ri.Resource == "configmaps" && (ri.Verb == "list" || ri.Verb == "watch") {
			r.mu.Lock()
			r.by[ri.Namespace]++
			r.mu.Unlock()
		}
		return false
	}, 0)
	return r
}

func (r *reads) take() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.by
	r.by = map[string]int{}
	return out
}

// forget drops the recorder's objects of namespace ns, as a handler
// does when its namespace leaves the informer's scope.
func (r *recorder) forget(ns string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	maps.DeleteFunc(r.state, func(k, _ string) bool { return strings.HasPrefix(k, ns+"/") })
}

// take returns the recorder's log since it was last taken.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.log
	r.log = nil
	return out
}

// TestSetNamespaces changes a running informer's namespaces from a, b to
// b, c, then to all, then to c: a namespace added is read (its objects
// are OnAdd(obj, true)), a namespace removed is no longer watched and
// its objects leave the store without a delete, a namespace kept is
// neither read again nor notified, and the store is the server's state
// in the new scope.
func TestSetNamespaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedABC(t, srv)
		inf, rec := startRecorded(t, srv, client, InformerOptions{Namespaces: []string{"a", "b"}})
		rec.take()
		spy := spyReads(srv)
		ctx := context.Background()

		if err := inf.SetNamespaces(ctx, []string{"b", "c"}); err != nil {
			t.Fatalf("SetNamespaces(b, c) = %v", err)
		}
		synctest.Wait()
		if got, want := rec.take(), []string{"add c/x@" + rv(t, srv, "c", "x")}; !slices.Equal(got, want) {
			t.Errorf("handler events after a, b -> b, c = %q, want %q (no delete for a, nothing for b)", got, want)
		}
		if got := spy.take(); got["a"] != 0 || got["b"] != 0 || got["c"] == 0 {
			t.Errorf("reads after a, b -> b, c = %v, want c only: b is kept, a removed", got)
		}
		checkStore(t, srv, inf, "b", "c")
		if got := stacks.Count("cache.(*reflector).run"); got != 2 {
			t.Errorf("reflectors running = %d, want 2", got)
		}
		if got := stacks.Count("kubetest.(*Server).serveWatch"); got != 2 {
			t.Errorf("watches open on the server = %d, want 2", got)
		}
		var notAllowed *NotAllowedError
		if err := inf.list(kube.ListOptions{Namespace: "a"}, func(kube.Object) {}); !errors.As(err, &notAllowed) {
			t.Errorf("list of namespace a after its removal = %v, want a NotAllowedError", err)
		}

		// Changes: in a, not seen; in b and c, seen.
		updateCM(t, srv, "a", "x", map[string]string{"k": "1"})
		updateCM(t, srv, "b", "x", map[string]string{"k": "1"})
		createCM(t, srv, "c", "y", nil)
		synctest.Wait()
		// Namespaces are watched apart: their events interleave as they come.
		if got, want := rec.take(), []string{"add c/y@" + rv(t, srv, "c", "y"), "update b/x@" + rv(t, srv, "b", "x")}; !slices.Equal(sortedCopy(got), want) {
			t.Errorf("handler events of changes = %q, want %q", got, want)
		}
		checkStore(t, srv, inf, "b", "c")

		// To all: one read of all namespaces; a's objects come as adds
		// (the handler dropped a's share itself, as told nothing), the
		// objects held already (b, c) bring nothing.
		rec.forget("a")
		if err := inf.SetNamespaces(ctx, nil); err != nil {
			t.Fatalf("SetNamespaces(all) = %v", err)
		}
		synctest.Wait()
		if got, want := rec.take(), []string{"add a/x@" + rv(t, srv, "a", "x")}; !slices.Equal(got, want) {
			t.Errorf("handler events after b, c -> all = %q, want %q", got, want)
		}
		if got := spy.take(); got[""] == 0 || len(got) != 1 {
			t.Errorf("reads after b, c -> all = %v, want all namespaces only", got)
		}
		checkStore(t, srv, inf)

		// To c alone: a and b leave silently; c is read again (a change
		// from all costs a read of each namespace) and notifies nothing.
		if err := inf.SetNamespaces(ctx, []string{"c"}); err != nil {
			t.Fatalf("SetNamespaces(c) = %v", err)
		}
		synctest.Wait()
		if got := rec.take(); len(got) != 0 {
			t.Errorf("handler events after all -> c = %q, want none", got)
		}
		checkStore(t, srv, inf, "c")
		if got := stacks.Count("kubetest.(*Server).serveWatch"); got != 1 {
			t.Errorf("watches open on the server = %d, want 1", got)
		}
		if st := inf.stats(); !slices.Equal(st.Namespaces, []string{"c"}) {
			t.Errorf("Stats.Namespaces = %q, want [c]", st.Namespaces)
		}

		// A handler added now sees c's objects alone.
		late := newRecorder(t)
		if _, err := inf.AddEventHandler(late); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got, want := late.snapshot(), serverState(t, srv, "c"); !maps.Equal(got, want) {
			t.Errorf("a late handler's view = %v, want %v", got, want)
		}
	})
}

// seedABC creates namespaces a, b and c with a ConfigMap x in each.
func seedABC(t *testing.T, srv *kubetest.Server) {
	t.Helper()
	for _, ns := range []string{"a", "b", "c"} {
		if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
			map[string]any{"metadata": map[string]any{"name": ns}}); err != nil {
			t.Fatal(err)
		}
		createCM(t, srv, ns, "x", nil)
	}
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// rv returns the resourceVersion of the server's ConfigMap ns/name.
func rv(t *testing.T, srv *kubetest.Server, ns, name string) string {
	t.Helper()
	return serverState(t, srv, ns)[ns+"/"+name]
}

// checkStore fails unless the informer stores the server's ConfigMaps of
// namespaces (all when none).
func checkStore(t *testing.T, srv *kubetest.Server, inf *informer, namespaces ...string) {
	t.Helper()
	want := map[string]string{}
	if len(namespaces) == 0 {
		want = serverState(t, srv, "")
	}
	for _, ns := range namespaces {
		maps.Copy(want, serverState(t, srv, ns))
	}
	if got := storeState(inf); !maps.Equal(got, want) {
		t.Errorf("store = %v\nwant %v", sorted(got), sorted(want))
	}
}

// TestSetNamespacesBeforeSync: a namespace removed before its first
// state was stored does not hold the informer's sync back, and a change
// before Start is what Start reads.
func TestSetNamespacesBeforeSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedABC(t, srv)
		inf := newCMInformer(t, client, InformerOptions{Namespaces: []string{"a"}})
		ctx := context.Background()
		if err := inf.SetNamespaces(ctx, []string{"a", "b"}); err != nil {
			t.Fatalf("SetNamespaces before Start = %v", err)
		}
		// b's reads hang, so b never stores its first state.
		undo := srv.Delay(func(ri kubetest.RequestInfo) bool { return ri.Namespace == "b" }, 1<<40)
		defer undo()
		startInformer(t, inf)
		synctest.Wait()
		if inf.HasSynced() {
			t.Fatal("synced while b's first read hangs")
		}
		if err := inf.SetNamespaces(ctx, []string{"a", "c"}); err != nil {
			t.Fatalf("SetNamespaces(a, c) = %v", err)
		}
		waitSynced(t, inf)
		checkStore(t, srv, inf, "a", "c")
	})
}

// TestSetNamespacesRefused: a sharded informer's namespaces are fixed, a
// stopped informer's cannot change, and namespaces must be named once.
func TestSetNamespacesRefused(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client := newServer(t, kubetest.Options{})
		ctx := context.Background()
		sharded := newCMInformer(t, client, InformerOptions{Sharded: true, Namespaces: []string{"a"}})
		if err := sharded.SetNamespaces(ctx, []string{"b"}); err == nil || !strings.Contains(err.Error(), "sharded") {
			t.Errorf("SetNamespaces of a sharded informer = %v, want an error saying it is sharded", err)
		}
		inf := newCMInformer(t, client, InformerOptions{})
		for _, bad := range [][]string{{"a", "a"}, {""}} {
			if err := inf.SetNamespaces(ctx, bad); err == nil || !strings.Contains(err.Error(), "ConfigMap") {
				t.Errorf("SetNamespaces(%q) = %v, want an error naming the kind", bad, err)
			}
		}
		stop := startInformer(t, inf)
		stop()
		if err := inf.SetNamespaces(ctx, []string{"a"}); !errors.Is(err, ErrStopped) {
			t.Errorf("SetNamespaces after Start returned = %v, want ErrStopped", err)
		}
	})
}

// TestCacheSetNamespaces: the cache's scope of a kind changes for its
// informers and for those made later; reads follow it.
func TestCacheSetNamespaces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedABC(t, srv)
		c, err := New(client, Options{Namespaces: []string{"a"}})
		if err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		ctx := context.Background()
		var cm kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "a", Name: "x"}, &cm); err != nil {
			t.Fatal(err)
		}
		if err := c.SetNamespaces(ctx, &kube.ConfigMap{}, []string{"b", "c"}); err != nil {
			t.Fatalf("SetNamespaces = %v", err)
		}
		if err := c.Get(ctx, kube.Key{Namespace: "b", Name: "x"}, &cm); err != nil {
			t.Errorf("Get b/x after SetNamespaces(b, c) = %v", err)
		}
		var notAllowed *NotAllowedError
		if err := c.Get(ctx, kube.Key{Namespace: "a", Name: "x"}, &cm); !errors.As(err, &notAllowed) {
			t.Errorf("Get a/x after SetNamespaces(b, c) = %v, want a NotAllowedError", err)
		}
		// An informer made now (metadata only) starts with b, c.
		meta := &kube.PartialObjectMetadata{}
		meta.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"})
		if err := c.Get(ctx, kube.Key{Namespace: "c", Name: "x"}, meta); err != nil {
			t.Errorf("metadata Get c/x = %v", err)
		}
		if err := c.Get(ctx, kube.Key{Namespace: "a", Name: "x"}, meta); !errors.As(err, &notAllowed) {
			t.Errorf("metadata Get a/x = %v, want a NotAllowedError", err)
		}
		if err := c.SetNamespaces(ctx, &kube.Namespace{}, []string{"a"}); err == nil || !strings.Contains(err.Error(), "cluster-scoped") {
			t.Errorf("SetNamespaces of Namespaces = %v, want an error saying the kind is cluster-scoped", err)
		}
	})
}
