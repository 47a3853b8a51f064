// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

func TestNewValidates(t *testing.T) {
	ok := ReconcilerFunc(func(context.Context, Request) (Result, error) { return Result{}, nil })
	tests := []struct {
		name    string
		ctrl    string
		r       Reconciler
		opts    Options
		wantErr string
	}{
		{"no name", "", ok, Options{}, "name is empty"},
		{"no reconciler", "x", nil, Options{}, "reconciler is nil"},
		{"negative workers", "x", ok, Options{MaxConcurrentReconciles: -1}, "Options.MaxConcurrentReconciles is -1"},
		{"negative sync timeout", "x", ok, Options{CacheSyncTimeout: -time.Second}, "Options.CacheSyncTimeout is -1s"},
		{"negative reconcile timeout", "x", ok, Options{ReconcileTimeout: -time.Second}, "Options.ReconcileTimeout is -1s"},
		{"negative priority wait", "x", ok, Options{MaxPriorityWait: -time.Second}, "Options.MaxPriorityWait is -1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.ctrl, tt.r, tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("New(%q, %+v) = %v, want an error containing %q", tt.ctrl, tt.opts, err, tt.wantErr)
			}
		})
	}
	c := mustNew(t, "x", ok, Options{})
	if !c.NeedLeaderElection() || c.workers != 1 || c.syncTimeout != DefaultCacheSyncTimeout || !c.recoverPanic {
		t.Errorf("defaults: leader %v, workers %d, sync timeout %v, recover %v; want true, 1, 2m, true",
			c.NeedLeaderElection(), c.workers, c.syncTimeout, c.recoverPanic)
	}
	no := false
	if c := mustNew(t, "x", ok, Options{NeedLeaderElection: &no}); c.NeedLeaderElection() {
		t.Errorf("NeedLeaderElection with the option false = true")
	}
}

// inflight is a reconciler that tracks how many reconciles run at once,
// overall and per request, failing the test if a request runs twice.
type inflight struct {
	t     *testing.T
	sleep time.Duration
	// before is called at the start of each reconcile (may be nil).
	before func(req Request, n int)

	mu      sync.Mutex
	running map[Request]bool
	now     int
	peak    int
	done    map[Request]int
}

func (r *inflight) Reconcile(ctx context.Context, req Request) (Result, error) {
	r.mu.Lock()
	if r.running[req] {
		r.t.Errorf("%s reconciled by two workers at once", req)
	}
	r.running[req] = true
	r.now++
	r.peak = max(r.peak, r.now)
	n := r.done[req] + 1
	r.mu.Unlock()
	if r.before != nil {
		r.before(req, n)
	}
	time.Sleep(r.sleep)
	r.mu.Lock()
	delete(r.running, req)
	r.now--
	r.done[req]++
	r.mu.Unlock()
	return Result{}, nil
}

func TestWorkersRunConcurrentlyButNeverTheSameKeyTwice(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		keys := names(30, "cm")
		for _, n := range keys {
			createCM(t, srv, cm{ns: "default", name: n})
		}
		inf := startCMInformer(t, client)
		r := &inflight{t: t, sleep: time.Second, running: map[Request]bool{}, done: map[Request]int{}}
		// The first reconcile of five objects changes them: the events come
		// while they are being reconciled, and must wait for it to end.
		r.before = func(req Request, n int) {
			if n == 1 && req.Name < "cm005" {
				updateCM(t, srv, req.Namespace, req.Name, map[string]any{"changed": "yes"})
			}
		}
		c := mustNew(t, "concurrency", r, Options{MaxConcurrentReconciles: 4})
		mustWatch(t, c, Kind(inf.ObjectInformer(), EnqueueObject()))
		stop := startController(t, c)

		time.Sleep(500 * time.Millisecond)
		if m := c.Metrics(); m.ActiveWorkers != 4 || m.MaxConcurrentReconciles != 4 {
			t.Errorf("while busy: %d active workers of %d, want 4 of 4", m.ActiveWorkers, m.MaxConcurrentReconciles)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		stop()
		if r.peak != 4 {
			t.Errorf("at most %d reconciles at once, want 4", r.peak)
		}
		for _, n := range keys {
			want := 1
			if n < "cm005" {
				want = 2
			}
			if got := r.done[req("default", n)]; got != want {
				t.Errorf("%s reconciled %d times, want %d", n, got, want)
			}
		}
		if m := c.Metrics(); m.ActiveWorkers != 0 || m.ReconcileTotal.Success != 35 {
			t.Errorf("after stop: %d active workers, %d successes; want 0, 35", m.ActiveWorkers, m.ReconcileTotal.Success)
		}
	})
}

