// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// freshEnv is a cache over a kubetest server whose watches lag, with a
// client whose writes the cache records, wired by NewCluster.
type freshEnv struct {
	srv    *kubetest.Server
	client *kube.Client
	cache  *Cache
	ctx    context.Context
}

// newFreshEnv starts the cache (inside the caller's synctest bubble) with
// ConfigMaps synced, and makes every watch event lag by lag.
func newFreshEnv(t *testing.T, opts Options, lag time.Duration) *freshEnv {
	t.Helper()
	srv := newBareServer(t, kubetest.Options{})
	e := &freshEnv{srv: srv}
	cfg := srv.Config()
	cfg.QPS = -1
	cl, err := NewCluster(cfg, kube.ClientOptions{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.client, e.cache = cl.APIClient(), cl.Cache()
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	e.ctx = ctx
	go e.cache.Start(ctx)
	synctest.Wait()
	if err := e.cache.Get(ctx, kube.Key{Namespace: "default", Name: "none"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
		t.Fatalf("first read: %v, want not found", err)
	}
	synctest.Wait() // the informer's watch open, after its list
	if lag > 0 {
		t.Cleanup(srv.LagWatches("", lag, lag))
	}
	return e
}

func (e *freshEnv) stats(t *testing.T) Stats {
	t.Helper()
	for _, s := range e.cache.Stats() {
		if s.Kind.Kind == "ConfigMap" {
			return s
		}
	}
	t.Fatal("no ConfigMap informer")
	return Stats{}
}

// TestReadYourWrites: with watch events a second late, a Get or List right
// after a write through the client sees it (having waited about the lag),
// for creates, updates, deletes and deletes held by finalizers; without
// the waits (MaxFreshWait < 0) the same reads see the old state.
func TestReadYourWrites(t *testing.T) {
	for _, on := range []bool{true, false} {
		name := map[bool]string{true: "waits", false: "off"}[on]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				opts := Options{}
				if !on {
					opts.MaxFreshWait = -1
				}
				e := newFreshEnv(t, opts, time.Second)
				key := kube.Key{Namespace: "default", Name: "a"}
				cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"v": "1"}}
				if err := e.client.Create(e.ctx, cm); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				var got kube.ConfigMap
				err := e.cache.Get(e.ctx, key, &got)
				if on && (err != nil || got.Data["v"] != "1") {
					t.Fatalf("Get after create = %v %v, want v=1", got.Data, err)
				}
				if !on && !kube.IsNotFound(err) {
					t.Fatalf("Get after create with waits off = %v, want not found (the scenario shows nothing)", err)
				}
				if d := time.Since(start); on && d != time.Second {
					t.Errorf("Get waited %v, want the watch's lag, 1s", d)
				}
				synctest.Wait()
				time.Sleep(2 * time.Second) // let the cache catch up for the next step

				cm.Data = map[string]string{"v": "2"}
				if err := e.client.Update(e.ctx, cm); err != nil {
					t.Fatal(err)
				}
				var list kube.List[kube.ConfigMap]
				if err := e.cache.List(e.ctx, &list, kube.ListOptions{Namespace: "default", LabelSelector: kube.SelectorFromSet(map[string]string{"app": "x"})}); err != nil {
					t.Fatal(err)
				}
				if v := list.Items[0].Data["v"]; on != (v == "2") {
					t.Errorf("List after update: v=%s (waits %v)", v, on)
				}
				time.Sleep(2 * time.Second)

				if err := e.client.Delete(e.ctx, cm); err != nil {
					t.Fatal(err)
				}
				err = e.cache.Get(e.ctx, key, &got)
				if on != kube.IsNotFound(err) {
					t.Errorf("Get after delete = %v (waits %v)", err, on)
				}
				if err := e.cache.List(e.ctx, &list, kube.ListOptions{Namespace: "default"}); err != nil {
					t.Fatal(err)
				}
				if on != (len(list.Items) == 0) {
					t.Errorf("List after delete = %d items (waits %v)", len(list.Items), on)
				}
				time.Sleep(2 * time.Second)

				held := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "held", Finalizers: []string{"example.com/hold"}}}
				if err := e.client.Create(e.ctx, held); err != nil {
					t.Fatal(err)
				}
				time.Sleep(2 * time.Second)
				if err := e.client.Delete(e.ctx, held); err != nil {
					t.Fatal(err)
				}
				err = e.cache.Get(e.ctx, kube.Key{Namespace: "default", Name: "held"}, &got)
				if marked := err == nil && got.DeletionTimestamp != nil; on != marked {
					t.Errorf("Get after a delete held by a finalizer: deletionTimestamp %v, %v (waits %v)", got.DeletionTimestamp, err, on)
				}

				st := e.stats(t)
				if on && (st.Fresh.Waited == 0 || st.Fresh.WaitSeconds.Count != st.Fresh.Waited || st.Fresh.GaveUp != 0) {
					t.Errorf("Stats.Fresh = %+v, want waits counted, none given up", st.Fresh)
				}
				if !on && st.Fresh.Waited != 0 {
					t.Errorf("Stats.Fresh = %+v with the waits off", st.Fresh)
				}
				if st.LastResourceVersion == "" {
					t.Error("Stats.LastResourceVersion is empty")
				}
			})
		})
	}
}

