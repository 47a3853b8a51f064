// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// testFreshReads: with every watch event delivered 200ms to 2s late, a
// controller that creates a child (generateName) when a List by owner
// shows none, and counts its reconciles in a field of the parent with a
// merge patch computed from what it read, over 80 parents, makes
// duplicate children and loses increments when it reconciles on a stale
// cache (the waits off), and makes none and loses none by default.
func testFreshReads(t *testing.T, f *fixture) {
	if f.env.LagWatches == nil {
		t.Skip("the environment cannot delay watch events")
	}
	const parents, target = 80, 3
	var lagged *kube.Config // without a bubble: both rounds on f's parents
	if f.env.Bubble == nil {
		var undo func()
		lagged, undo = f.freshReadsParents(t, parents)
		defer undo()
	}
	for _, mode := range []struct {
		name  string
		stale bool
	}{{"off", true}, {"on", false}} {
		t.Run(mode.name, func(t *testing.T) {
			round := func(t *testing.T, f *fixture, lagged *kube.Config) {
				dup, lost := f.runFreshReads(t, lagged, mode.name, mode.stale, target)
				switch {
				case mode.stale && dup+lost == 0:
					t.Errorf("with the waits off: no duplicate child and no lost increment; the scenario shows nothing")
				case !mode.stale && (dup > 0 || lost > 0):
					t.Errorf("by default: %d parents with more than one child, %d increments lost; want none", dup, lost)
				}
				t.Logf("waits %s: %d parents with duplicate children, %d increments lost", mode.name, dup, lost)
			}
			if f.env.Bubble == nil {
				round(t, f, lagged)
				return
			}
			f.env.Bubble(t, func(t *testing.T, env Env) {
				f := newFixture(t, env)
				lagged, undo := f.freshReadsParents(t, parents)
				defer undo()
				round(t, f, lagged)
			})
		})
	}
}

// freshReadsParents creates the parents in the fixture's namespace and
// delays the watch events of the config it returns 200ms to 2s, until
// undo.
func (f *fixture) freshReadsParents(t *testing.T, parents int) (lagged *kube.Config, undo func()) {
	for i := range parents {
		f.mustCreate(t, f.configMap(fmt.Sprintf("p-%03d", i), nil, map[string]string{"count": "0"}))
	}
	return f.env.LagWatches(200*time.Millisecond, 2*time.Second)
}