func TestSlowReconcileDoesNotBlockOtherKeys(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		rec := newRecorder(func(_ context.Context, req Request, _ int) (Result, error) {
			if req.Name == "slow" {
				<-release
			}
			return Result{}, nil
		})
		c := mustNew(t, "slow", rec, Options{MaxConcurrentReconciles: 2})
		ch := make(chan Change, 10)
		mustWatch(t, c, Channel(ch, EnqueueObject()))
		for _, n := range []string{"slow", "a", "b", "c"} {
			ch <- Change{Key: kube.Key{Namespace: "ns", Name: n}}
		}
		startController(t, c)
		time.Sleep(time.Second)
		ch <- Change{Key: kube.Key{Namespace: "ns", Name: "slow"}} // queued behind the running one
		ch <- Change{Key: kube.Key{Namespace: "ns", Name: "d"}}
		time.Sleep(time.Hour)
		synctest.Wait()
		// Two workers start at once, so the order of slow and a varies;
		// what matters is that every other key got through while slow ran.
		got := slices.Sorted(slices.Values(rec.order()))
		if want := []string{"ns/a", "ns/b", "ns/c", "ns/d", "ns/slow"}; !slices.Equal(got, want) {
			t.Errorf("reconciled %v while slow runs, want %v", got, want)
		}
		if got := rec.times(req("ns", "d")); !slices.Equal(got, []time.Duration{time.Second}) {
			t.Errorf("d reconciled at %v, want [1s]", got)
		}
		close(release)
		synctest.Wait()
		if n := rec.count(req("ns", "slow")); n != 2 {
			t.Errorf("slow reconciled %d times, want 2 (once more for the event during its reconcile)", n)
		}
	})
}

func TestShutdownWaitsForReconcilesInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var finished []time.Duration
		cancelled := 0
		start := time.Now()
		rec := newRecorder(func(ctx context.Context, _ Request, _ int) (Result, error) {
			time.Sleep(10 * time.Second) // ignores ctx, as a careless reconciler would
			mu.Lock()
			defer mu.Unlock()
			if ctx.Err() != nil {
				cancelled++
			}
			finished = append(finished, time.Since(start))
			return Result{}, nil
		})
		c := mustNew(t, "shutdown", rec, Options{MaxConcurrentReconciles: 2})
		mustWatch(t, c, sendKeys(t, req("ns", "a"), req("ns", "b"), req("ns", "c")))
		stop := run(t, c.Start)
		time.Sleep(time.Second)

		returned := make(chan error, 1)
		go func() { returned <- stop() }()
		time.Sleep(5 * time.Second)
		synctest.Wait()
		select {
		case err := <-returned:
			t.Fatalf("Start returned (%v) with reconciles in flight", err)
		default:
		}
		if err := <-returned; err != nil {
			t.Errorf("Start = %v, want nil", err)
		}
		if got := time.Since(start); got != 10*time.Second || !slices.Equal(finished, ms(10000, 10000)) {
			t.Errorf("Start returned at %v, reconciles finished at %v; want all at 10s", got, finished)
		}
		if cancelled != 2 {
			t.Errorf("%d reconciles saw their context done at shutdown, want 2", cancelled)
		}
		if n := rec.total(); n != 2 {
			t.Errorf("%d reconciles, want 2: the third request is dropped at shutdown", n)
		}
	})
}

