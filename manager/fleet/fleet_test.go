// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
	"weak"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/internal/stacks"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

var configMaps = kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// newServer starts a kubetest server holding n ConfigMaps app-0 ... in
// default; inside a bubble, call it inside.
func newServer(t testing.TB, n int) *kubetest.Server {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	for i := range n {
		cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "default", "name": fmt.Sprintf("app-%d", i)},
			"data":     map[string]any{"payload": strings.Repeat("x", 4096)}}
		if _, err := srv.Create(configMaps, cm); err != nil {
			t.Fatal(err)
		}
	}
	return srv
}

func config(srv *kubetest.Server) *kube.Config {
	cfg := srv.Config()
	cfg.QPS = -1
	return cfg
}

// seen counts the reconciles of each cluster.
type seen struct {
	mu sync.Mutex
	n  map[string]int
}

func (s *seen) add(cluster string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n == nil {
		s.n = map[string]int{}
	}
	s.n[cluster]++
}

// clusters returns how many reconciles each cluster had.
func (s *seen) clusters() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.n)
}

// label returns the "seen" label of ConfigMap name in srv.
func label(t *testing.T, srv *kubetest.Server, name string) string {
	t.Helper()
	obj, err := srv.Get(configMaps, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := obj["metadata"].(map[string]any)["labels"].(map[string]any)
	s, _ := labels["seen"].(string)
	return s
}

// labelSeen labels the ConfigMap key of cl with seen=<cl's name>: the
// reconcile of the fleet tests' controllers.
func labelSeen(ctx context.Context, cl *fleet.Cluster, key kube.Key) (controller.Result, error) {
	var cm kube.ConfigMap
	if err := cl.Client().Get(ctx, key, &cm); err != nil {
		return controller.Result{}, kube.IgnoreNotFound(err)
	}
	patch := kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"metadata":{"labels":{"seen":%q}}}`, cl.Name())}
	return controller.Result{}, cl.Client().Patch(ctx, &cm, patch)
}

// heap returns the bytes of live heap objects, after a collection.
func heap() uint64 {
	var ms runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestEngageDisengage runs one manager over three kubetest servers: two
// clusters engaged before Start are reconciled, each through its own
// client; a third engaged while it runs is reconciled too; disengaged,
// it leaves nothing behind (no informer, no goroutine, its requests
// still queued dropped, the heap back to what it was with two).
func TestEngageDisengage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := newServer(t, 0)
		servers := map[string]*kubetest.Server{"a": newServer(t, 3), "b": newServer(t, 3), "c": newServer(t, 500)}
		mgr, err := manager.New(config(host), manager.Options{MetricsBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := fleet.New(mgr, fleet.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var did seen
		// hold, when set, blocks the reconciles of c until closed.
		var hold chan struct{}
		err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
			func(ctx context.Context, req controller.Request) (controller.Result, error) {
				cl := fleet.ClusterFrom(ctx)
				did.add(cl.Name())
				if cl.Name() == "c" && hold != nil {
					select {
					case <-hold:
					case <-ctx.Done(): // c disengaged
						return controller.Result{}, ctx.Err()
					}
				}
				return labelSeen(ctx, cl, req.Key)
			}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		for _, name := range []string{"a", "b"} {
			if err := f.Engage(ctx, name, config(servers[name])); err != nil {
				t.Fatal(err)
			}
		}
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		synctest.Wait()

		for _, name := range []string{"a", "b"} {
			if got := label(t, servers[name], "app-2"); got != name {
				t.Errorf("cluster %s: label seen of app-2 = %q, want %q", name, got, name)
			}
		}
		if got := did.clusters(); got["a"] == 0 || got["b"] == 0 || len(got) != 2 {
			t.Fatalf("reconciles by cluster = %v, want some of a and b only", got)
		}
		if got := f.Names(); !slices.Equal(got, []string{"a", "b"}) {
			t.Fatalf("Names() = %v, want [a b]", got)
		}
		// With two engaged and reconciled: the base line. Time passes so
		// that what the reconciles started (their answers' watch events
		// delivered) has settled.
		time.Sleep(time.Second)
		synctest.Wait()
		reflectors, goroutines, base := stacks.Count("cache.(*reflector).run"), runtime.NumGoroutine(), heap()

		hold = make(chan struct{})
		defer close(hold)
		if err := f.Engage(ctx, "c", config(servers["c"])); err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // c's first reconcile is held, its other requests queued behind it (one worker)
		if got := stacks.Count("cache.(*reflector).run"); got != reflectors+1 {
			t.Errorf("reflectors with c engaged = %d, want %d", got, reflectors+1)
		}
		withC := heap()
		cl, _ := f.Cluster("c")
		gone := weak.Make(cl)
		cl = nil
		if err := f.Disengage(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := did.clusters()["c"]; got != 1 {
			t.Errorf("reconciles of c = %d, want 1 (the one in flight when it was disengaged, cancelled; the queued ones dropped)", got)
		}
		if _, err := f.Cluster("c"); !errors.Is(err, fleet.ErrNotEngaged) {
			t.Errorf("Cluster(c) after Disengage: err = %v, want ErrNotEngaged", err)
		}
		if err := f.Disengage(ctx, "c"); !errors.Is(err, fleet.ErrNotEngaged) {
			t.Errorf("Disengage(c) twice: err = %v, want ErrNotEngaged", err)
		}
		// Nothing of c is left. The Go runtime drops stopped timers from
		// its heap lazily, at the latest when they would have fired: the
		// sync timeout of c's controller (2m), stopped, keeps its
		// context, and through it the cluster, reachable until then.
		time.Sleep(controller.DefaultCacheSyncTimeout)
		synctest.Wait()
		if got := stacks.Count("cache.(*reflector).run"); got != reflectors {
			t.Errorf("reflectors after disengaging c = %d, want %d", got, reflectors)
		}
		if got := runtime.NumGoroutine(); got != goroutines {
			t.Errorf("goroutines after disengaging c = %d, want %d as before it was engaged", got, goroutines)
		}
		after := heap()
		if gone.Value() != nil {
			t.Errorf("the *Cluster of c is still reachable after Disengage")
		}
		if p := os.Getenv("FLEET_HEAP_PROFILE"); p != "" {
			fh, _ := os.Create(p)
			_ = pprof.WriteHeapProfile(fh)
			fh.Close()
		}
		t.Logf("heap: two clusters %d B, with c (500 ConfigMaps of 4 KiB) %d B, after disengaging c %d B", base, withC, after)
		if withC-base < 1<<20 {
			t.Errorf("heap with c engaged grew by %d B only: the checks below cannot fail", withC-base)
		}
		if grown := float64(after) / float64(base); grown > 1.02 {
			t.Errorf("heap after disengaging c = %d B, %.1f%% over the %d B with two clusters, want within 2%%", after, (grown-1)*100, base)
		}
		hold = nil
		if err := f.Engage(ctx, "c", config(servers["c"])); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := label(t, servers["c"], "app-499"); got != "c" {
			t.Errorf("c engaged again: label seen of app-499 = %q, want c", got)
		}
		// The labels written made c's server hold more: the base line
		// of the second disengagement is the heap with c engaged and
		// idle, less what its first engagement cost.
		time.Sleep(time.Second)
		synctest.Wait()
		idle := heap()
		if err := f.Disengage(ctx, "c"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(controller.DefaultCacheSyncTimeout)
		synctest.Wait()
		again := heap()
		t.Logf("heap after engaging and disengaging c a second time: %d B", again)
		t.Logf("heap with c engaged again, reconciled and idle %d B", idle)
		if want := idle - (withC - base); float64(again) > 1.02*float64(want) {
			t.Errorf("heap after a second engagement of c = %d B, want within 2%% of %d B", again, want)
		}
		if got := runtime.NumGoroutine(); got != goroutines {
			t.Errorf("goroutines after disengaging c again = %d, want %d", got, goroutines)
		}

		// a and b still reconcile.
		if _, err := servers["a"].Create(configMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "default", "name": "late"}}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := label(t, servers["a"], "late"); got != "a" {
			t.Errorf("a's late ConfigMap: label seen = %q, want a", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Start: %v", err)
		}
		if got := stacks.Count("cache.(*reflector).run"); got != 0 {
			t.Errorf("reflectors after the manager stopped = %d, want 0", got)
		}
	})
}

// TestMaxClusters: Engage of a new name fails with ErrClusterLimit while
// MaxClusters clusters are engaged, engaging a name again still works,
// and a cluster disengaged makes room; a negative limit is an error.
func TestMaxClusters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mgr, err := manager.New(config(newServer(t, 0)), manager.Options{MetricsBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fleet.New(mgr, fleet.Options{MaxClusters: -1}); err == nil || !strings.Contains(err.Error(), "MaxClusters -1 must not be negative") {
			t.Errorf("New(MaxClusters -1) = %v, want an error naming it", err)
		}
		f, err := fleet.New(mgr, fleet.Options{MaxClusters: 2})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		member := config(newServer(t, 0))
		for _, name := range []string{"a", "b"} {
			if err := f.Engage(ctx, name, member); err != nil {
				t.Fatal(err)
			}
		}
		if err := f.Engage(ctx, "c", member); !errors.Is(err, fleet.ErrClusterLimit) {
			t.Errorf("Engage(c) with a and b engaged, MaxClusters 2 = %v, want ErrClusterLimit", err)
		}
		if err := f.Engage(ctx, "a", member); err != nil {
			t.Errorf("Engage(a) again at the limit: %v", err)
		}
		if err := f.Disengage(ctx, "b"); err != nil {
			t.Fatal(err)
		}
		if err := f.Engage(ctx, "c", member); err != nil {
			t.Errorf("Engage(c) once b is disengaged: %v", err)
		}
		if got := f.Names(); !slices.Equal(got, []string{"a", "c"}) {
			t.Errorf("Names() = %v, want [a c]", got)
		}
	})
}
