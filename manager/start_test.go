// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

func TestStartAndStopOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createCM(t, srv, "default", "seed")
		l := &ledger{}
		logs := newLogRecorder()
		webhook := &probe{name: "webhook", l: l}
		m := newTestManager(t, srv, func(o *Options) {
			o.Logger = slog.New(logs)
			o.WebhookServer = webhook
			o.Cache.ByObject = []cache.ByObject{{Object: &kube.ConfigMap{}}}
		})
		informer := &cacheProbe{probe: probe{name: "informer", l: l}, syncAfter: time.Second}
		other := &probe{name: "other", l: l, onStart: func(context.Context) {
			if !l.has("synced informer") || !m.synced.Load() {
				t.Errorf("other started before the caches synced")
			}
			if m.Cache().Stats()[0].Objects != 1 {
				t.Errorf("other started before the ConfigMap cache held the seed")
			}
		}}
		// Within a group, and from one group to the next, the order in
		// which Start is called is the launch order the log shows; the
		// goroutines then run in any order. Syncing is a barrier.
		leader := &probe{name: "leader", l: l, needs: true, onStart: func(context.Context) {
			if !l.has("synced informer") {
				t.Errorf("leader started before the caches synced")
			}
		}}
		for _, r := range []Runnable{leader, other, informer} { // added in the wrong order on purpose
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		run := start(t, m)
		time.Sleep(2 * time.Second) // the informer probe syncs after 1s
		synctest.Wait()
		select {
		case <-m.Elected():
		default:
			t.Fatal("Elected not closed without leader election")
		}
		var launched []string
		for _, line := range logs.matching("starting runnable") {
			f := strings.Fields(line)
			launched = append(launched, strings.TrimPrefix(f[len(f)-1], "group=")+" "+strings.Trim(strings.TrimPrefix(f[2], "runnable="), `"\`))
		}
		wantLaunched := []string{"webhooks webhook", "caches *cache.Cache", "caches informer", "others other", "leader-election leader"}
		if !reflect.DeepEqual(launched, wantLaunched) {
			t.Errorf("launch order = %q, want %q", launched, wantLaunched)
		}
		if got, want := l.matching("start"), []string{"start webhook", "start informer", "start other", "start leader"}; !sameSet(got, want) {
			t.Errorf("started = %q, want %q", got, want)
		}

		if err := run.stop(); err != nil {
			t.Fatalf("Start = %v, want nil", err)
		}
		if got, want := l.matching("stop"), []string{"stop leader", "stop other", "stop informer", "stop webhook"}; !reflect.DeepEqual(got, want) {
			t.Errorf("stop order = %q, want %q", got, want)
		}
		if m.synced.Load() {
			t.Error("cache-sync still reports synced after the stop")
		}
	})
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestAddAfterStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		l := &ledger{}
		run := start(t, m)
		synctest.Wait()
		for _, r := range []Runnable{
			&probe{name: "late-leader", l: l, needs: true},
			&probe{name: "late-other", l: l},
			&cacheProbe{probe: probe{name: "late-cache", l: l}},
		} {
			if err := m.Add(r); err != nil {
				t.Fatalf("Add after Start: %v", err)
			}
		}
		synctest.Wait()
		if got, want := l.matching("start"), []string{"start late-leader", "start late-other", "start late-cache"}; !sameSet(got, want) {
			t.Errorf("started = %q, want %q", got, want)
		}
		if err := run.stop(); err != nil {
			t.Fatalf("Start = %v, want nil", err)
		}
		if got, want := l.matching("stop"), []string{"stop late-leader", "stop late-other", "stop late-cache"}; !reflect.DeepEqual(got, want) {
			t.Errorf("stop order = %q, want %q", got, want)
		}
		err := m.Add(&probe{name: "too-late", l: l})
		if err == nil || !errors.Is(err, errStopped) {
			t.Errorf("Add after stop = %v, want an error saying the manager stopped", err)
		}
		if err := m.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "called before") {
			t.Errorf("second Start = %v, want an error", err)
		}
	})
}

func TestFailingRunnableStopsTheManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		l := &ledger{}
		boom := errors.New("boom")
		failing := &probe{name: "failing", l: l, needs: true, err: boom, fail: true, onStart: func(context.Context) {
			time.Sleep(5 * time.Second)
		}}
		for _, r := range []Runnable{failing, &probe{name: "other", l: l}, &probe{name: "leader", l: l, needs: true}} {
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		t0 := time.Now()
		run := start(t, m)
		<-run.done
		if !errors.Is(run.err, boom) || !strings.Contains(run.err.Error(), `run "failing"`) {
			t.Errorf("Start = %v, want the runnable's error, naming it", run.err)
		}
		if d := time.Since(t0); d != 5*time.Second {
			t.Errorf("Start returned after %v, want 5s", d)
		}
		if got, want := l.matching("stop"), []string{"stop leader", "stop other"}; !reflect.DeepEqual(got, want) {
			t.Errorf("stopped = %q, want %q", got, want)
		}
	})
}

func TestContextErrorAfterStopIsNotAFailure(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		if err := m.Add(RunnableFunc(func(ctx context.Context) error {
			<-ctx.Done()
			return ctx.Err()
		})); err != nil {
			t.Fatal(err)
		}
		run := start(t, m)
		synctest.Wait()
		if err := run.stop(); err != nil {
			t.Errorf("Start = %v, want nil: a runnable returning its context's error is not failing", err)
		}
	})
}

func TestGracefulShutdownTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, func(o *Options) { o.GracefulShutdownTimeout = 7 * time.Second })
		l := &ledger{}
		stuck := &probe{name: "stuck", l: l, needs: true, hang: make(chan struct{})}
		defer close(stuck.hang) // let it go at the end, so the bubble can end
		polite := &probe{name: "polite", l: l}
		for _, r := range []Runnable{stuck, polite} {
			if err := m.Add(r); err != nil {
				t.Fatal(err)
			}
		}
		run := start(t, m)
		synctest.Wait()
		t0 := time.Now()
		err := run.stop()
		if d := time.Since(t0); d != 7*time.Second {
			t.Errorf("Start returned %v after the stop, want GracefulShutdownTimeout 7s", d)
		}
		if err == nil || !strings.Contains(err.Error(), `"stuck" (*manager.probe) in group leader-election`) ||
			!strings.Contains(err.Error(), "GracefulShutdownTimeout 7s") {
			t.Errorf("Start = %v, want an error naming the stuck runnable and the timeout", err)
		}
		if strings.Contains(err.Error(), "polite") {
			t.Errorf("Start = %v names a runnable that stopped", err)
		}
		// The stages after the stuck one were cancelled but not waited
		// for: those that had not returned yet are listed as such.
		if _, unwaited, ok := strings.Cut(err.Error(), "then stopped without waiting: "); ok && strings.Contains(unwaited, "leader") {
			t.Errorf("Start = %v lists a stage waited for as unwaited", err)
		}
		synctest.Wait()
		if !l.has("stop polite") {
			t.Error("the other runnables were not stopped after the timeout")
		}
	})
}

func TestCacheStartFailureStopsTheManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		unknown := &kube.PartialObjectMetadata{TypeMeta: kube.TypeMeta{APIVersion: "example.com/v1", Kind: "Nothing"}}
		m := newTestManager(t, srv, func(o *Options) { o.Cache.ByObject = []cache.ByObject{{Object: unknown}} })
		l := &ledger{}
		if err := m.Add(&probe{name: "other", l: l}); err != nil {
			t.Fatal(err)
		}
		run := start(t, m)
		<-run.done
		if run.err == nil || !strings.Contains(run.err.Error(), "Nothing") {
			t.Errorf("Start = %v, want the cache's discovery error", run.err)
		}
		if l.has("start other") {
			t.Error("a runnable started although the caches never synced")
		}
	})
}

func TestAddController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		l := &ledger{}
		if err := m.AddController("widget", &probe{name: "widget", l: l, needs: true}); err != nil {
			t.Fatal(err)
		}
		err := m.AddController("widget", &probe{name: "widget2", l: l})
		if err == nil || !strings.Contains(err.Error(), `"widget"`) {
			t.Errorf("AddController with a taken name = %v, want an error naming it", err)
		}
		if err := m.AddController("", &probe{l: l}); err == nil {
			t.Error("AddController with an empty name = nil, want an error")
		}
		if err := m.Add(nil); err == nil {
			t.Error("Add(nil) = nil, want an error")
		}
		run := start(t, m)
		synctest.Wait()
		if got := l.matching("start"); !reflect.DeepEqual(got, []string{"start widget"}) {
			t.Errorf("started = %q, want only the first widget", got)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}
