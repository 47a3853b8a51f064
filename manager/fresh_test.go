// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestClientReadsOwnWrites: with watch events a second late, a Get
// through the manager's Client right after a Create through it finds the
// object, having waited the lag; the wait shows in
// kubeloop_cache_fresh_waits_total and _wait_seconds, and a read with
// nothing pending does not wait; kubeloop_cache_fresh_records shows the
// write forgotten once seen.
func TestClientReadsOwnWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		run := start(t, m)
		defer run.stop()
		synctest.Wait()
		ctx := t.Context()
		c := m.Client()
		var got kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "first"}, &got); !kube.IsNotFound(err) {
			t.Fatalf("first read: %v, want not found", err)
		}
		synctest.Wait() // the informer's watch open, after its list
		defer srv.LagWatches("", time.Second, time.Second)()
		if err := c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "a"}, &got); err != nil {
			t.Fatalf("Get after Create: %v", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("Get waited %v, want the watch's lag (1s)", d)
		}
		start = time.Now()
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "a"}, &got); err != nil || time.Since(start) != 0 {
			t.Errorf("second Get: %v after %v, want at once", err, time.Since(start))
		}
		fams := scrape(t, m)
		labels := []string{"group", "", "version", "v1", "kind", "ConfigMap"}
		if s, ok := sample(fams, "kubeloop_cache_fresh_waits_total", labels...); !ok || s.Value != 1 {
			t.Errorf("kubeloop_cache_fresh_waits_total = %v (found %v), want 1", s.Value, ok)
		}
		if s, ok := sample(fams, "kubeloop_cache_fresh_wait_seconds", labels...); !ok || s.Histogram.Count != 1 || s.Histogram.Sum != 1 {
			t.Errorf("kubeloop_cache_fresh_wait_seconds = %+v, want one wait of 1s", s.Histogram)
		}
		if s, ok := sample(fams, "kubeloop_cache_fresh_gave_up_total", labels...); !ok || s.Value != 0 {
			t.Errorf("kubeloop_cache_fresh_gave_up_total = %v (found %v), want 0", s.Value, ok)
		}
		// The write, seen, is forgotten; none was dropped unseen.
		if s, ok := sample(fams, "kubeloop_cache_fresh_records"); !ok || s.Value != 0 {
			t.Errorf("kubeloop_cache_fresh_records = %v (found %v), want 0", s.Value, ok)
		}
		if s, ok := sample(fams, "kubeloop_cache_fresh_records_dropped_total"); !ok || s.Value != 0 {
			t.Errorf("kubeloop_cache_fresh_records_dropped_total = %v (found %v), want 0", s.Value, ok)
		}
	})
}
