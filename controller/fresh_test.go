// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"slices"
	"strconv"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// staleRun is what TestStaleSafeReconciles records of one run.
type staleRun struct {
	mu sync.Mutex
	// stale counts the reconciles that read the object older than the
	// reconciler's own last write to it.
	stale int
	// started is set once the test labelled "a": reconciles before are
	// not recorded.
	started bool
	// reconciled is when each key was reconciled, in order.
	reconciled []string
	times      []time.Duration
}

// runStale runs a controller of ConfigMaps on a server whose watch events
// come a second late: once the test labels "a", each reconcile of "a"
// bumps data.n (to 3) and creates a Secret it owns, and after the first
// write it queues "a" and "b" at once through a channel. It returns what the reconciler saw.
func runStale(t *testing.T, opts Options, copts cache.Options) *staleRun {
	srv, _ := newServer(t)
	var c *cache.Cache
	client, err := srv.Client(kube.ClientOptions{FieldManager: "controller-test", OnWrite: func(w kube.Written) { c.RecordWrite(w) }})
	if err != nil {
		t.Fatal(err)
	}
	mgr := newTestManager(t, client)
	if mgr.cache, err = cache.New(client, copts); err != nil {
		t.Fatal(err)
	}
	c = mgr.cache
	createCM(t, srv, cm{ns: "default", name: "a", data: map[string]any{"n": "0"}})
	createCM(t, srv, cm{ns: "default", name: "b", data: map[string]any{"n": "0"}})
	run := &staleRun{}
	start := time.Now()
	var mu sync.Mutex
	written := map[string]int{} // key → the last resourceVersion written
	ch := make(chan Change, 2)
	queued := false // a and b were queued through ch (once)
	r := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		var obj kube.ConfigMap
		if err := c.Get(ctx, req.Key, &obj); err != nil {
			return Result{}, kube.IgnoreNotFound(err)
		}
		run.mu.Lock()
		if req.Name == "a" && obj.Labels["go"] == "yes" {
			run.started = true
		}
		if !run.started {
			run.mu.Unlock()
			return Result{}, nil
		}
		rv, _ := strconv.Atoi(obj.ResourceVersion)
		run.reconciled = append(run.reconciled, req.Name)
		run.times = append(run.times, time.Since(start))
		mu.Lock()
		if rv < written[req.Name] {
			run.stale++
		}
		mu.Unlock()
		run.mu.Unlock()
		n, _ := strconv.Atoi(obj.Data["n"])
		if req.Name != "a" || n >= 3 {
			return Result{}, nil
		}
		yes := true
		child := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "default", GenerateName: "a-",
			OwnerReferences: []kube.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "a", UID: obj.UID, Controller: &yes}}}}
		if err := client.Create(ctx, child); err != nil {
			return Result{}, err
		}
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"n":"` + strconv.Itoa(n+1) + `"}}`)}
		if err := client.Patch(ctx, &obj, patch); err != nil {
			return Result{}, err
		}
		mu.Lock()
		written[req.Name], _ = strconv.Atoi(obj.ResourceVersion)
		mu.Unlock()
		if n == 0 && !queued {
			queued = true
			ch <- Change{Key: kube.Key{Namespace: "default", Name: "a"}}
			ch <- Change{Key: kube.Key{Namespace: "default", Name: "b"}}
		}
		return Result{}, nil
	})
	if err := NewBuilder(mgr).For(&kube.ConfigMap{}).Owns(&kube.Secret{}).WatchesSource(Channel(ch, EnqueueObject())).
		WithOptions(opts).Complete(r); err != nil {
		t.Fatal(err)
	}
	mgr.start(t)
	synctest.Wait()
	t.Cleanup(srv.LagWatches("", time.Second, time.Second))
	start = time.Now()
	patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"go":"yes"}}}`)}
	if err := client.Patch(t.Context(), &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}}, patch); err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Second)
	synctest.Wait()
	return run
}

// TestStaleSafeReconciles: with watch events a second late, a controller
// never reconciles an object on a cache older than its own last write to
// it (or to the objects it owns), and a request set aside for that holds
// no worker: another object queued with it is reconciled at once (were
// the reconcile's read waiting instead, the one worker would be held).
// With Options.ReconcileStale and the cache's waits off, the same run
// reconciles on stale reads.
func TestStaleSafeReconciles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		run := runStale(t, Options{}, cache.Options{})
		if run.stale != 0 {
			t.Errorf("%d reconciles read an object older than their own write; reconciled %v at %v", run.stale, run.reconciled, run.times)
		}
		// The first reconcile of a (at 1s, when the label's event came)
		// queued a and b: b is reconciled at once, a waits for its write.
		if len(run.reconciled) < 3 || run.reconciled[1] != "b" || run.times[1] != time.Second {
			t.Errorf("reconciled %v at %v, want b second, at 1s, while a waits aside", run.reconciled, run.times)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		run := runStale(t, Options{ReconcileStale: true}, cache.Options{MaxFreshWait: -1})
		if run.stale == 0 {
			t.Errorf("with ReconcileStale and the cache's waits off no reconcile read a stale object (reconciled %v): the test shows nothing", run.reconciled)
		}
	})
}

// TestFinalizerRunsOnce: with watch events a second late, a controller
// that, on an object being deleted, records in the object's data that
// its clean-up runs, runs it (half a second), and then removes its
// finalizer, runs the clean-up once: the event of the record, which
// comes after the finalizer's removal, is not reconciled on the object
// as it was before the removal (still with its finalizer) but once the
// object is gone.
func TestFinalizerRunsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const finalizer = "example.com/cleanup"
		srv, _ := newServer(t)
		var c *cache.Cache
		client, err := srv.Client(kube.ClientOptions{FieldManager: "controller-test", OnWrite: func(w kube.Written) { c.RecordWrite(w) }})
		if err != nil {
			t.Fatal(err)
		}
		mgr := newTestManager(t, client)
		c = mgr.cache
		var mu sync.Mutex
		cleanups, failures := 0, 0
		r := ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
			var obj kube.ConfigMap
			if err := c.Get(ctx, req.Key, &obj); err != nil {
				return Result{}, kube.IgnoreNotFound(err)
			}
			if obj.DeletionTimestamp == nil || !slices.Contains(obj.Finalizers, finalizer) {
				return Result{}, nil
			}
			mu.Lock()
			cleanups++
			mu.Unlock()
			patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"cleaned":"yes"}}`)}
			err := client.Patch(ctx, &obj, patch)
			if err == nil {
				time.Sleep(500 * time.Millisecond) // the clean-up's own work
				obj.Finalizers = nil
				err = client.Update(ctx, &obj)
			}
			if err != nil {
				mu.Lock()
				failures++
				mu.Unlock()
			}
			return Result{}, err
		})
		if err := NewBuilder(mgr).For(&kube.ConfigMap{}).Complete(r); err != nil {
			t.Fatal(err)
		}
		obj := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a", Finalizers: []string{finalizer}}}
		if err := client.Create(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		mgr.start(t)
		synctest.Wait()
		t.Cleanup(srv.LagWatches("", time.Second, time.Second))
		if err := client.Delete(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if cleanups != 1 || failures != 0 {
			t.Errorf("the clean-up ran %d times, %d of them failing, want once", cleanups, failures)
		}
	})
}
