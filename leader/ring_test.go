// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// The ring scenarios. In each, the ledger of ringharness_test.go fails the
// test the instant two members hold one range; the times logged are fake
// and exact. Durations are the defaults: LeaseDuration 15s, RenewDeadline
// 10s, RetryPeriod 2s.

const (
	lease = DefaultLeaseDuration
	retry = DefaultRetryPeriod
)

// TestRingStart starts three members at once. The first to list the ring
// may find itself alone and take every range; the others claim theirs at
// once, and the first hands them over at its next poll, after they
// drained: every range is held by its owner in the assignment within
// RetryPeriod, the drain and the others' quarter-RetryPeriod polls.
func TestRingStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const drain = time.Second
		ids := ringIDs(3)
		rt := newRingTest(t, drain, ids...)
		for _, id := range ids {
			rt.start(id, nil)
		}
		took := rt.waitSettled(ids, retry+drain+retry/4)
		t.Logf("3 members settled in %v", took)
		for _, rm := range rt.members {
			st := rm.m.Status()
			if !slices.Equal(st.Members, ids) || len(st.Held) != len(st.Assigned) || len(st.Held) < 21 {
				t.Errorf("%s: status %+v, want members %v and 21 or 22 ranges held", rm.id, st, ids)
			}
		}
	})
}

// TestRingJoin adds a fourth member to three: its ranges come to it from
// their holders after they drained, within RetryPeriod plus the drain plus
// a quarter RetryPeriod of the newcomer's polling.
func TestRingJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const drain = time.Second
		ids := ringIDs(4)
		rt := newRingTest(t, drain, ids...)
		for _, id := range ids[:3] {
			rt.start(id, nil)
		}
		rt.waitSettled(ids[:3], 2*retry)
		rt.takeGaps()
		rt.start(ids[3], nil)
		bound := retry + drain + retry/4
		took := rt.waitSettled(ids, bound)
		gaps := rt.takeGaps()
		// The assignment moves the newcomer's share and few others; the
		// member moves those alone, each once: every other range keeps
		// its holder and its Work.
		moved := 0
		for i, owner := range Assign(ids[:3], testRanges) {
			if Assign(ids, testRanges)[i] != owner {
				moved++
			}
		}
		share := testRanges / len(ids)
		t.Logf("a fourth member settled in %v; %d ranges moved (share %d), unheld for %v at most", took, len(gaps), share, slices.Max(gaps))
		if moved < share || moved > 2*share {
			t.Errorf("the assignment moves %d ranges, want between the newcomer's share %d and twice it", moved, share)
		}
		if len(gaps) != moved {
			t.Errorf("%d ranges changed holder, want the %d the assignment moves: ranges that stay must keep their Work", len(gaps), moved)
		}
		if g := slices.Max(gaps); g > bound {
			t.Errorf("a moved range was unheld for %v, more than %v", g, bound)
		}
	})
}

// TestRingGracefulLeave stops one of four members: it stops every Work,
// publishes each release as the Work returns, and deletes its Lease. Its
// ranges are held again within RetryPeriod plus the drain; ranges the new
// assignment moves between the others too, after their holders saw the
// leave and drained, within a quarter RetryPeriod more.
func TestRingGracefulLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const drain = 3 * time.Second
		ids := ringIDs(4)
		rt := newRingTest(t, drain, ids...)
		for _, id := range ids {
			rt.start(id, nil)
		}
		rt.waitSettled(ids, 2*retry+drain)
		rt.takeGaps()
		leaver := rt.members[1]
		its := rt.holdings()[leaver.id]
		start := time.Now()
		left := make(chan error, 1)
		go func() { left <- leaver.leave() }()
		taken := rt.waitTaken(its, leaver.id, retry+drain)
		settled := taken + rt.waitSettled([]string{ids[0], ids[2], ids[3]}, retry+drain+retry/2)
		if err := <-left; err != nil {
			t.Errorf("Run = %v after leaving, want nil", err)
		}
		gaps := rt.takeGaps()
		t.Logf("after a graceful leave (drain %v): its %d ranges taken over in %v, all settled in %v, Run returned after %v; %d ranges moved, each unheld for %v at most",
			drain, len(its), taken, settled, time.Since(start), len(gaps), slices.Max(gaps))
		if n := rt.leases(); n != 3 {
			t.Errorf("%d member leases left, want 3: the leaver deletes its own", n)
		}
	})
}

