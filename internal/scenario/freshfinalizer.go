// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// testWrittenAnswers: what the writes whose answers do not tell a cache
// what it will see answer, as a client's OnWrite reports them
// (kube.Written): a no-op update and a patch that changes nothing answer
// the version the object had; a delete held by a finalizer answers the
// object marked at a new version, a second delete the same version; a
// dry run is not reported; the update (or patch) that removes the last
// finalizer answers the version of the mark and is reported Gone. An
// update without a resourceVersion (unconditional) answers the same.
func testWrittenAnswers(t *testing.T, f *fixture) {
	const fin = "kubeloop.dev/hold"
	for _, how := range []string{"update", "unconditional-update", "merge-patch"} {
		t.Run(how, func(t *testing.T) {
			var reported []kube.Written
			c, err := kube.NewClient(f.env.Config, kube.ClientOptions{OnWrite: func(w kube.Written) { reported = append(reported, w) }})
			if err != nil {
				t.Fatal(err)
			}
			last := func(what string) kube.Written {
				t.Helper()
				if len(reported) != 1 {
					t.Fatalf("%s: OnWrite saw %d writes, want 1", what, len(reported))
				}
				w := reported[0]
				reported = nil
				return w
			}
			write := func(obj *kube.ConfigMap, opts ...kube.WriteOption) error {
				switch how {
				case "unconditional-update":
					obj.ResourceVersion = ""
					return c.Update(f.ctx, obj, opts...)
				case "update":
					return c.Update(f.ctx, obj, opts...)
				}
				data := `{"metadata":{"finalizers":null}}`
				if len(obj.Finalizers) > 0 {
					data = `{}`
				}
				return c.Patch(f.ctx, obj, kube.Patch{Type: kube.MergePatch, Data: []byte(data)}, opts...)
			}
			cm := f.configMap("answers-"+how, map[string]string{"app": "x"}, map[string]string{"a": "1"})
			cm.Finalizers = []string{fin}
			if err := c.Create(f.ctx, cm); err != nil {
				t.Fatal(err)
			}
			created := last("create")
			if err := write(cm); err != nil {
				t.Fatal(err)
			}
			if w := last("no-op " + how); w.ResourceVersion != created.ResourceVersion || w.Delete || w.Gone {
				t.Errorf("no-op %s reported %+v, want the created version %s", how, w, created.ResourceVersion)
			}
			if err := c.Delete(f.ctx, cm); err != nil {
				t.Fatal(err)
			}
			marked := last("delete")
			if !marked.Delete || marked.Gone || marked.ResourceVersion == created.ResourceVersion || marked.Labels["app"] != "x" {
				t.Errorf("delete held by a finalizer reported %+v, want a delete at a new version, not gone", marked)
			}
			if err := c.Delete(f.ctx, cm); err != nil {
				t.Fatal(err)
			}
			if w := last("second delete"); !w.Delete || w.Gone || w.ResourceVersion != marked.ResourceVersion {
				t.Errorf("second delete reported %+v, want a delete at the mark's version %s", w, marked.ResourceVersion)
			}
			var got kube.ConfigMap
			if err := c.Get(f.ctx, cm.Key(), &got); err != nil {
				t.Fatal(err)
			}
			got.Finalizers = nil
			if err := write(&got, kube.DryRunAll); err != nil {
				t.Fatal(err)
			}
			if len(reported) != 0 {
				t.Errorf("a dry run was reported: %+v", reported)
			}
			reported = nil
			if err := c.Get(f.ctx, cm.Key(), &got); err != nil {
				t.Fatalf("get after the dry run: %v", err)
			}
			got.Finalizers = nil
			if err := write(&got); err != nil {
				t.Fatal(err)
			}
			if w := last("removing the last finalizer"); !w.Delete || !w.Gone || w.ResourceVersion != marked.ResourceVersion {
				t.Errorf("removing the last finalizer reported %+v, want gone at the mark's version %s", w, marked.ResourceVersion)
			}
			if err := c.Get(f.ctx, cm.Key(), &got); !kube.IsNotFound(err) {
				t.Errorf("get after the last finalizer went = %v, want NotFound", err)
			}
		})
	}
}

