// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// readSpy records the ConfigMap reads (lists and watches) that go
// through it, by namespace.
type readSpy struct {
	next http.RoundTripper

	mu sync.Mutex
	by map[string]int
}

func (s *readSpy) RoundTrip(r *http.Request) (*http.Response, error) {
	// /api/v1/namespaces/NS/configmaps, with or without ?watch=
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method == http.MethodGet && len(parts) == 5 && parts[2] == "namespaces" && parts[4] == "configmaps" {
		s.mu.Lock()
		s.by[parts[3]]++
		s.mu.Unlock()
	}
	return s.next.RoundTrip(r)
}

// take returns the reads since the last take.
func (s *readSpy) take() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.by
	s.by = map[string]int{}
	return out
}

// testScope changes a running informer's namespaces from a, b to b, c:
// c is read, b is not read again and its handler hears nothing of it, a
// is no longer watched (its watch closed when SetNamespaces returns) and
// its objects leave the store without a delete; changes in b and c reach
// the store and the handler, changes in a do not. Then c's selectors
// change (SetScope): c is read again, b is not, and the object of c that
// no longer matches leaves the store and the handler's view. Then a cache's informer
// is refused removal while a handler is on it and removed once it is not,
// its watch closed; and a manager's controller is removed while its
// reconcile is in flight, the call waiting for it, the other controller
// going on.
func testScope(t *testing.T, f *fixture) {
	a, b, c := f.ns, f.ns+"-b", f.ns+"-c"
	for _, ns := range []string{b, c} {
		obj := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}
		f.mustCreate(t, obj)
		t.Cleanup(func() { _ = f.c.Delete(context.Background(), obj) })
	}
	for _, ns := range []string{a, b, c} {
		f.mustCreate(t, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "x"}})
	}
	var spy *readSpy
	var cut *cutter
	client := f.wrappedClient(t, func(next http.RoundTripper) http.RoundTripper {
		spy = &readSpy{next: next, by: map[string]int{}}
		cut = &cutter{next: spy, bodies: map[*cutBody]bool{}}
		return cut
	})
	inf, v := f.startKeyed(t, client, cache.InformerOptions{Namespaces: []string{a, b}})
	f.scopeEqual(t, inf, v, nil, a, b)
	// Synced once listed: the watches open right after.
	f.eventually(t, "the watches of a and b open", func() error {
		if got := cut.open(); got != 2 {
			return fmt.Errorf("responses open = %d, want 2 (the watches of a and b)", got)
		}
		return nil
	})
	spy.take()

	if err := inf.SetNamespaces(f.ctx, []string{b, c}); err != nil {
		t.Fatalf("SetNamespaces(b, c) = %v", err)
	}
	if got := spy.take(); got[a] != 0 || got[b] != 0 || got[c] == 0 {
		t.Errorf("reads after a, b -> b, c = %v, want c's alone", got)
	}
	// c is synced once listed; its watch opens right after.
	f.eventually(t, "the watches of b and c alone open", func() error {
		if got := cut.open(); got != 2 {
			return fmt.Errorf("responses open after a, b -> b, c = %d, want 2 (the watches of b and c)", got)
		}
		return nil
	})
	// The handler keeps a's object: it was told nothing of a.
	f.scopeEqual(t, inf, v, []string{a + "/x"}, b, c)
	for _, ns := range []string{a, b, c} {
		f.mustCreate(t, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "y"}})
	}
	f.scopeEqual(t, inf, v, []string{a + "/x"}, b, c)

	// c's selectors change (to its y alone): c is read again, b is not;
	// c/x leaves the store and the handler's view (OnDelete), c/y stays.
	spy.take()
	if err := inf.SetScope(f.ctx, []string{b, c}, map[string]cache.Selectors{
		c: {Field: kube.FieldSelectorFromSet(map[string]string{"metadata.name": "y"})},
	}); err != nil {
		t.Fatalf("SetScope(b, c with a selector) = %v", err)
	}
	if got := spy.take(); got[b] != 0 || got[c] == 0 {
		t.Errorf("reads after c's selectors changed = %v, want c's alone", got)
	}
	f.keysEqual(t, inf, v, []string{a + "/x"}, b+"/x", b+"/y", c+"/y")
	f.eventually(t, "the watches of b and c alone open", func() error {
		if got := cut.open(); got != 2 {
			return fmt.Errorf("responses open after c's selectors changed = %d, want 2 (the watches of b and c)", got)
		}
		return nil
	})

	// A cache's informer: refused while a handler is on it, then removed.
	cc, err := cache.New(client, cache.Options{Namespaces: []string{b}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.run(t, "cache", cc.Start)()
	oi, err := cc.GetInformer(f.ctx, &kube.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	reg, err := oi.AddEventHandler(cache.HandlerFuncs[kube.Object]{})
	if err != nil {
		t.Fatal(err)
	}
	if err := oi.WaitForSync(f.ctx); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, "the cache's informer's watch open", func() error {
		if got := cut.open(); got != 3 {
			return fmt.Errorf("responses open with the cache's informer = %d, want 3", got)
		}
		return nil
	})
	if err := cc.RemoveInformer(f.ctx, &kube.ConfigMap{}); !errors.Is(err, cache.ErrInUse) {
		t.Errorf("RemoveInformer with a handler = %v, want ErrInUse", err)
	}
	if err := oi.RemoveEventHandler(reg); err != nil {
		t.Fatal(err)
	}
	if err := cc.RemoveInformer(f.ctx, &kube.ConfigMap{}); err != nil {
		t.Fatalf("RemoveInformer = %v", err)
	}
	if got := cut.open(); got != 2 {
		t.Errorf("responses open after RemoveInformer = %d, want 2", got)
	}

	f.removeController(t, a)
}

// removeController runs a manager with two controllers of ConfigMaps in
// ns, and removes one while its reconcile of ns/slow is in flight.
func (f *fixture) removeController(t *testing.T, ns string) {
	m, err := manager.New(f.env.Config, manager.Options{MetricsBindAddress: "0", Cache: cache.Options{Namespaces: []string{ns}}})
	if err != nil {
		t.Fatal(err)
	}
	inFlight, release := make(chan struct{}), make(chan struct{})
	var mu sync.Mutex
	var log []string
	for _, name := range []string{"gone", "stays"} {
		err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named(name).Complete(controller.ReconcilerFunc(
			func(ctx context.Context, req controller.Request) (controller.Result, error) {
				mu.Lock()
				log = append(log, name+" "+req.Key.Name)
				mu.Unlock()
				if name == "gone" && req.Key.Name == "slow" {
					close(inFlight)
					<-release
				}
				return controller.Result{}, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
	}
	defer f.run(t, "manager", m.Start)()
	f.mustCreate(t, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "slow"}})
	select {
	case <-inFlight:
	case <-f.ctx.Done():
		t.Fatal("the reconcile of slow never started")
	}
	// The controllers start on their own: the one that stays has its
	// handler registered once it has reconciled slow.
	f.eventually(t, "the controller that stays reconciles slow", func() error {
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(log, "stays slow") {
			return fmt.Errorf("reconciled %q", log)
		}
		return nil
	})
	removed := make(chan error, 1)
	go func() { removed <- m.RemoveController(f.ctx, "gone") }()
	select {
	case err := <-removed:
		t.Fatalf("RemoveController returned %v with its reconcile in flight", err)
	default:
	}
	close(release)
	if err := <-removed; err != nil {
		t.Fatalf("RemoveController = %v", err)
	}
	for _, s := range m.Cache().Stats() {
		if s.Kind.Kind == "ConfigMap" && s.Handlers != 1 {
			t.Errorf("ConfigMap handlers after RemoveController = %d, want 1", s.Handlers)
		}
	}
	f.mustCreate(t, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "later"}})
	f.eventually(t, "the controller that stays reconciles later", func() error {
		mu.Lock()
		defer mu.Unlock()
		for _, l := range log {
			if l == "gone later" {
				t.Fatal("the removed controller reconciled later")
			}
			if l == "stays later" {
				return nil
			}
		}
		return fmt.Errorf("reconciled %q", log)
	})
}