// TestRingDeath kills one of four members as SIGKILL would (no release,
// no delete): the others take its ranges over once its Lease has not
// changed for LeaseDuration, within LeaseDuration + RetryPeriod of the
// death, and delete its Lease.
func TestRingDeath(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ids := ringIDs(4)
		rt := newRingTest(t, 0, ids...)
		for _, id := range ids {
			rt.start(id, nil)
		}
		rt.waitSettled(ids, 2*retry)
		rt.takeGaps()
		victim := rt.members[2]
		its := rt.holdings()[victim.id]
		victim.kill()
		taken := rt.waitTaken(its, victim.id, lease+retry)
		settled := taken + rt.waitSettled([]string{ids[0], ids[1], ids[3]}, retry/2)
		t.Logf("after a death: its %d ranges taken over in %v, all settled in %v", len(its), taken, settled)
		if taken < lease-retry {
			t.Errorf("ranges taken %v after the death, before its lease could expire", taken)
		}
		time.Sleep(retry)
		if n := rt.leases(); n != 3 {
			t.Errorf("%d member leases left, want 3: the dead member's is deleted", n)
		}
	})
}

// TestRingStallAndPartition cuts one of four members off, by stalling its
// requests (a stuck connection) or by having the server refuse them (a
// partition): it stops its Works RenewDeadline after its last renew, the
// others take its ranges over after LeaseDuration, and once it is back it
// joins again and gets its share.
func TestRingStallAndPartition(t *testing.T) {
	for _, how := range []string{"stall", "deny"} {
		t.Run(how, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ids := ringIDs(4)
				rt := newRingTest(t, 500*time.Millisecond, ids...)
				for _, id := range ids {
					rt.start(id, nil)
				}
				rt.waitSettled(ids, 2*retry+time.Second)
				rt.takeGaps()
				victim := rt.members[0]
				if how == "stall" {
					victim.link.stall()
				} else {
					rt.srv.Deny(victim.id, "*", "leases.coordination.k8s.io")
				}
				cut := time.Now()
				for len(rt.holdings()[victim.id]) > 0 {
					time.Sleep(10 * time.Millisecond)
				}
				stopped := time.Since(cut)
				took := rt.waitSettled(ids[1:], lease+retry)
				t.Logf("%s: the member cut off stopped its work after %v; the others settled after %v", how, stopped, took)
				if stopped > DefaultRenewDeadline+time.Second {
					t.Errorf("the member cut off worked on for %v, beyond RenewDeadline", stopped)
				}
				if how == "stall" {
					victim.link.heal()
				} else {
					rt.srv.Allow(victim.id, "*", "leases.coordination.k8s.io")
				}
				back := rt.waitSettled(ids, 2*retry+time.Second)
				t.Logf("%s: back, settled on all four after %v", how, back)
			})
		})
	}
}

// TestRingWorkStoppedIsNoFailure: a Work that returns an error once the
// member asked it to stop (as a sharded controller's does when its range
// moves before the shard synced), or once its process is stopping (its
// cache stopped first), is not logged as a failure; one that fails on its
// own, while it holds its range, is.
func TestRingWorkStoppedIsNoFailure(t *testing.T) {
	for _, tc := range []struct {
		name     string
		failing  bool // Work fails at once, on its own
		process  bool // Work fails as soon as its process stops
		wantWarn bool
	}{
		{"stopped when asked", false, false, false},
		{"stopped with its process", false, true, false},
		{"failed on its own", true, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ids := ringIDs(2)
				rt := newRingTest(t, 0, ids...)
				logs := &syncBuffer{}
				for _, id := range ids {
					rt.start(id, func(o *RingOptions) {
						o.Logger = slog.New(slog.NewTextHandler(logs, nil))
						o.Work = func(ctx context.Context, sel kube.ShardSelector) error {
							if tc.failing {
								return errors.New("broke on its own")
							}
							if tc.process {
								rt.open(id, rangeOfSelector(sel))
								defer rt.close(id, rangeOfSelector(sel))
								select {
								case <-ctx.Done():
									return ctx.Err()
								case <-ctx.Value(processDoneKey{}).(chan struct{}):
									return errors.New("add shard: informer stopped")
								}
							}
							rt.work(id, ctx, rangeOfSelector(sel))
							return fmt.Errorf("hold shard %s: %w", sel, ctx.Err())
						}
					})
				}
				time.Sleep(2 * retry)
				if !tc.failing {
					rt.waitSettled(ids, 2*retry)
					if err := rt.members[1].leave(); err != nil { // its ranges move to ids[0]
						t.Fatal(err)
					}
					rt.waitSettled(ids[:1], 2*retry)
				}
				rt.shutdown()
				if warned := strings.Contains(logs.String(), "work of range failed"); warned != tc.wantWarn {
					t.Errorf("a failure logged = %v, want %v:\n%s", warned, tc.wantWarn, logs.String())
				}
			})
		})
	}
}

// syncBuffer is a bytes.Buffer safe for the members' loggers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