// testFreshFinalizer: with every watch event a second late, a controller
// that, on a ConfigMap being deleted, records in its data that the
// clean-up runs, runs it (half a second), then removes its finalizer,
// runs each clean-up once by default, over 20 objects: the record's event
// comes after the finalizer's removal and before the object's DELETED
// event, and the reconcile it causes waits until the object is gone.
// With the waits off the same run cleans up twice.
func testFreshFinalizer(t *testing.T, f *fixture) {
	if f.env.LagWatches == nil {
		t.Skip("the environment cannot delay watch events")
	}
	lagged, undo := f.env.LagWatches(time.Second, time.Second)
	defer undo()
	for _, mode := range []struct {
		name  string
		stale bool
	}{{"off", true}, {"on", false}} {
		t.Run(mode.name, func(t *testing.T) {
			extra, failed := f.runFreshFinalizer(t, lagged, mode.name, mode.stale, 20)
			switch {
			case mode.stale && extra == 0:
				t.Errorf("with the waits off no clean-up ran twice; the scenario shows nothing")
			case !mode.stale && (extra > 0 || failed > 0):
				t.Errorf("by default: %d clean-ups ran again, %d writes failed; want none", extra, failed)
			}
			t.Logf("waits %s: %d clean-ups ran again, %d writes failed", mode.name, extra, failed)
		})
	}
}

// runFreshFinalizer creates n ConfigMaps with a finalizer, runs the
// controller in a manager made from lagged, deletes them and waits until
// they are gone and the controller idle. It returns the clean-ups run
// more than once and the controller's writes that failed.
func (f *fixture) runFreshFinalizer(t *testing.T, lagged *kube.Config, round string, stale bool, n int) (extra, failed int) {
	const fin = "kubeloop.dev/cleanup"
	prefix := "fin-" + round + "-"
	opts := manager.Options{MetricsBindAddress: "0", Cache: cache.Options{Namespaces: []string{f.ns}, MaxFreshWait: 30 * time.Second}}
	if stale {
		opts.Cache.MaxFreshWait = -1
	}
	cfg := *lagged
	cfg.QPS = -1
	m, err := manager.New(&cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	cleanups := map[string]int{}
	c := m.Client()
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		var obj kube.ConfigMap
		if err := c.Get(ctx, req.Key, &obj); err != nil {
			return controller.Result{}, kube.IgnoreNotFound(err)
		}
		if obj.DeletionTimestamp == nil || !slices.Contains(obj.Finalizers, fin) {
			return controller.Result{}, nil
		}
		mu.Lock()
		cleanups[obj.Name]++
		mu.Unlock()
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"cleaned":"yes"}}`)}
		err := c.Patch(ctx, &obj, patch)
		if err == nil {
			time.Sleep(500 * time.Millisecond) // the clean-up's own work
			obj.Finalizers = nil
			err = c.Update(ctx, &obj)
		}
		if err != nil {
			mu.Lock()
			failed++
			mu.Unlock()
		}
		return controller.Result{}, err
	})
	ctrl, err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named("finalizer-" + round).
		WithOptions(controller.Options{MaxConcurrentReconciles: n, ReconcileStale: stale}).Build(r)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		cm := f.configMap(fmt.Sprintf("%s%02d", prefix, i), nil, nil)
		cm.Finalizers = []string{fin}
		f.mustCreate(t, cm)
	}
	defer f.run(t, "manager", m.Start)()
	// The objects are cached (the first list of the controller's
	// informer is done) before they are deleted: their deletions come as
	// watch events, late.
	for f.countPrefixed(t, m, true, prefix) != n {
		time.Sleep(20 * time.Millisecond)
	}
	for i := range n {
		cm := f.configMap(fmt.Sprintf("%s%02d", prefix, i), nil, nil)
		if err := f.c.Delete(f.ctx, cm); err != nil {
			t.Fatal(err)
		}
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
		case <-f.ctx.Done():
			t.Fatalf("the objects were not finalized: %v", f.ctx.Err())
		}
		// Gone from the server and from the manager's cache (whose
		// watch delivered every event before the DELETED ones), and the
		// controller idle.
		if mt := ctrl.Metrics(); f.countPrefixed(t, m, false, prefix) == 0 && f.countPrefixed(t, m, true, prefix) == 0 &&
			mt.Queue.Depth == 0 && mt.ActiveWorkers == 0 {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(cleanups) != n {
		t.Errorf("%d objects cleaned up, want %d", len(cleanups), n)
	}
	for _, k := range cleanups {
		extra += k - 1
	}
	return extra, failed
}

// countPrefixed returns the ConfigMaps of the fixture's namespace whose
// names start with prefix, on the server (cached false) or in m's cache
// (-1 while it is not running yet).
func (f *fixture) countPrefixed(t *testing.T, m *manager.Manager, cached bool, prefix string) int {
	t.Helper()
	var list kube.List[kube.ConfigMap]
	var err error
	if cached {
		err = m.Cache().List(f.ctx, &list, kube.ListOptions{Namespace: f.ns})
	} else {
		err = f.c.List(f.ctx, &list, kube.InNamespace(f.ns))
	}
	if cached && errors.Is(err, cache.ErrNotSynced) {
		return -1 // the manager is starting
	}
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, cm := range list.Items {
		if strings.HasPrefix(cm.Name, prefix) {
			n++
		}
	}
	return n
}