// runFreshReads runs the controller, in a manager made from lagged, over
// the fixture's parents (their counters reset) until each has reached target and the controller is
// idle with its cache at the server's state, and returns the parents with
// more than one child and the increments lost.
func (f *fixture) runFreshReads(t *testing.T, lagged *kube.Config, round string, stale bool, target int) (dup, lost int) {
	var parents kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &parents, kube.InNamespace(f.ns)); err != nil {
		t.Fatal(err)
	}
	for _, p := range parents.Items {
		if p.Data["count"] == "" {
			continue // kube-root-ca.crt
		}
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"count":"0","round":"` + round + `"}}`)}
		if err := f.c.Patch(f.ctx, &p, patch); err != nil {
			t.Fatal(err)
		}
	}
	// The waits are bounded for liveness (5s by default); here the bound
	// is raised so that a run slowed by the race detector on a busy
	// machine shows what the waits give, not where the bound cuts them.
	opts := manager.Options{MetricsBindAddress: "0", Cache: cache.Options{Namespaces: []string{f.ns}, MaxFreshWait: 30 * time.Second}}
	if stale {
		opts.Cache.MaxFreshWait = -1
	}
	cfg := *lagged
	cfg.QPS = -1 // the client-side rate limit would set the pace, not the watch
	m, err := manager.New(&cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	patches := 0 // counts written; each one that does not raise a count is an increment lost
	c := m.Client()
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		var p kube.ConfigMap
		if err := c.Get(ctx, req.Key, &p); err != nil || p.Data["round"] != round {
			return controller.Result{}, kube.IgnoreNotFound(err)
		}
		var children kube.List[kube.Secret]
		if err := c.List(ctx, &children, kube.InNamespace(f.ns), kube.MatchingLabels{"parent": p.Name, "round": round}); err != nil {
			return controller.Result{}, err
		}
		if len(children.Items) == 0 {
			yes := true
			child := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, GenerateName: p.Name + "-",
				Labels:          map[string]string{"parent": p.Name, "round": round},
				OwnerReferences: []kube.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: p.Name, UID: p.UID, Controller: &yes}}}}
			if err := c.Create(ctx, child); err != nil {
				return controller.Result{}, err
			}
		}
		n, _ := strconv.Atoi(p.Data["count"])
		if n >= target {
			return controller.Result{}, nil
		}
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"count":"` + strconv.Itoa(n+1) + `"}}`)}
		if err := c.Patch(ctx, &p, patch); err != nil {
			return controller.Result{}, err
		}
		mu.Lock()
		patches++
		mu.Unlock()
		return controller.Result{}, nil
	})
	ctrl, err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Owns(&kube.Secret{}).Named("fresh-" + round).
		WithOptions(controller.Options{MaxConcurrentReconciles: 8, ReconcileStale: stale}).Build(r)
	if err != nil {
		t.Fatal(err)
	}
	defer f.run(t, "manager", m.Start)()
	// Run until every parent is at target, then until the controller is
	// idle on a cache equal to the server's state.
	var parentsDone bool
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-f.ctx.Done():
			t.Fatalf("the controller did not finish: %v", f.ctx.Err())
		}
		if !parentsDone {
			var list kube.List[kube.ConfigMap]
			if err := f.c.List(f.ctx, &list, kube.InNamespace(f.ns)); err != nil {
				t.Fatal(err)
			}
			parentsDone = true
			for _, p := range list.Items {
				if p.Data["count"] != "" && p.Data["count"] != strconv.Itoa(target) {
					parentsDone = false
				}
			}
			continue
		}
		if mt := ctrl.Metrics(); mt.Queue.Depth == 0 && mt.ActiveWorkers == 0 && f.cacheAtServer(t, m) {
			break
		}
	}
	var children kube.List[kube.Secret]
	if err := f.c.List(f.ctx, &children, kube.InNamespace(f.ns), kube.MatchingLabels{"round": round}); err != nil {
		t.Fatal(err)
	}
	per := map[string]int{}
	for _, ch := range children.Items {
		per[ch.Labels["parent"]]++
	}
	for _, n := range per {
		if n > 1 {
			dup++
		}
	}
	mu.Lock()
	defer mu.Unlock()
	return dup, patches - len(per)*target
}

// cacheAtServer reports whether m's cache holds every ConfigMap and
// Secret of the fixture's namespace at the server's resourceVersion, and
// no other.
func (f *fixture) cacheAtServer(t *testing.T, m *manager.Manager) bool {
	t.Helper()
	var cms, cachedCMs kube.List[kube.ConfigMap]
	var secrets, cachedSecrets kube.List[kube.Secret]
	for _, l := range []struct {
		server, cached kube.ObjectList
	}{{&cms, &cachedCMs}, {&secrets, &cachedSecrets}} {
		if err := f.c.List(f.ctx, l.server, kube.InNamespace(f.ns)); err != nil {
			t.Fatal(err)
		}
		if err := m.Cache().List(f.ctx, l.cached, kube.ListOptions{Namespace: f.ns}); err != nil {
			return false // not synced yet
		}
	}
	versions := func(items ...[]kube.ObjectMeta) map[string]string {
		out := map[string]string{}
		for _, metas := range items {
			for _, m := range metas {
				out[m.Name] = m.ResourceVersion
			}
		}
		return out
	}
	server := versions(metas(cms.Items), metas(secrets.Items))
	cached := versions(metas(cachedCMs.Items), metas(cachedSecrets.Items))
	if len(server) != len(cached) {
		return false
	}
	for name, rv := range server {
		if cached[name] != rv {
			return false
		}
	}
	return true
}

// metas returns the metadata of objects.
func metas[T any, P interface {
	*T
	kube.Object
}](items []T) []kube.ObjectMeta {
	out := make([]kube.ObjectMeta, len(items))
	for n := range items {
		out[n] = *P(&items[n]).GetObjectMeta()
	}
	return out
}