// TestReadYourWritesBound: a read whose write the watch delivers later
// than MaxFreshWait answers from the cache as it is once the bound
// passes, with no error, and is counted as given up.
func TestReadYourWritesBound(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{MaxFreshWait: 300 * time.Millisecond}, time.Minute)
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}}
		if err := e.client.Create(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := e.cache.Get(e.ctx, kube.Key{Namespace: "default", Name: "a"}, &kube.ConfigMap{})
		if !kube.IsNotFound(err) || time.Since(start) != 300*time.Millisecond {
			t.Errorf("Get = %v after %v, want not found after the 300ms bound", err, time.Since(start))
		}
		if st := e.stats(t); st.Fresh.GaveUp != 1 {
			t.Errorf("Stats.Fresh.GaveUp = %d, want 1", st.Fresh.GaveUp)
		}
		// A read whose context ends first returns at once, uncounted.
		ctx, cancel := context.WithTimeout(e.ctx, 100*time.Millisecond)
		defer cancel()
		err = e.cache.Get(ctx, kube.Key{Namespace: "default", Name: "a"}, &kube.ConfigMap{})
		if !kube.IsNotFound(err) {
			t.Errorf("Get with a short context = %v, want not found", err)
		}
		if st := e.stats(t); st.Fresh.GaveUp != 1 {
			t.Errorf("Stats.Fresh.GaveUp = %d after a read whose context ended, want still 1", st.Fresh.GaveUp)
		}
	})
}

// TestReadDoesNotWaitForLaterWrites: a read waits only for the writes
// answered before it began, not for one answered while it waits.
func TestReadDoesNotWaitForLaterWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{}, time.Second)
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}, Data: map[string]string{"v": "1"}}
		if err := e.client.Create(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(500 * time.Millisecond)
			cm.Data["v"] = "2"
			if err := e.client.Update(e.ctx, cm); err != nil {
				t.Error(err)
			}
		}()
		start := time.Now()
		var got kube.ConfigMap
		if err := e.cache.Get(e.ctx, kube.Key{Namespace: "default", Name: "a"}, &got); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != time.Second || got.Data["v"] != "1" {
			t.Errorf("Get = v=%s after %v, want v=1 after 1s (not the 1.5s of the later update)", got.Data["v"], d)
		}
	})
}

