// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// The failover scenarios: the leader dies (killed, partitioned, stuck, or
// it releases the Lease), and a successor must take over late enough that
// the two terms never overlap and early enough to meet the bound.
//
// Bounds, with L = LeaseDuration, D = RenewDeadline and P = RetryPeriod,
// for a leader that dies at k after its last successful renew sent at r
// (k - P < r <= k):
//   - a candidate sees that renew at its next poll, o in [r, r + P], and
//     acquires at o + L: so in [r + L, k + L + P];
//   - a partitioned leader ends its term at r + D, at least L - D before
//     any successor;
//   - a released Lease is taken at the next poll: within P.

// kills is how many kill times each failover scenario tries, spread over a
// renew period so the kill falls at every phase of the leader's renewals.
const kills = 8

// failoverStats collects measured failover times.
type failoverStats struct {
	what string
	min  time.Duration
	max  time.Duration
	sum  time.Duration
	n    int
}

func (s *failoverStats) add(d time.Duration) {
	if s.n == 0 || d < s.min {
		s.min = d
	}
	s.max = max(s.max, d)
	s.sum += d
	s.n++
}

func (s *failoverStats) report(t *testing.T) {
	if s.n > 0 {
		t.Logf("%s: failover over %d runs: min %v, mean %v, max %v (fake time)", s.what, s.n, s.min, s.sum/time.Duration(s.n), s.max)
	}
}

func TestFailoverAfterKill(t *testing.T) {
	for _, n := range []int{2, 3} {
		stats := &failoverStats{what: fmt.Sprintf("kill, %d candidates", n)}
		for i := range kills {
			t.Run(fmt.Sprintf("%d candidates/kill at +%v", n, offset(i)), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					ids := []string{"a", "b", "c"}[:n]
					c := newCluster(t, ids...)
					for _, id := range ids {
						c.start(id, nil)
					}
					first := c.waitTerm(0, time.Second)
					time.Sleep(30*time.Second + offset(i))
					renewed := c.lease().Spec.RenewTime.Time
					killed := time.Now()
					if err := c.byID(first.id).halt(); err != nil {
						t.Fatalf("Run of the killed leader = %v, want nil", err)
					}
					next := c.waitTerm(1, ld+poll+time.Second)
					if next.id == first.id {
						t.Fatalf("the killed leader %s led again", first.id)
					}
					failover := next.start.Sub(killed)
					stats.add(failover)
					if failover > ld+poll {
						t.Errorf("successor led %v after the kill, want at most L + P = %v", failover, ld+poll)
					}
					if waited := next.start.Sub(renewed); waited < ld {
						t.Errorf("successor led %v after the last renew, want at least LeaseDuration %v", waited, ld)
					}
					if got := *c.lease().Spec.LeaseTransitions; got != 1 {
						t.Errorf("leaseTransitions = %d, want 1", got)
					}
				})
			})
		}
		stats.report(t)
	}
}

// offset is the i-th kill time within one renew period.
func offset(i int) time.Duration { return time.Duration(i) * rp / kills }

func TestFailoverAfterPartition(t *testing.T) {
	stats := &failoverStats{what: "partition, 3 candidates"}
	for i := range kills {
		t.Run(fmt.Sprintf("cut at +%v", offset(i)), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(t, "a", "b", "c")
				for _, id := range []string{"a", "b", "c"} {
					c.start(id, nil)
				}
				first := c.waitTerm(0, time.Second)
				time.Sleep(30*time.Second + offset(i))
				old := c.byID(first.id)
				cut := time.Now()
				old.link.cut()
				next := c.waitTerm(1, ld+poll+time.Second)
				ended := c.history()[0].end
				old.e.mu.Lock()
				renewed := old.e.renewed
				old.e.mu.Unlock()

				if got := ended.Sub(renewed); got != rd {
					t.Errorf("partitioned leader's term ended %v after its last renew, want exactly RenewDeadline %v", got, rd)
				}
				if gap := next.start.Sub(ended); gap < ld-rd {
					t.Errorf("successor started %v after the old term ended, want at least L - D = %v", gap, ld-rd)
				}
				failover := next.start.Sub(cut)
				stats.add(failover)
				if failover > ld+poll {
					t.Errorf("successor led %v after the cut, want at most %v", failover, ld+poll)
				}
				c.await(old, time.Minute)
				if !isLost(old.err) || !strings.Contains(old.err.Error(), "RenewDeadline") {
					t.Errorf("Run of the partitioned leader = %v, want leadership lost for RenewDeadline", old.err)
				}
				if err := old.e.Check(20 * time.Second); err != nil {
					t.Errorf("Check after the term ended = %v, want nil", err)
				}
				old.mu.Lock()
				stopped := old.stopped
				old.mu.Unlock()
				if stopped != 1 {
					t.Errorf("OnStoppedLeading calls = %d, want 1", stopped)
				}
			})
		})
	}
	stats.report(t)
}

