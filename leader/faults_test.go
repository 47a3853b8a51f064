// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// The scenarios where the server or other writers get in the way: errors
// and conflicts during renew, another writer taking the Lease, candidates
// configured differently, and holders whose clocks are wrong.

// renewsBy matches the Lease updates of user.
func renewsBy(user string) func(kubetest.RequestInfo) bool {
	return func(ri kubetest.RequestInfo) bool {
		return ri.User == user && ri.Verb == "update" && ri.Resource == "leases"
	}
}

var errInternal = kube.NewStatusError(http.StatusInternalServerError, kube.ReasonInternalError, "etcdserver: request timed out")

// TestRenewThroughServerErrors: failed renews within RenewDeadline do not
// end the term; failures past it do, before anyone else can take over.
func TestRenewThroughServerErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a", "b")
		a := c.start("a", nil)
		c.waitTerm(0, time.Second)
		c.start("b", nil)
		time.Sleep(10 * time.Second)

		// Three failures: the renews 2s, 4s and 6s after the last success
		// fail, the one at 8s succeeds, before the deadline at 10s.
		c.srv.FailNext(3, renewsBy("a"), errInternal)
		time.Sleep(time.Minute)
		if h := c.history(); len(h) != 1 || !h[0].end.IsZero() {
			t.Fatalf("terms after 3 failed renews = %+v, want a's term, open", h)
		}
		if a.e.Check(20*time.Second) != nil || !a.e.IsLeader() {
			t.Errorf("after recovering: IsLeader %v, Check %v; want true, nil", a.e.IsLeader(), a.e.Check(20*time.Second))
		}

		c.srv.FailNext(1000, renewsBy("a"), errInternal)
		next := c.waitTerm(1, ld+poll+time.Second)
		ended := c.history()[0].end
		a.e.mu.Lock()
		renewed := a.e.renewed
		a.e.mu.Unlock()
		if got := ended.Sub(renewed); got != rd {
			t.Errorf("term ended %v after the last renew, want RenewDeadline %v", got, rd)
		}
		if next.id != "b" || next.start.Sub(ended) < ld-rd {
			t.Errorf("%s started %v after a's term ended, want b after at least %v", next.id, next.start.Sub(ended), ld-rd)
		}
		c.await(a, time.Minute)
		if !isLost(a.err) {
			t.Errorf("Run = %v, want leadership lost", a.err)
		}
	})
}

// TestRenewThroughConflicts: a renew that meets a Conflict reads the Lease
// again and, finding it still names this leader, renews it; it never
// overwrites what it has not read.
func TestRenewThroughConflicts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a", "b")
		c.start("a", nil)
		c.waitTerm(0, time.Second)
		c.start("b", nil)
		time.Sleep(5 * time.Second)

		conflict := kube.NewStatusError(http.StatusConflict, kube.ReasonConflict,
			`Operation cannot be fulfilled on leases.coordination.k8s.io "demo-leader": the object has been modified; please apply your changes to the latest version and try again`)
		c.srv.FailNext(3, renewsBy("a"), conflict)
		time.Sleep(5 * time.Second)

		// Another writer changes the Lease's metadata: a's copy is stale.
		l := c.lease()
		l.Labels = map[string]string{"team": "x"}
		if err := c.admin().Update(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)

		if h := c.history(); len(h) != 1 || !h[0].end.IsZero() {
			t.Fatalf("terms = %+v, want a's term, open", h)
		}
		got := c.lease()
		if got.Labels["team"] != "x" {
			t.Errorf("labels after renewing = %v, want the other writer's team=x kept", got.Labels)
		}
		if age := time.Since(got.Spec.RenewTime.Time); age > rp {
			t.Errorf("renewTime is %v old, want within %v", age, rp)
		}
	})
}

// TestLeaseTakenByAnotherWriter: a writer outside the protocol names
// another holder. The leader ends its term at its next renew.
func TestLeaseTakenByAnotherWriter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "a")
		a := c.start("a", nil)
		c.waitTerm(0, time.Second)
		time.Sleep(5*time.Second + 300*time.Millisecond)
		l := c.lease()
		intruder := "intruder"
		l.Spec.HolderIdentity = &intruder
		written := time.Now()
		if err := c.admin().Update(context.Background(), l); err != nil {
			t.Fatal(err)
		}
		c.await(a, time.Minute)
		ended := c.history()[0].end
		if got := ended.Sub(written); got > rp {
			t.Errorf("term ended %v after the Lease was taken, want within RetryPeriod %v", got, rp)
		}
		if !isLost(a.err) || !strings.Contains(a.err.Error(), `"intruder"`) {
			t.Errorf("Run = %v, want leadership lost to \"intruder\"", a.err)
		}
		if got := a.e.Leader(); got != "intruder" {
			t.Errorf("Leader() = %q, want intruder", got)
		}
		if got := *c.lease().Spec.HolderIdentity; got != "intruder" {
			t.Errorf("holder = %q, want intruder: the old leader must not overwrite it", got)
		}
	})
}

