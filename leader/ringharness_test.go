// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the harness of the ring scenarios in ring_test.go: a
// kubetest server, members that each reach it as their own user through a
// link the test can cut or stall (harness_test.go's), and a ledger of range
// holdings that fails the test the instant two members hold one range.
// Everything runs inside a synctest bubble: the times it records are fake
// and exact. RINGLOG=1 in the environment logs every member's records to
// stderr, stamped with the fake time since the test started.

// The durations of the ring tests: the defaults.
const (
	testRanges = 64
	testRing   = "demo"
)

// ringTest is a kubetest server and the members of one ring on it.
type ringTest struct {
	t     *testing.T
	srv   *kubetest.Server
	t0    time.Time
	drain time.Duration // how long a Work takes to return once asked to stop

	mu      sync.Mutex
	holder  [testRanges]string // the member holding each range, "" if none
	freed   [testRanges]time.Time
	gaps    []time.Duration // how long each range went unheld, per handover
	members []*ringMember
}

// ringMember is one member with its own client and link.
type ringMember struct {
	id   string
	m    *Member
	link *link
	stop context.CancelFunc
	done chan struct{} // closed when Run has returned
	err  error
}

// newRingTest starts a kubetest server inside the calling bubble whose
// users are the member ids, each with a token.
func newRingTest(t *testing.T, drain time.Duration, ids ...string) *ringTest {
	return newRingTestOn(t, kubetest.Options{}, drain, ids...)
}

// newRingTestOn is newRingTest with a server made with opts (its Tokens
// replaced).
func newRingTestOn(t *testing.T, opts kubetest.Options, drain time.Duration, ids ...string) *ringTest {
	opts.Tokens = map[string]string{"tok-admin": "admin"}
	for _, id := range ids {
		opts.Tokens["tok-"+id] = id
	}
	rt := &ringTest{t: t, srv: kubetest.New(opts), t0: time.Now(), drain: drain}
	t.Cleanup(rt.shutdown)
	return rt
}

func (rt *ringTest) since() time.Duration { return time.Since(rt.t0) }

// start makes and runs a member with the test durations unless edit
// changes them.
func (rt *ringTest) start(id string, edit func(*RingOptions)) *ringMember {
	rt.t.Helper()
	rm := &ringMember{id: id, done: make(chan struct{})}
	var client *kube.Client
	client, rm.link = linkedClient(rt.t, rt.srv, id)
	cfg := RingOptions{Client: client, Namespace: "default", Ring: testRing, Identity: id, Ranges: testRanges,
		Work: func(ctx context.Context, sel kube.ShardSelector) error {
			rt.work(id, ctx, rangeOfSelector(sel))
			return nil
		}}
	if os.Getenv("RINGLOG") != "" {
		t0 := rt.t0
		cfg.Logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug, ReplaceAttr: func(g []string, a slog.Attr) slog.Attr {
			if a.Key == "time" {
				return slog.Duration("t", time.Since(t0))
			}
			return a
		}}))
	}
	if edit != nil {
		edit(&cfg)
	}
	var err error
	if rm.m, err = NewMember(cfg); err != nil {
		rt.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	rm.stop = cancel
	// What a Work depends on that stops with the process (a cache) sees
	// Run's ctx end through this value, which Works' contexts keep.
	processDone := make(chan struct{})
	context.AfterFunc(ctx, func() { close(processDone) })
	ctx = context.WithValue(ctx, processDoneKey{}, processDone)
	go func() {
		defer close(rm.done)
		rm.err = rm.m.Run(ctx)
	}()
	rt.mu.Lock()
	rt.members = append(rt.members, rm)
	rt.mu.Unlock()
	return rm
}

// processDoneKey is the key of the channel closed when the member's
// process stops, as its cache does.
type processDoneKey struct{}

// rangeOfSelector returns the range of testRanges whose shard selector
// Work is given: the one holding its first hash.
func rangeOfSelector(sel kube.ShardSelector) Range {
	return RangeOf(sel.Ranges[0].Start, testRanges)
}

// work is every member's Work: it opens a holding in the ledger, and
// closes it drain after ctx is cancelled.
func (rt *ringTest) work(id string, ctx context.Context, r Range) {
	rt.open(id, r)
	<-ctx.Done()
	time.Sleep(rt.drain)
	rt.close(id, r)
}

// open records that id holds r, failing the test if another does.
func (rt *ringTest) open(id string, r Range) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if other := rt.holder[r.Index]; other != "" {
		rt.t.Errorf("at +%v: %s started range %s while %s holds it", rt.since(), id, r, other)
	}
	rt.holder[r.Index] = id
	if !rt.freed[r.Index].IsZero() {
		rt.gaps = append(rt.gaps, time.Since(rt.freed[r.Index]))
	}
}

