// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"maps"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// Durations of the scenarios: the defaults.
const (
	ld = DefaultLeaseDuration
	rd = DefaultRenewDeadline
	rp = DefaultRetryPeriod
	// poll is the longest wait of a candidate between attempts.
	poll = rp
)

func TestSingleCandidate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a")
		a := c.start("a", nil)
		tm := c.waitTerm(0, time.Second)
		if tm.id != "a" || tm.start.Sub(c.t0) > 100*time.Millisecond {
			t.Fatalf("first term = %s at +%v, want a at once", tm.id, tm.start.Sub(c.t0))
		}
		select {
		case <-a.e.Elected():
		default:
			t.Error("Elected() is open after the first term started")
		}
		if !a.e.IsLeader() || a.e.Leader() != "a" {
			t.Errorf("IsLeader, Leader = %v, %q, want true, a", a.e.IsLeader(), a.e.Leader())
		}

		l := c.lease()
		s := l.Spec
		if *s.HolderIdentity != "a" || *s.LeaseDurationSeconds != 15 || *s.LeaseTransitions != 0 ||
			!s.AcquireTime.Equal(s.RenewTime.Time) || s.RenewTime.Sub(c.t0) > 100*time.Millisecond {
			t.Errorf("created lease spec = holder %q, %ds, transitions %d, acquire %v, renew %v; want a, 15, 0, now, now",
				*s.HolderIdentity, *s.LeaseDurationSeconds, *s.LeaseTransitions, s.AcquireTime, s.RenewTime)
		}

		// Renews every RetryPeriod: after a minute, renewTime is within one
		// period of now and acquireTime has not moved.
		time.Sleep(time.Minute)
		s = c.lease().Spec
		if age := time.Since(s.RenewTime.Time); age > rp+100*time.Millisecond {
			t.Errorf("renewTime is %v old after a minute, want at most RetryPeriod %v", age, rp)
		}
		if !s.AcquireTime.Equal(tm.start.Truncate(time.Microsecond)) && s.AcquireTime.Sub(c.t0) > 100*time.Millisecond {
			t.Errorf("acquireTime moved to +%v while renewing", s.AcquireTime.Sub(c.t0))
		}
		if err := a.e.Check(20 * time.Second); err != nil {
			t.Errorf("Check(20s) of a renewing leader = %v, want nil", err)
		}

		if err := a.halt(); err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
		if a.e.IsLeader() {
			t.Error("IsLeader after Run returned = true")
		}
		if h := c.history(); h[0].end.IsZero() {
			t.Error("the term's context was not cancelled")
		}
		a.mu.Lock()
		stopped, seen := a.stopped, a.newLeaders
		a.mu.Unlock()
		if stopped != 1 || len(seen) != 1 || seen[0] != "a" {
			t.Errorf("OnStoppedLeading calls, OnNewLeader = %d, %q; want 1, [a]", stopped, seen)
		}
		if h := *c.lease().Spec.HolderIdentity; h != "a" {
			t.Errorf("holder after cancel without ReleaseOnCancel = %q, want a (not released)", h)
		}
		if err := a.e.Run(t.Context()); err == nil {
			t.Error("second Run = nil, want an error")
		}
	})
}

func TestOneLeaderAmongMany(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(string(rune('0'+n)), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ids := []string{"a", "b", "c"}[:n]
				c := newCluster(t, ids...)
				for _, id := range ids {
					c.start(id, nil)
				}
				first := c.waitTerm(0, time.Second)
				time.Sleep(5 * time.Minute)
				if h := c.history(); len(h) != 1 {
					t.Fatalf("terms = %+v, want one term for five minutes", h)
				}
				for _, id := range ids {
					cd := c.byID(id)
					if got, want := cd.e.IsLeader(), id == first.id; got != want {
						t.Errorf("%s.IsLeader() = %v, want %v", id, got, want)
					}
					if got := cd.e.Leader(); got != first.id {
						t.Errorf("%s.Leader() = %q, want %q", id, got, first.id)
					}
					cd.mu.Lock()
					seen := cd.newLeaders
					cd.mu.Unlock()
					if len(seen) != 1 || seen[0] != first.id {
						t.Errorf("%s saw new leaders %q, want [%s]", id, seen, first.id)
					}
				}
				if got := *c.lease().Spec.LeaseTransitions; got != 0 {
					t.Errorf("leaseTransitions = %d, want 0", got)
				}
			})
		})
	}
}

// TestWireFormat checks the Lease as the server stores it, field by field,
// against shared/wire/24-create-lease.txt: microsecond times in UTC, the
// duration in seconds, and, after a release, an empty holderIdentity.
func TestWireFormat(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a")
		a := c.start("a", func(cfg *Options) { cfg.ReleaseOnCancel = true })
		c.waitTerm(0, time.Second)
		spec := func() map[string]any {
			u := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}}
			if err := c.admin().Get(context.Background(), kube.Key{Namespace: "default", Name: testLease}, u); err != nil {
				t.Fatal(err)
			}
			s, _ := u.Field("spec")
			m, _ := s.(map[string]any)
			return m
		}
		want := map[string]any{"holderIdentity": "a", "leaseDurationSeconds": 15.0,
			"acquireTime": "2000-01-01T00:00:00.000000Z", "renewTime": "2000-01-01T00:00:00.000000Z", "leaseTransitions": 0.0}
		if got := spec(); !maps.Equal(got, want) {
			t.Errorf("created spec = %v, want %v", got, want)
		}
		time.Sleep(3500 * time.Millisecond)
		want["renewTime"] = "2000-01-01T00:00:02.000000Z"
		if got := spec(); !maps.Equal(got, want) {
			t.Errorf("renewed spec = %v, want %v", got, want)
		}
		released := time.Now().UTC().Format("2006-01-02T15:04:05.000000Z") // 3.51s: waitTerm polls every 10ms
		a.halt()
		want = map[string]any{"holderIdentity": "", "leaseDurationSeconds": 1.0,
			"acquireTime": released, "renewTime": released, "leaseTransitions": 0.0}
		if got := spec(); !maps.Equal(got, want) {
			t.Errorf("released spec = %v, want %v", got, want)
		}
	})
}
