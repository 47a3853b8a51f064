// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// The ring scenarios with Leases no live member of the ring renews as its
// own: stray Leases carrying the ring's label, and two processes sharing
// one identity. The ledger of ringharness_test.go fails the test the
// instant two processes hold one range.

// TestRingStrayLeases puts a Lease the members cannot trust in the ring's
// namespace with the ring's label before three members start. Whatever it
// says, every range is held within the time it would be without it plus
// PeerTrust LeaseDurations at most; the Lease is deleted once stale; and
// each member logs and counts it once per reason, not once per loop.
func TestRingStrayLeases(t *testing.T) {
	t.Parallel() // bubbles and servers of its own: beside the other ring tests

	const forever = math.MaxInt32 // 68 years of leaseDurationSeconds
	ghost := MemberLeaseName(testRing, "ghost")
	for _, tc := range []struct {
		name   string
		lease  string // name
		holder string
		ranges string
		secs   int32
		// settle: every range held by its owner among the members within
		// this; deleted: the Lease gone within this.
		settle, deleted time.Duration
		want            IgnoredLeases
	}{
		// Before: every range blocked for 68 years.
		{"unreadable ranges, 68 years", ghost, "ghost", "all of them", forever,
			2 * retry, PeerTrust*lease + retry, IgnoredLeases{Unreadable: 1, LongDuration: 1}},
		// Before: ghost counted live for 68 years, its share never held.
		{"never renewed, 68 years", ghost, "ghost", "64:", forever,
			PeerTrust*lease + 2*retry, PeerTrust*lease + retry, IgnoredLeases{LongDuration: 1}},
		// Before: every range blocked until it expired.
		{"no member's lease", testRing + "-stray", "someone", "64:0-63", 15,
			2 * retry, lease + retry, IgnoredLeases{Foreign: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // a bubble and a server of its own
			synctest.Test(t, func(t *testing.T) {
				ids := ringIDs(3)
				rt := newRingTest(t, 0, ids...)
				secs := tc.secs
				holder := tc.holder
				rt.put(&kube.Lease{
					ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: tc.lease,
						Labels:      map[string]string{RingLabel: testRing},
						Annotations: map[string]string{RangesAnnotation: tc.ranges}},
					Spec: kube.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &secs,
						RenewTime: &kube.MicroTime{Time: time.Now()}},
				})
				logs := &logCount{}
				for _, id := range ids {
					rt.start(id, func(o *RingOptions) { o.Logger = slog.New(logs) })
				}
				took := rt.waitSettled(ids, tc.settle)
				start := time.Now()
				for rt.leases() != 3 {
					if time.Since(start) > tc.deleted {
						t.Fatalf("the stray lease %s is still there %v after the ring settled", tc.lease, time.Since(start))
					}
					time.Sleep(100 * time.Millisecond)
				}
				t.Logf("settled in %v; the stray lease deleted %v later", took, time.Since(start))
				time.Sleep(10 * retry) // many loops: counted and logged once all the same
				for _, rm := range rt.members {
					if got := rm.m.Status().Ignored; got != tc.want {
						t.Errorf("%s: Status().Ignored = %+v, want %+v", rm.id, got, tc.want)
					}
				}
				want := 0
				for _, n := range []uint64{tc.want.Unreadable, tc.want.Foreign, tc.want.LongDuration} {
					want += int(n) * len(ids)
				}
				if got := logs.count(tc.lease); got != want {
					t.Errorf("%d warnings about lease %s, want %d: one per member and reason", got, tc.lease, want)
				}
			})
		})
	}
}

// TestRingSharedIdentity runs two processes with one identity. The second
// finds the Lease written by another process and waits for it to expire;
// when the first renews it, the second stops with an error naming the
// identity and the Lease. If the first stalls long enough for the second
// to take the Lease over, the first, back, finds a write it did not make
// and stops. Neither ever holds a range the other holds.
func TestRingSharedIdentity(t *testing.T) {
	for _, stall := range []bool{false, true} {
		name := map[bool]string{false: "joins beside", true: "takes over a stalled one"}[stall]
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rt := newRingTest(t, 0, "m0", "m1", "twin")
				rt.start("m0", nil)
				first := rt.start("m1", nil)
				rt.waitSettled([]string{"m0", "m1"}, 2*retry)
				if stall {
					first.link.stall()
				}
				second := rt.start("twin", func(o *RingOptions) { o.Identity = "m1" })
				stopped, kept := second, first
				if stall {
					stopped, kept = first, second
					time.Sleep(lease + 2*retry) // the twin takes over
					first.link.heal()
				}
				start := time.Now()
				select {
				case <-stopped.done:
				case <-time.After(lease):
					t.Fatalf("%s still runs %v after a write it did not make; held: %v", stopped.id, lease, rt.holdings())
				}
				t.Logf("%s stopped after %v: %v", stopped.id, time.Since(start), stopped.err)
				lname := MemberLeaseName(testRing, "m1")
				if !errors.Is(stopped.err, ErrIdentityShared) || !strings.Contains(stopped.err.Error(), `"m1"`) || !strings.Contains(stopped.err.Error(), lname) {
					t.Errorf("%s: Run = %v, want ErrIdentityShared naming identity \"m1\" and lease %s", stopped.id, stopped.err, lname)
				}
				if h := rt.holdings()[stopped.id]; len(h) > 0 {
					t.Errorf("%s stopped holding %v", stopped.id, h)
				}
				if st := stopped.m.Status(); len(st.Held)+len(st.Claimed)+len(st.Draining) > 0 {
					t.Errorf("%s stopped with status %+v, want nothing held, claimed or draining", stopped.id, st)
				}
				select {
				case <-kept.done:
					t.Fatalf("%s stopped too: %v", kept.id, kept.err)
				default:
				}
				rt.waitCovered(lease + 2*retry)
				if h := rt.holdings(); len(h["m0"])+len(h[kept.id]) != testRanges {
					t.Errorf("held %v, want every range by m0 and %s", h, kept.id)
				}
			})
		})
	}
}

// put creates l as another writer would.
func (rt *ringTest) put(l *kube.Lease) {
	rt.t.Helper()
	c, err := kube.NewClient(rt.srv.Config(), kube.ClientOptions{})
	if err != nil {
		rt.t.Fatal(err)
	}
	if err := c.Create(context.Background(), l); err != nil {
		rt.t.Fatal(err)
	}
}

// logCount is a slog handler that counts the warnings naming each lease.
type logCount struct {
	mu    sync.Mutex
	byKey map[string]int
}

func (h *logCount) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *logCount) WithAttrs([]slog.Attr) slog.Handler           { return h }
func (h *logCount) WithGroup(string) slog.Handler                { return h }
func (h *logCount) Handle(_ context.Context, r slog.Record) error {
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "lease" {
			h.mu.Lock()
			if h.byKey == nil {
				h.byKey = map[string]int{}
			}
			h.byKey[a.Value.String()]++
			h.mu.Unlock()
		}
		return true
	})
	return nil
}

func (h *logCount) count(lease string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.byKey[lease]
}