// TestDifferentDurations: a candidate honours the leaseDurationSeconds the
// holder wrote, whether longer or shorter than its own LeaseDuration
// (within PeerTrust times it; TestDecideBoundsTrust checks the bound).
func TestDifferentDurations(t *testing.T) {
	// Durations PeerTrust (4) times apart: the most a candidate trusts.
	long := func(cfg *Options) { cfg.LeaseDuration, cfg.RenewDeadline = 20*time.Second, 15*time.Second }
	short := func(cfg *Options) { cfg.LeaseDuration, cfg.RenewDeadline = 5*time.Second, 4*time.Second }
	tests := []struct {
		name           string
		holder, other  func(*Options)
		holderDuration time.Duration
	}{
		{"holder longer", long, short, 20 * time.Second},
		{"holder shorter", short, long, 5 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(t, "a", "b")
				a := c.start("a", tt.holder)
				c.waitTerm(0, time.Second)
				c.start("b", tt.other)
				time.Sleep(2*time.Minute + 700*time.Millisecond)
				if h := c.history(); len(h) != 1 {
					t.Fatalf("terms = %+v, want a's only", h)
				}
				renewed := c.lease().Spec.RenewTime.Time
				killed := time.Now()
				a.halt()
				next := c.waitTerm(1, tt.holderDuration+poll+time.Second)
				if waited := next.start.Sub(renewed); waited < tt.holderDuration {
					t.Errorf("b led %v after a's last renew, want at least a's leaseDurationSeconds %v", waited, tt.holderDuration)
				}
				if failover := next.start.Sub(killed); failover > tt.holderDuration+poll {
					t.Errorf("b led %v after the kill, want at most %v", failover, tt.holderDuration+poll)
				}
			})
		})
	}
}

// impostor writes the Lease as holder "z" every RetryPeriod, with its
// renewTime and acquireTime skewed by skew, until ctx is done.
func impostor(ctx context.Context, c *cluster, skew time.Duration) (last func() time.Time) {
	client := c.admin()
	var mu = make(chan time.Time, 1)
	mu <- time.Time{}
	go func() {
		for {
			l := &kube.Lease{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: testLease}}
			stamp := kube.MicroTime{Time: time.Now().Add(skew)}
			holder, secs := "z", int32(15)
			err := client.Get(ctx, kube.Key{Namespace: "default", Name: testLease}, l)
			if err != nil && !kube.IsNotFound(err) {
				return
			}
			l.Spec = kube.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs, AcquireTime: &stamp, RenewTime: &stamp}
			if kube.IsNotFound(err) {
				l.ResourceVersion = ""
				err = client.Create(ctx, l)
			} else {
				err = client.Update(ctx, l)
			}
			if err == nil {
				<-mu
				mu <- time.Now()
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(rp):
			}
		}
	}()
	return func() time.Time {
		t := <-mu
		mu <- t
		return t
	}
}

// TestSkewedHolder: a holder whose clock is a year ahead or behind. While
// it renews, its lease is never taken, even with renewTime a year in the
// past; once it stops, its lease is taken LeaseDuration after the last
// change, even with renewTime a year in the future.
func TestSkewedHolder(t *testing.T) {
	for _, skew := range []time.Duration{365 * 24 * time.Hour, -365 * 24 * time.Hour} {
		t.Run(skew.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := newCluster(t, "b")
				ctx, stop := context.WithCancel(context.Background())
				last := impostor(ctx, c, skew)
				time.Sleep(time.Second)
				c.start("b", nil)
				time.Sleep(2 * time.Minute)
				stop()
				if h := c.history(); len(h) != 0 {
					t.Fatalf("terms while the skewed holder renews = %+v, want none", h)
				}
				lastWrite := last()
				next := c.waitTerm(0, ld+poll+time.Second)
				if waited := next.start.Sub(lastWrite); waited < ld || waited > ld+poll {
					t.Errorf("b led %v after the skewed holder's last write, want between L = %v and L + P = %v", waited, ld, ld+poll)
				}
			})
		})
	}
}

// TestStaleRecordFromThePast: a candidate that starts and finds a record
// whose renewTime is long past still waits a whole lease duration from
// its first sight of it: the holder's timestamps are not trusted.
func TestStaleRecordFromThePast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCluster(t, "b")
		ctx, stop := context.WithCancel(context.Background())
		impostor(ctx, c, -time.Hour)
		time.Sleep(time.Second)
		stop()
		time.Sleep(time.Hour)
		started := time.Now()
		c.start("b", nil)
		next := c.waitTerm(0, ld+time.Second)
		if waited := next.start.Sub(started); waited < ld || waited > ld+100*time.Millisecond {
			t.Errorf("b led %v after it first read the stale record, want LeaseDuration %v", waited, ld)
		}
	})
}
