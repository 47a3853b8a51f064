// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// Time behaviour under synctest: resync periods, the backoff against a
// failing server, watch timeouts (see also TestBookmarksOnly).

func TestResync(t *testing.T) {
	tests := []struct {
		name   string
		period time.Duration
		// at are the times since sync to look at, want the resyncs each
		// handler has seen by then (per object).
		at   []time.Duration
		want []int
	}{
		{"one hour ±10%", time.Hour, []time.Duration{53 * time.Minute, 67 * time.Minute, 107 * time.Minute, 133 * time.Minute}, []int{0, 1, 1, 2}},
		{"default 10h", 0, []time.Duration{8*time.Hour + 59*time.Minute, 11*time.Hour + time.Minute}, []int{0, 1}},
		{"off", -1, []time.Duration{48 * time.Hour}, []int{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				inf, rec := syncedInformer(t, srv, c, InformerOptions{SyncPeriod: tt.period}, 3)
				other := newRecorder(t)
				if _, err := inf.AddEventHandler(other); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				for n, at := range tt.at {
					time.Sleep(at - time.Since(start))
					synctest.Wait()
					for h, r := range []*recorder{rec, other} {
						r.mu.Lock()
						got := r.resyncs
						r.mu.Unlock()
						if got != 3*tt.want[n] {
							t.Errorf("handler %d at %v: %d resync updates, want %d", h, at, got, 3*tt.want[n])
						}
					}
				}
				checkConsistent(t, srv, inf, rec, other)
			})
		})
	}
}

// TestBackoffAgainstFailingServer: with every request failing, the
// reflector's retries slow to one per 15-30s, not one per second.
func TestBackoffAgainstFailingServer(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				srv.FailNext(1<<30, func(ri kubetest.RequestInfo) bool { return ri.Resource == "configmaps" },
					kube.NewStatusError(503, kube.ReasonServiceUnavailable, "unavailable"))
				inf := newCMInformer(t, c, mode.opts)
				startInformer(t, inf)
				time.Sleep(10 * time.Minute)
				synctest.Wait()
				n := srv.Count("list", "configmaps") + srv.Count("watch", "configmaps")
				// At most: 6 growing delays of at least half their nominal
				// value (12.4s), then 15s each: 6 + 587/15 ≈ 46. At least:
				// 6 delays of at most 51s, then 30s each: 6 + 549/30 ≈ 24.
				if n < 24 || n > 47 {
					t.Errorf("%d requests in 10 minutes against a failing server, want 24 to 47", n)
				}
				if inf.HasSynced() {
					t.Errorf("HasSynced = true against a failing server")
				}
			})
		})
	}
}

// TestPermanentGoneBacksOff: when every watch ends in 410 (a server whose
// history is always too short), consecutive relists back off from 800ms to
// 30s with jitter instead of following each other at once. Once the fault
// is lifted the cache catches up with what changed meanwhile, and after a
// healthy period the next 410 costs one relist within 800ms again.
func TestPermanentGoneBacksOff(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := kubetest.New(kubetest.Options{})
				t.Cleanup(srv.Close)
				// The client's default rate limit stays on, so that a storm
				// (the defect) is paced by it and counted, rather than
				// spinning without ever letting fake time pass.
				c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
				if err != nil {
					t.Fatal(err)
				}
				inf, rec := syncedInformer(t, srv, c, mode.opts, 10)
				time.Sleep(3 * time.Minute) // a healthy watch, so that the cut below is no failure
				undo := srv.ExpireWatches()
				srv.CutWatches()
				before := inf.stats().Relists
				for m := range 6 { // the server moves on during the storm
					time.Sleep(10 * time.Second)
					createCM(t, srv, "default", fmt.Sprintf("new%d", m), nil)
					deleteCM(t, srv, "default", fmt.Sprintf("cm%d", m))
				}
				synctest.Wait()
				// Relists after waits of [0.4, 0.8]s, [0.8, 1.6]s, ...
				// doubling to [15, 30]s: at the earliest at 0.4, 1.2, 2.8,
				// 6, 12.4, 25.2, 40.2 and 55.2s (8 in the minute), at the
				// latest at 0.8, 2.4, 5.6, 12, 24.8 and 50.4s (6).
				if n := inf.stats().Relists - before; n < 6 || n > 8 {
					t.Errorf("%d relists in a minute of 410s, want 6 to 8", n)
				}
				undo()
				time.Sleep(30 * time.Second) // the longest wait before the next round
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)

				// Healthy for longer than two minutes: the backoff starts
				// again at 800ms, and one 410 costs one relist.
				time.Sleep(3 * time.Minute)
				before = inf.stats().Relists
				srv.FailNext(1, isWatch, expired)
				srv.CutWatches()
				deleteCM(t, srv, "default", "cm9")
				time.Sleep(backoffInitial)
				synctest.Wait()
				if n := inf.stats().Relists - before; n != 1 {
					t.Errorf("%d relists within %v of a 410 after a healthy period, want 1", n, backoffInitial)
				}
				checkConsistent(t, srv, inf, rec)
				time.Sleep(time.Minute)
				synctest.Wait()
				if n := inf.stats().Relists - before; n != 1 {
					t.Errorf("%d relists in a minute after one 410, want 1", n)
				}
			})
		})
	}
}