// TestWritesForgotten: what the cache remembers of its writes is bounded
// by the writes it has not seen: after 1000 creates, each seen before the
// next, at most one sweep's worth is left.
func TestWritesForgotten(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{}, 0)
		for i := range 1000 {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("n%04d", i)}}
			if err := e.client.Create(e.ctx, cm); err != nil {
				t.Fatal(err)
			}
			synctest.Wait()
		}
		if n := e.cache.writes.count.Load(); n > minSweep {
			t.Errorf("%d writes remembered after 1000 writes the cache has seen, want at most %d", n, minSweep)
		}
	})
}

// TestOpaqueVersionsFailOpen: a reflector that read a resourceVersion that
// is not a decimal integer makes reads answer at once, counted and never
// an error.
func TestOpaqueVersionsFailOpen(t *testing.T) {
	var p progress
	m := p.join("")
	p.advance(m, "12")
	if ok, comparable := p.seen("", 12); !ok || !comparable {
		t.Errorf("seen(12) after 12 = %v, %v, want true, true", ok, comparable)
	}
	if ok, comparable := p.seen("ns", 13); ok || !comparable {
		t.Errorf("seen(13) after 12 = %v, %v, want false, true", ok, comparable)
	}
	p.advance(m, "opaque-9f")
	if ok, comparable := p.seen("", 13); ok || comparable {
		t.Errorf("seen(13) after an opaque version = %v, %v, want false, false", ok, comparable)
	}
	inf := &informer{source: source{log: slog.New(slog.DiscardHandler)}, store: newStore(nil)}
	inf.progress.marks = p.marks
	w := written{rv: 13}
	if got := inf.await(t.Context(), time.Now().Add(time.Hour), func() (bool, bool) { return objectSeen(inf, kube.Key{Name: "x"}, w) }); got != gaveUp {
		t.Errorf("await on an opaque informer = %v, want given up at once", got)
	}
	if st := inf.fresh.snapshot(); st.Opaque != 1 {
		t.Errorf("Opaque = %d, want 1", st.Opaque)
	}
	if _, ok := parseRV("12a"); ok {
		t.Error(`parseRV("12a") is ok`)
	}
}

// TestReadYourDeleteAllOf: a List after a DeleteAllOf through the client
// lists none of the objects it deleted.
func TestReadYourDeleteAllOf(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{}, 0)
		for _, name := range []string{"a", "b", "c"} {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name, Labels: map[string]string{"app": "x"}}}
			if err := e.client.Create(e.ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
		synctest.Wait()
		defer e.srv.LagWatches("", time.Second, time.Second)()
		sel := kube.SelectorFromSet(map[string]string{"app": "x"})
		if err := e.client.DeleteAllOf(e.ctx, kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			kube.DeleteAllOfOptions{Namespace: "default", LabelSelector: sel}); err != nil {
			t.Fatal(err)
		}
		var list kube.List[kube.ConfigMap]
		if err := e.cache.List(e.ctx, &list, kube.ListOptions{Namespace: "default", LabelSelector: sel}); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 0 {
			t.Errorf("List after DeleteAllOf = %d items, want none", len(list.Items))
		}
	})
}

// BenchmarkRecordWrite measures what remembering a write costs: time, and
// bytes held per write not yet seen (writes to distinct objects, none of
// them seen, so that all stay remembered).
func BenchmarkRecordWrite(b *testing.B) {
	var ws writes
	ws.sweepAt = 1 << 62 // no sweeps: measure the records themselves
	gvk := kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	owner := []kube.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "u"}}
	labels := map[string]string{"app": "demo"}
	names := make([]string, b.N)
	for n := range names {
		names[n] = fmt.Sprintf("object-%08d", n)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for n := range b.N {
		ws.add(kube.Written{Kind: gvk, Key: kube.Key{Namespace: "default", Name: names[n]},
			ResourceVersion: strconv.Itoa(1000 + n), Labels: labels, Owners: owner}, limits{count: 1 << 62, bytes: 1 << 62})
	}
	b.StopTimer()
	runtime.GC()
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(b.N), "bytes/write")
	runtime.KeepAlive(&ws)
}