// close records that id no longer holds r.
func (rt *ringTest) close(id string, r Range) {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.holder[r.Index] == id {
		rt.holder[r.Index] = ""
		rt.freed[r.Index] = time.Now()
	}
}

// holdings returns, for each member id, the ranges it holds now.
func (rt *ringTest) holdings() map[string][]int {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := map[string][]int{}
	for i, h := range rt.holder {
		if h != "" {
			out[h] = append(out[h], i)
		}
	}
	return out
}

// settled reports whether every range is held, by the owner the
// assignment among ids gives it.
func (rt *ringTest) settled(ids []string) bool {
	return rt.heldBy(Assign(ids, testRanges))
}

// heldBy reports whether each range is held by owners[range] now.
func (rt *ringTest) heldBy(owners []string) bool {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Equal(rt.holder[:], owners)
}

// waitSettled advances fake time in steps of 10ms until every range is
// held by its owner among ids, and returns how long that took; it fails
// the test after limit.
func (rt *ringTest) waitSettled(ids []string, limit time.Duration) time.Duration {
	rt.t.Helper()
	owners := Assign(ids, testRanges) // once: it depends on ids alone
	start := time.Now()
	for time.Since(start) <= limit {
		if rt.heldBy(owners) {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rt.t.Fatalf("at +%v: ranges not settled on %v within %v; held: %v", rt.since(), ids, limit, rt.holdings())
	return 0
}

// waitTaken advances fake time in steps of 10ms until every range in rs
// is held by a member other than from, and returns how long that took; it
// fails the test after limit.
func (rt *ringTest) waitTaken(rs []int, from string, limit time.Duration) time.Duration {
	rt.t.Helper()
	start := time.Now()
	for time.Since(start) <= limit {
		rt.mu.Lock()
		taken := !slices.ContainsFunc(rs, func(i int) bool { h := rt.holder[i]; return h == "" || h == from })
		rt.mu.Unlock()
		if taken {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rt.t.Fatalf("at +%v: the ranges of %s not all taken over within %v; held: %v", rt.since(), from, limit, rt.holdings())
	return 0
}

// waitCovered advances fake time until every range is held by someone,
// and returns how long that took; it fails the test after limit.
func (rt *ringTest) waitCovered(limit time.Duration) time.Duration {
	rt.t.Helper()
	start := time.Now()
	for time.Since(start) <= limit {
		rt.mu.Lock()
		all := !slices.Contains(rt.holder[:], "")
		rt.mu.Unlock()
		if all {
			return time.Since(start)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rt.t.Fatalf("at +%v: ranges not all held within %v; held: %v", rt.since(), limit, rt.holdings())
	return 0
}

// takeGaps returns the handover gaps recorded so far and forgets them.
func (rt *ringTest) takeGaps() []time.Duration {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	g := rt.gaps
	rt.gaps = nil
	return g
}

// kill ends rm as SIGKILL would: its network goes, so that it can neither
// publish releases nor delete its Lease, and its Works are cancelled (with
// the test's drain 0, they end at once). Its Run goes on retrying in vain
// until it gives up; shutdown waits for it.
func (rm *ringMember) kill() {
	rm.link.cut()
	rm.stop()
}

// leave ends rm gracefully and waits for Run to return.
func (rm *ringMember) leave() error {
	rm.stop()
	<-rm.done
	return rm.err
}

// shutdown stops every member still running and closes the server, so
// that the bubble has no goroutine left.
func (rt *ringTest) shutdown() {
	rt.mu.Lock()
	ms := slices.Clone(rt.members)
	rt.mu.Unlock()
	for _, rm := range ms {
		rm.link.heal()
		rm.stop()
	}
	for _, rm := range ms {
		select {
		case <-rm.done:
		case <-time.After(time.Hour):
			rt.t.Errorf("member %s: Run did not return within an hour of fake time", rm.id)
		}
	}
	rt.srv.Close()
}

// ids returns n member ids.
func ringIDs(n int) []string {
	var ids []string
	for i := range n {
		ids = append(ids, fmt.Sprintf("m%d", i))
	}
	return ids
}

// leases counts the ring's Leases on the server.
func (rt *ringTest) leases() int {
	rt.t.Helper()
	c, err := kube.NewClient(rt.srv.Config(), kube.ClientOptions{})
	if err != nil {
		rt.t.Fatal(err)
	}
	var list kube.List[kube.Lease]
	if err := c.List(context.Background(), &list, kube.ListOptions{Namespace: "default",
		LabelSelector: kube.SelectorFromSet(map[string]string{RingLabel: testRing})}); err != nil {
		rt.t.Fatal(err)
	}
	return len(list.Items)
}
