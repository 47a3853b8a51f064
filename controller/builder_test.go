// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// testManager is the least a manager does for a Builder: a cache for the
// sources, a client for discovery, and a registry of unique names.
type testManager struct {
	cache  *cache.Cache
	client *kube.Client

	mu    sync.Mutex
	added map[string]runnable
	order []string
	works map[string]func(context.Context, kube.ShardSelector) error // AddShardedController's
}

func newTestManager(t testing.TB, client *kube.Client) *testManager {
	t.Helper()
	c, err := cache.New(client, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &testManager{cache: c, client: client, added: map[string]runnable{}}
}

func (m *testManager) GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error) {
	return m.cache.GetInformer(ctx, obj)
}

func (m *testManager) Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error) {
	return m.client.Mapping(ctx, gvk)
}

func (m *testManager) WritesSeen(gvk kube.GroupVersionKind, key kube.Key) bool {
	return m.cache.WritesSeen(gvk, key)
}

func (m *testManager) WaitForWrites(ctx context.Context, gvk kube.GroupVersionKind, key kube.Key) bool {
	return m.cache.WaitForWrites(ctx, gvk, key)
}

func (m *testManager) AddController(name string, r interface {
	Start(ctx context.Context) error
	NeedLeaderElection() bool
}) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.added[name]; ok {
		return fmt.Errorf("controller name %q is taken", name)
	}
	m.added[name] = r
	m.order = append(m.order, name)
	return nil
}

// AddShardedController makes obj's kind sharded in the cache and adds r
// as AddController does; the test calls work (kept in works) itself.
func (m *testManager) AddShardedController(name string, obj kube.Object, r interface {
	Start(ctx context.Context) error
	NeedLeaderElection() bool
}, work func(context.Context, kube.ShardSelector) error) error {
	if err := m.cache.ShardKind(obj, nil); err != nil {
		return err
	}
	if err := m.AddController(name, r); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.works == nil {
		m.works = map[string]func(context.Context, kube.ShardSelector) error{}
	}
	m.works[name] = work
	return nil
}

// start runs the cache, then every controller added, until the test ends.
func (m *testManager) start(t *testing.T) {
	t.Helper()
	run(t, m.cache.Start)
	for _, name := range m.order {
		r := m.added[name]
		stop := run(t, r.Start)
		t.Cleanup(func() {
			if err := stop(); err != nil {
				t.Errorf("controller %s: Start = %v", name, err)
			}
		})
	}
}

var secrets = kube.GroupVersionResource{Version: "v1", Resource: "secrets"}

func createSecret(t *testing.T, srv *kubetest.Server, name string, labels map[string]any, owners ...any) {
	t.Helper()
	meta := map[string]any{"namespace": "default", "name": name, "labels": labels, "ownerReferences": owners}
	if _, err := srv.Create(secrets, map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": meta}); err != nil {
		t.Fatal(err)
	}
}

func TestBuilderWiresEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		mgr := newTestManager(t, client)
		rec := newRecorder(nil)
		ch := make(chan Change, 1)
		notIgnored := ObjectFilter(func(o kube.Object) bool { return !strings.HasPrefix(o.GetObjectMeta().Name, "ignored") })
		c, err := NewBuilder(mgr).
			For(&kube.ConfigMap{}).
			Owns(&kube.Secret{}).
			Watches(&kube.Secret{}, EnqueueMapped(func(_ context.Context, o kube.Object) []Request {
				if f := o.GetObjectMeta().Labels["for"]; f != "" {
					return []Request{req("default", f)}
				}
				return nil
			})).
			WatchesSource(Channel(ch, EnqueueObject())).
			WithEventFilter(notIgnored).
			WithOptions(Options{MaxConcurrentReconciles: 2}).
			Build(rec)
		if err != nil {
			t.Fatal(err)
		}
		if c.Name() != "configmap" || c.workers != 2 || len(c.sources) != 4 {
			t.Errorf("built %q with %d workers and %d sources, want configmap, 2, 4", c.Name(), c.workers, len(c.sources))
		}
		if err := NewBuilder(mgr).For(&kube.ConfigMap{}).Complete(rec); err == nil || !strings.Contains(err.Error(), `build controller "configmap": controller name "configmap" is taken`) {
			t.Errorf("second controller with the same name: %v, want the manager's refusal", err)
		}
		mgr.start(t)
		synctest.Wait()

		cmA := createCM(t, srv, cm{ns: "default", name: "a"})
		createCM(t, srv, cm{ns: "default", name: "ignored-x"})
		synctest.Wait()
		uid := cmA["metadata"].(map[string]any)["uid"]
		owner := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "a", "uid": uid, "controller": true}
		createSecret(t, srv, "s1", nil, owner)
		synctest.Wait()
		createSecret(t, srv, "s2", map[string]any{"for": "b"})
		createSecret(t, srv, "ignored-s", map[string]any{"for": "c"})
		synctest.Wait()
		ch <- Change{Key: kube.Key{Namespace: "default", Name: "ignored-k"}}
		synctest.Wait()

		got := rec.order()
		want := []string{"default/a", "default/a", "default/b", "default/ignored-k"}
		if !slices.Equal(got, want) {
			t.Errorf("reconciled %v, want %v", got, want)
		}
	})
}

func TestBuilderClusterScopedOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		mgr := newTestManager(t, client)
		rec := newRecorder(nil)
		if err := NewBuilder(mgr).For(&kube.Namespace{}, PredicateFuncs{Create: func(Change) bool { return false }}).Owns(&kube.ConfigMap{}).Complete(rec); err != nil {
			t.Fatal(err)
		}
		mgr.start(t)
		synctest.Wait()
		nsUID := mustGetNS(t, srv, "default")
		owner := map[string]any{"apiVersion": "v1", "kind": "Namespace", "name": "default", "uid": nsUID, "controller": true}
		createCM(t, srv, cm{ns: "default", name: "owned", owners: []any{owner}})
		synctest.Wait()
		if got := rec.order(); !slices.Equal(got, []string{"default"}) {
			t.Errorf("reconciled %q, want [\"default\"]: the Namespace owner, with no namespace", got)
		}
	})
}

func mustGetNS(t *testing.T, srv *kubetest.Server, name string) any {
	t.Helper()
	o, err := srv.Get(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"}, "", name)
	if err != nil {
		t.Fatal(err)
	}
	return o["metadata"].(map[string]any)["uid"]
}

func TestBuilderErrors(t *testing.T) {
	ok := newRecorder(nil)
	mgr := &testManager{added: map[string]runnable{}}
	noKind := &kube.Unstructured{}
	tests := []struct {
		name    string
		b       *Builder
		r       Reconciler
		wantErr string
	}{
		{"no For, no Named", NewBuilder(mgr), ok, "build controller: the controller has no name: call For or Named"},
		{"For twice", NewBuilder(mgr).For(&kube.ConfigMap{}).For(&kube.Secret{}), ok, "For called twice"},
		{"For nil", NewBuilder(mgr).Named("x").For(nil), ok, "For: object is nil"},
		{"For without kind", NewBuilder(mgr).Named("x").For(noKind), ok, "For: *kube.Unstructured names no kind"},
		{"Owns without For", NewBuilder(mgr).Named("x").Owns(&kube.Secret{}), ok, "Owns needs For"},
		{"Watches nil handler", NewBuilder(mgr).For(&kube.ConfigMap{}).Watches(&kube.Secret{}, nil), ok, "Watches *kube.Secret: handler is nil"},
		{"nil source", NewBuilder(mgr).For(&kube.ConfigMap{}).WatchesSource(nil), ok, "WatchesSource: source is nil"},
		{"nil manager", NewBuilder(nil).For(&kube.ConfigMap{}), ok, "manager is nil"},
		{"nil reconciler", NewBuilder(mgr).For(&kube.ConfigMap{}), nil, "reconciler is nil"},
		{"bad options", NewBuilder(mgr).For(&kube.ConfigMap{}).WithOptions(Options{MaxConcurrentReconciles: -2}), ok, "Options.MaxConcurrentReconciles is -2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.b.Complete(tt.r)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Complete = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
	if len(mgr.added) != 0 {
		t.Errorf("failed builds registered %d controllers, want 0", len(mgr.added))
	}
	// Unstructured kinds are fine once they name one.
	u := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "example.com/v1", Kind: "Widget"}}
	c, err := NewBuilder(mgr).For(u).Build(ok)
	if err != nil || c.Name() != "widget" {
		t.Errorf("Build(For unstructured Widget) = %v, %v; want controller widget", c, err)
	}
}

// TestBuilderSourceFailureFailsStart checks that a kind the server does
// not know fails the controller's Start with discovery's error.
func TestBuilderSourceFailureFailsStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client := newServer(t)
		mgr := newTestManager(t, client)
		run(t, mgr.cache.Start)
		c, err := NewBuilder(mgr).For(&widget{}).Build(newRecorder(nil))
		if err != nil {
			t.Fatal(err)
		}
		err = c.Start(t.Context())
		if err == nil || !strings.Contains(err.Error(), `start controller "widget": watch kind Widget (example.com/v1)`) {
			t.Errorf("Start = %v, want the watch of Widget to fail", err)
		}
	})
}

// runnable is what testManager keeps of a controller.
type runnable interface {
	Start(ctx context.Context) error
	NeedLeaderElection() bool
}