// startKeyed is startViewed with a view keyed by namespace and name.
func (f *fixture) startKeyed(t *testing.T, client *kube.Client, opts cache.InformerOptions) (*cache.Informer[kube.ConfigMap], *view) {
	t.Helper()
	return f.startView(t, client, opts, func(cm *kube.ConfigMap) string { return cm.Key().String() })
}

// scopeEqual waits until the informer stores exactly the server's
// ConfigMaps of namespaces, and the handler's view holds them and the
// keys of extra (at any version).
func (f *fixture) scopeEqual(t *testing.T, inf *cache.Informer[kube.ConfigMap], v *view, extra []string, namespaces ...string) {
	t.Helper()
	f.eventually(t, "informer equals the server in its namespaces", func() error {
		want := map[string]string{}
		for _, ns := range namespaces {
			var list kube.List[kube.ConfigMap]
			if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: ns}); err != nil {
				return err
			}
			for i := range list.Items {
				want[list.Items[i].Key().String()] = list.Items[i].ResourceVersion
			}
		}
		items, err := inf.List(kube.ListOptions{})
		if err != nil {
			return err
		}
		stored := map[string]string{}
		for _, cm := range items {
			stored[cm.Key().String()] = cm.ResourceVersion
		}
		if !maps.Equal(stored, want) {
			return fmt.Errorf("store %v, server %v", stored, want)
		}
		got := v.snapshot()
		for _, k := range extra {
			if _, ok := got[k]; !ok {
				return fmt.Errorf("handler view %v lacks %s", got, k)
			}
			delete(got, k)
		}
		if !maps.Equal(got, want) {
			return fmt.Errorf("handler view %v, server %v (and %q)", got, want, extra)
		}
		return nil
	})
}

// keysEqual waits until the informer stores exactly the ConfigMaps at
// keys, and the handler's view holds them and extra.
func (f *fixture) keysEqual(t *testing.T, inf *cache.Informer[kube.ConfigMap], v *view, extra []string, keys ...string) {
	t.Helper()
	want := slices.Sorted(slices.Values(keys))
	wantView := slices.Sorted(slices.Values(append(slices.Clone(keys), extra...)))
	f.eventually(t, "informer holds the keys selected", func() error {
		items, err := inf.List(kube.ListOptions{})
		if err != nil {
			return err
		}
		var stored []string
		for _, cm := range items {
			stored = append(stored, cm.Key().String())
		}
		slices.Sort(stored)
		if !slices.Equal(stored, want) {
			return fmt.Errorf("store %q, want %q", stored, want)
		}
		if got := slices.Sorted(maps.Keys(v.snapshot())); !slices.Equal(got, wantView) {
			return fmt.Errorf("handler view %q, want %q", got, wantView)
		}
		return nil
	})
}