func TestReleaseOnCancel(t *testing.T) {
	stats := &failoverStats{what: "release on cancel, 2 candidates"}
	for i := range kills {
		t.Run(fmt.Sprintf("cancel at +%v", offset(i)), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(t, "a", "b")
				release := func(cfg *Options) { cfg.ReleaseOnCancel = true }
				c.start("a", release)
				first := c.waitTerm(0, time.Second)
				c.start("b", release)
				time.Sleep(30*time.Second + offset(i))
				old := c.byID(first.id)
				cancelled := time.Now()
				if err := old.halt(); err != nil {
					t.Fatalf("Run of the releasing leader = %v, want nil", err)
				}
				s := c.lease().Spec
				if *s.HolderIdentity != "" || *s.LeaseDurationSeconds != 1 || !s.RenewTime.Equal(s.AcquireTime.Time) ||
					s.RenewTime.Sub(cancelled) > 100*time.Millisecond || *s.LeaseTransitions != 0 {
					t.Errorf("released lease = holder %q, %ds, acquire %v, renew %v, transitions %d; want \"\", 1s, now, now, 0",
						*s.HolderIdentity, *s.LeaseDurationSeconds, s.AcquireTime, s.RenewTime, *s.LeaseTransitions)
				}
				old.mu.Lock()
				seen := old.newLeaders
				old.mu.Unlock()
				if len(seen) != 2 || seen[0] != "a" || seen[1] != "" {
					t.Errorf("releasing leader saw new leaders %q, want [a \"\"]", seen)
				}
				next := c.waitTerm(1, poll+time.Second)
				failover := next.start.Sub(cancelled)
				stats.add(failover)
				if failover > poll {
					t.Errorf("successor led %v after the release, want at most P = %v", failover, poll)
				}
				if got := *c.lease().Spec.LeaseTransitions; got != 1 {
					t.Errorf("leaseTransitions after takeover = %d, want 1", got)
				}
			})
		})
	}
	stats.report(t)
}

// TestStuckRenew: the leader's requests hang and ignore their context. The
// term must still end at the deadline, by the timer, before a successor.
func TestStuckRenew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a", "b")
		a := c.start("a", nil)
		c.waitTerm(0, time.Second)
		c.start("b", nil)
		time.Sleep(20 * time.Second)
		a.link.stall()
		next := c.waitTerm(1, ld+poll+time.Second)
		ended := c.history()[0].end
		a.e.mu.Lock()
		renewed := a.e.renewed
		a.e.mu.Unlock()
		if got := ended.Sub(renewed); got != rd {
			t.Errorf("stuck leader's term ended %v after its last renew, want exactly %v", got, rd)
		}
		if next.id != "b" || next.start.Sub(ended) < ld-rd {
			t.Errorf("successor %s started %v after the stuck term ended, want b after at least %v", next.id, next.start.Sub(ended), ld-rd)
		}
		if a.e.IsLeader() {
			t.Error("stuck leader's IsLeader() = true after its term ended")
		}
		a.link.heal()
		c.await(a, time.Minute)
		if !isLost(a.err) {
			t.Errorf("Run of the stuck leader = %v, want leadership lost", a.err)
		}
	})
}

// TestLeaseDeleted: the Lease is deleted under a live leader. A Lease PUT
// creates a missing object (on kube-apiserver as on kubetest), so the
// leader's next renew puts it back and it leads on; a follower never sees
// a Lease it may create.
func TestLeaseDeleted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a", "b")
		c.start("a", nil)
		c.waitTerm(0, time.Second)
		c.start("b", nil)
		time.Sleep(20 * time.Second)
		c.deleteLease()
		time.Sleep(time.Minute)
		if h := c.history(); len(h) != 1 || !h[0].end.IsZero() {
			t.Errorf("terms = %+v, want a's term, still open", h)
		}
		if s := c.lease().Spec; *s.HolderIdentity != "a" || time.Since(s.RenewTime.Time) > rp {
			t.Errorf("lease after the delete = held by %q, renewed %v ago; want a, within %v", *s.HolderIdentity, time.Since(s.RenewTime.Time), rp)
		}
	})
}

// TestLeaseDeletedAfterKill: the leader dies and its Lease is deleted. A
// follower that saw the record does not create a new Lease at once: it
// counts the deletion as a change of the record and waits a whole lease
// duration from when it noticed.
func TestLeaseDeletedAfterKill(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a", "b")
		a := c.start("a", nil)
		c.waitTerm(0, time.Second)
		c.start("b", nil)
		time.Sleep(20 * time.Second)
		a.halt()
		deleted := time.Now()
		c.deleteLease()
		next := c.waitTerm(1, ld+poll+time.Second)
		if waited := next.start.Sub(deleted); next.id != "b" || waited < ld || waited > ld+poll {
			t.Errorf("%s led %v after the delete, want b after L = %v to L + P = %v", next.id, waited, ld, ld+poll)
		}
		if got := *c.lease().Spec.LeaseTransitions; got != 0 {
			t.Errorf("leaseTransitions of the created lease = %d, want 0", got)
		}
	})
}

// TestStoppedAfterRelease: OnStoppedLeading comes after OnStartedLeading
// has returned and the Lease is released, so a process may exit from it.
func TestStoppedAfterRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a")
		admin := c.admin()
		var holder string
		var getErr error
		a := c.start("a", func(cfg *Options) {
			cfg.ReleaseOnCancel = true
			cfg.OnStartedLeading = func(ctx context.Context) {
				<-ctx.Done()
				time.Sleep(5 * time.Second) // wind down
			}
			cfg.OnStoppedLeading = func() {
				var l kube.Lease
				getErr = admin.Get(context.Background(), kube.Key{Namespace: "default", Name: testLease}, &l)
				holder = *l.Spec.HolderIdentity
			}
		})
		<-a.e.Elected()
		time.Sleep(time.Minute)
		if err := a.halt(); err != nil {
			t.Fatal(err)
		}
		if getErr != nil || holder != "" {
			t.Errorf("holder seen by OnStoppedLeading = %q (%v), want \"\": released first", holder, getErr)
		}
	})
}