// TestShutdownStartsNoReconcile checks that no reconcile starts once
// Start's context is done, even while the one in flight returns at once:
// the requests still queued are dropped (what a fleet's disengaged
// cluster relies on).
func TestShutdownStartsNoReconcile(t *testing.T) {
	for range 20 { // the worker and Start's stop race without the check
		synctest.Test(t, func(t *testing.T) {
			rec := newRecorder(func(ctx context.Context, _ Request, _ int) (Result, error) {
				<-ctx.Done()
				return Result{}, ctx.Err()
			})
			c := mustNew(t, "drop", rec, Options{})
			keys := make([]Request, 100)
			for i := range keys {
				keys[i] = req("ns", fmt.Sprint(i))
			}
			mustWatch(t, c, sendKeys(t, keys...))
			stop := run(t, c.Start)
			synctest.Wait()
			if err := stop(); err != nil {
				t.Fatalf("Start = %v, want nil", err)
			}
			if n := rec.total(); n != 1 {
				t.Fatalf("%d reconciles, want 1: the one in flight; the queued requests are dropped at shutdown", n)
			}
		})
	}
}

func TestStartTwiceAndWatchAfterStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := mustNew(t, "twice", newRecorder(nil), Options{})
		stop := startController(t, c)
		synctest.Wait()
		if err := c.Start(t.Context()); err == nil || !strings.Contains(err.Error(), `start controller "twice": started before`) {
			t.Errorf("second Start = %v, want started before", err)
		}
		stop()
		if err := c.Start(t.Context()); err == nil {
			t.Errorf("Start after stop = nil, want an error")
		}
		if err := c.Watch(sendKeys(t)); err == nil || !strings.Contains(err.Error(), "controller stopped") {
			t.Errorf("Watch after stop = %v, want controller stopped", err)
		}
		if err := c.Watch(nil); err == nil {
			t.Errorf("Watch(nil) = nil, want an error")
		}
	})
}

func TestCacheSyncTimeoutNamesTheKind(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		srv.Deny("*", "list", "configmaps")
		srv.Deny("*", "watch", "configmaps")
		inf := startCMInformer(t, client)
		rec := newRecorder(nil)
		c := mustNew(t, "nosync", rec, Options{})
		mustWatch(t, c, Kind(inf.ObjectInformer(), EnqueueObject()))
		start := time.Now()
		err := c.Start(t.Context())
		if took := time.Since(start); took != DefaultCacheSyncTimeout {
			t.Errorf("Start failed after %v, want %v", took, DefaultCacheSyncTimeout)
		}
		var nse *cache.NotSyncedError
		if err == nil || !errors.As(err, &nse) || nse.Kind.Kind != "ConfigMap" ||
			!strings.Contains(err.Error(), "ConfigMap (v1)") || !strings.Contains(err.Error(), "CacheSyncTimeout 2m0s") ||
			!kube.IsForbidden(nse.LastError) {
			t.Errorf("Start = %v, want a NotSyncedError naming ConfigMap (v1), the timeout and the last error (Forbidden)", err)
		}
		if rec.total() != 0 {
			t.Errorf("%d reconciles before the sources synced, want 0", rec.total())
		}
	})
}

func TestStartFailsWhenASourceCannotRun(t *testing.T) {
	tests := []struct {
		name    string
		src     func(stopped cache.ObjectInformer) Source
		wantErr string
	}{
		{"nil cache source", func(cache.ObjectInformer) Source { return Kind(nil, EnqueueObject()) }, "watch kind <unknown>: cache source is nil"},
		{"nil handler", func(s cache.ObjectInformer) Source { return Kind(s, nil) }, "watch kind ConfigMap (v1): event handler is nil"},
		{"stopped informer", func(s cache.ObjectInformer) Source { return Kind(s, EnqueueObject()) }, "informer stopped"},
		{"nil channel", func(cache.ObjectInformer) Source { return Channel(nil, EnqueueObject()) }, "channel is nil"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, client := newServer(t)
				inf, err := cache.NewInformer[kube.ConfigMap](client, cache.InformerOptions{})
				if err != nil {
					t.Fatal(err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				_ = inf.Start(ctx) // stopped: it takes no more handlers
				c := mustNew(t, "bad", newRecorder(nil), Options{})
				mustWatch(t, c, tt.src(inf.ObjectInformer()))
				start := time.Now()
				err = c.Start(t.Context())
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || time.Since(start) != 0 {
					t.Errorf("Start = %v after %v, want an error containing %q at once", err, time.Since(start), tt.wantErr)
				}
			})
		})
	}
}

func TestStopWhileWaitingForSyncIsNotAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		srv.Deny("*", "list", "configmaps")
		srv.Deny("*", "watch", "configmaps")
		inf := startCMInformer(t, client)
		c := mustNew(t, "stopearly", newRecorder(nil), Options{})
		mustWatch(t, c, Kind(inf.ObjectInformer(), EnqueueObject()))
		stop := run(t, c.Start)
		time.Sleep(time.Second)
		if err := stop(); err != nil {
			t.Errorf("Start stopped while waiting for sync = %v, want nil", err)
		}
	})
}

func TestWatchAfterStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		for _, n := range []string{"a", "b", "c"} {
			createCM(t, srv, cm{ns: "default", name: n})
		}
		inf := startCMInformer(t, client)
		rec := newRecorder(nil)
		c := mustNew(t, "late", rec, Options{})
		startController(t, c)
		time.Sleep(time.Second)
		if err := c.Watch(Kind(inf.ObjectInformer(), EnqueueObject())); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got := rec.order(); !slices.Equal(slices.Sorted(slices.Values(got)), []string{"default/a", "default/b", "default/c"}) {
			t.Errorf("after a late Watch reconciled %v, want the three cached objects", got)
		}
		createCM(t, srv, cm{ns: "default", name: "d"})
		synctest.Wait()
		if n := rec.count(req("default", "d")); n != 1 {
			t.Errorf("object created after the late Watch reconciled %d times, want 1", n)
		}
	})
}

func TestWatchAfterStartLogsSyncTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		srv.Deny("*", "list", "configmaps")
		srv.Deny("*", "watch", "configmaps")
		inf := startCMInformer(t, client)
		var logs syncBuffer
		c := mustNew(t, "latenosync", newRecorder(nil), Options{Logger: jsonLogger(&logs), CacheSyncTimeout: time.Minute})
		startController(t, c)
		synctest.Wait() // running: the Watch below is a late one
		if err := c.Watch(Kind(inf.ObjectInformer(), EnqueueObject())); err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Minute)
		synctest.Wait()
		var found bool
		for _, r := range logs.records(t) {
			if r["msg"] == "source not synced within CacheSyncTimeout" && r["source"] == "kind ConfigMap (v1)" {
				found = true
			}
		}
		if !found {
			t.Errorf("no log that the late source did not sync")
		}
	})
}

// TestChangesGoBeforeTheInitialList checks the priorities: a change made
// while the initial list is being worked through is reconciled next.
func TestChangesGoBeforeTheInitialList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		for _, n := range names(50, "init") {
			createCM(t, srv, cm{ns: "default", name: n})
		}
		inf := startCMInformer(t, client)
		rec := newRecorder(func(context.Context, Request, int) (Result, error) {
			time.Sleep(time.Second)
			return Result{}, nil
		})
		c := mustNew(t, "priority", rec, Options{})
		mustWatch(t, c, Kind(inf.ObjectInformer(), EnqueueObject()))
		startController(t, c)
		time.Sleep(2500 * time.Millisecond)
		createCM(t, srv, cm{ns: "default", name: "new"})
		time.Sleep(time.Hour)
		synctest.Wait()
		order := rec.order()
		if i := slices.Index(order, "default/new"); i != 3 || len(order) != 51 {
			t.Errorf("the new object was reconciled %dth of %d, want 3rd (0-based) of 51: %v", i, len(order), order)
		}
	})
}