// TestWatchTimeoutsAreSpread: watches end after 5 to 10 minutes, so that
// in an hour an informer opens 6 to 13 of them.
func TestWatchTimeoutsAreSpread(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		inf, _ := syncedInformer(t, srv, c, InformerOptions{}, 1)
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := inf.stats().WatchRequests; n < 6 || n > 13 {
			t.Errorf("%d watches in an hour, want 6 to 13", n)
		}
		if n := srv.Count("list", "configmaps"); n != 1 {
			t.Errorf("%d lists in an hour, want 1", n)
		}
	})
}

func TestBackoff(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		gaps []time.Duration // time since the previous failure, per failure
		r    float64
		want []time.Duration
	}{
		{"doubles from 800ms, upper end", []time.Duration{0, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second},
			0.999999999,
			[]time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond,
				12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}},
		{"lower end is half", []time.Duration{0, time.Second, time.Second}, 0,
			[]time.Duration{400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond}},
		{"resets after two quiet minutes", []time.Duration{0, time.Second, time.Second, 2 * time.Minute, time.Second}, 0,
			[]time.Duration{400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b backoff
			now := t0
			for i, gap := range tt.gaps {
				now = now.Add(gap)
				got := b.next(now, tt.r)
				if diff := got - tt.want[i]; diff < -time.Millisecond || diff > time.Millisecond {
					t.Errorf("failure %d: next = %v, want %v", i+1, got, tt.want[i])
				}
			}
		})
	}
}

func TestBackoffNeverExceedsCap(t *testing.T) {
	var b backoff
	now := time.Now()
	for i := range 200 {
		now = now.Add(time.Second)
		if d := b.next(now, jitter()); d > backoffMax || d < backoffInitial/2 {
			t.Fatalf("failure %d: next = %v, want within [%v, %v]", i+1, d, backoffInitial/2, backoffMax)
		}
	}
}

func TestResyncDelay(t *testing.T) {
	for _, r := range []float64{0, 0.5, 0.9999} {
		d := resyncDelay(10*time.Hour, r)
		if d < 9*time.Hour || d >= 11*time.Hour {
			t.Errorf("resyncDelay(10h, %v) = %v, want within [9h, 11h)", r, d)
		}
	}
	if got := resyncDelay(10*time.Hour, 0.5); got != 10*time.Hour {
		t.Errorf("resyncDelay(10h, 0.5) = %v, want 10h", got)
	}
}

func TestWatchTimeout(t *testing.T) {
	tests := []struct {
		r    float64
		want int64
	}{{0, 300}, {0.5, 450}, {0.9999, 599}}
	for _, tt := range tests {
		if got := watchTimeout(tt.r); got != tt.want {
			t.Errorf("watchTimeout(%v) = %d, want %d", tt.r, got, tt.want)
		}
	}
}
