// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
)

// TestShardMeasure measures what a range move costs a sharded ConfigMap
// controller (cmd/internal/shardmember, three OS processes) on 2,000
// ConfigMaps, 64 ranges, LeaseDuration 4s and RetryPeriod 0.5s, with the
// ShardedListAndWatch gate on (the harness's server) and off (a second
// server): the reconciles of each object whose range moved when a member
// joins, stops gracefully and is killed with SIGKILL; how long after the
// kill its ranges are held elsewhere and their objects reconciled; the
// objects each member receives from the server meanwhile; and the
// warnings the members log. With KUBELOOP_MEASURE_CHURN=N a writer
// changes 100 of the ConfigMaps N times a second throughout (those are
// left out of the counts); with KUBELOOP_MEASURE_MANAGER=1 the members
// are built on the manager (shardmember --manager);
// KUBELOOP_MEASURE_WORKERS and KUBELOOP_MEASURE_RECONCILE set their
// workers (4) and reconcile time (5ms). It logs the numbers and fails only when an
// object of a moved range is reconciled more than once or not at all, or
// a member logs a warning. It runs only with KUBELOOP_MEASURE=1 (about
// 50 s for one run of each gate; KUBELOOP_MEASURE_RUNS=N repeats each):
//
//	KUBELOOP_MEASURE=1 testdata/kube-apiserver/harness.sh run -- go test -tags integration -count=1 -v -run TestShardMeasure ./internal/integration/
func TestShardMeasure(t *testing.T) {
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("KUBELOOP_MEASURE=1 runs it")
	}
	runs := 1
	if n, err := strconv.Atoi(os.Getenv("KUBELOOP_MEASURE_RUNS")); err == nil && n > 0 {
		runs = n
	}
	h := harnessFromEnv(t)
	bin := buildProgram(t, t.Context(), "internal/shardmember")
	t.Run("gate-on", func(t *testing.T) {
		skipWithoutShardGate(t, h)
		for i := range runs {
			t.Run(fmt.Sprint(i), func(t *testing.T) { measureRing(t, bin, shardServer{h.Server, h.Token, h.CAFile}) })
		}
	})
	t.Run("gate-off", func(t *testing.T) {
		srv := gateOffServer(t, h)
		for i := range runs {
			t.Run(fmt.Sprint(i), func(t *testing.T) { measureRing(t, bin, srv) })
		}
	})
}

// The measurement's size and the ring's timings, those of the issue.
const (
	measureObjects = 2000
	measureRanges  = leader.DefaultRanges
)

// measureRing runs the sequence on srv: m0 and m1 start; m2 joins; m2
// stops (SIGTERM); m3 joins; m1 is killed (SIGKILL).
func measureRing(t *testing.T, bin string, srv shardServer) {
	cfg := &kube.Config{Host: srv.host, BearerToken: srv.token, QPS: -1}
	cfg.TLS.CAFile = srv.caFile
	admin, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := "measure-" + randomName()
	if err := admin.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	label := map[string]string{"kubeloop.dev/shard-test": ns}
	hashes := createConfigMaps(t, ctx, admin, ns, label, measureObjects)
	t.Cleanup(func() {
		_ = admin.DeleteAllOf(context.Background(), kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			kube.DeleteAllOfOptions{Namespace: ns, LabelSelector: kube.SelectorFromSet(label)})
	})
	args := []string{"--namespace", ns, "--selector", "kubeloop.dev/shard-test=" + ns, "--ring", "measure",
		"--ranges", fmt.Sprint(measureRanges), "--lease-duration", shardLD.String(),
		"--renew-deadline", shardRD.String(), "--retry-period", shardRP.String(),
		"--reconcile-time", shardReconcile.String()}
	if os.Getenv("KUBELOOP_MEASURE_MANAGER") != "" {
		args = append(args, "--manager")
	}
	if w := os.Getenv("KUBELOOP_MEASURE_WORKERS"); w != "" {
		args = append(args, "--workers", w)
	}
	if d := os.Getenv("KUBELOOP_MEASURE_RECONCILE"); d != "" {
		args = append(args, "--reconcile-time", d) // the last one counts
	}
	m := &measurement{t: t, l: newLedger(measureRanges), hashes: hashes, procs: map[string]*shardProc{}, churned: map[string]bool{}}
	if rate, err := strconv.Atoi(os.Getenv("KUBELOOP_MEASURE_CHURN")); err == nil && rate > 0 {
		for i := range measureChurned {
			m.churned[fmt.Sprintf("%s/cm-%04d", ns, i)] = true
		}
		churn(t, admin, ns, rate)
	}
	start := func(id string) { m.procs[id] = startMember(t, bin, id, srv.env(), m.l, args...) }

	start("m0")
	start("m1")
	m.settle([]string{"m0", "m1"}, "m0 and m1 start")

	m.change("m2 joins", []string{"m0", "m1", "m2"}, func() { start("m2") })
	m.change("m2 stops (SIGTERM)", []string{"m0", "m1"}, func() { m.procs["m2"].stop(t) })
	m.change("m3 joins", []string{"m0", "m1", "m3"}, func() { start("m3") })
	m.change("m1 killed (SIGKILL)", []string{"m0", "m3"}, func() {
		if err := m.procs["m1"].cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		<-m.procs["m1"].exited
	})

	for _, id := range []string{"m0", "m3"} {
		m.procs[id].stop(t)
	}
	for id, p := range m.procs {
		var warns []string
		for line := range strings.Lines(p.stderr()) {
			if strings.Contains(line, "level=WARN") || strings.Contains(line, "level=ERROR") {
				warns = append(warns, strings.TrimSpace(line))
			}
		}
		if len(warns) > 0 {
			t.Errorf("%s logged %d warnings, e.g.:\n%s", id, len(warns), strings.Join(warns[:min(len(warns), 5)], "\n"))
		}
	}
	if o := m.l.overlaps(map[string]int64{"m1": m.killed.UnixNano()}); len(o) > 0 {
		t.Errorf("%d reconciles of one ConfigMap by two members at once: %v", len(o), o[:min(len(o), 10)])
	}
}

// measurement is one run's ring.
type measurement struct {
	t      *testing.T
	l      *ledger
	hashes map[string]uint64
	procs  map[string]*shardProc
	killed time.Time
	// churned are the objects churn changes, by key: left out of the
	// counts, since each change is a reconcile due.
	churned map[string]bool
}

// measureChurned is how many ConfigMaps churn changes.
const measureChurned = 100

// churn changes the first measureChurned ConfigMaps of ns in turn, rate a
// second, until the test ends: the members' watches then carry events
// while ranges move, as a cluster's do.
func churn(t *testing.T, c *kube.Client, ns string, rate int) {
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		for n := 0; ; n++ {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%04d", n%measureChurned)}}
			patch := kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"data":{"churn":"%d"}}`, n)}
			if err := c.Patch(ctx, cm, patch); err != nil && ctx.Err() == nil {
				t.Errorf("churn: patch %s: %v", cm.Name, err)
				return
			}
		}
	}()
}

// settle waits until each of live holds its share of the ranges (at
// least one fewer than an even split) and every object is reconciled by
// its range's holder, then until no reconcile has started for two
// seconds (a second reconcile of an object would come within that).
func (m *measurement) settle(live []string, what string) {
	start := time.Now()
	for {
		held := map[string]int{}
		for _, who := range m.l.holders() {
			held[who]++
		}
		if !slices.ContainsFunc(live, func(id string) bool { return held[id] < measureRanges/len(live)-1 }) {
			break
		}
		if time.Since(start) > time.Minute {
			m.t.Fatalf("%s: the ranges held by each member are %v after a minute, want about %d each of %v", what, held, measureRanges/len(live), live)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for p := m.l.pending(m.hashes, live); len(p) > 0; p = m.l.pending(m.hashes, live) {
		if time.Since(start) > time.Minute {
			m.t.Fatalf("%s: %d ConfigMaps not reconciled by the holder of their range within a minute:\n%s", what, len(p), m.explain(p[:min(len(p), 5)]))
		}
		time.Sleep(100 * time.Millisecond)
	}
	last, quiet := m.reconciles(), time.Now()
	for time.Since(quiet) < 2*time.Second {
		time.Sleep(100 * time.Millisecond)
		if n := m.reconciles(); n != last {
			last, quiet = n, time.Now()
		}
	}
}

// explain returns, for each of keys, its range, the range's holder and
// since when, and the object's reconciles (times relative to that).
func (m *measurement) explain(keys []string) string {
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	var b strings.Builder
	for _, key := range keys {
		i := leader.RangeOf(m.hashes[key], measureRanges).Index
		since := m.l.since[i]
		fmt.Fprintf(&b, "%s: range %d held by %q since %s; reconciles:", key, i, m.l.holder[i], time.Unix(0, since).Format("15:04:05.000"))
		for _, s := range m.l.spans[key] {
			fmt.Fprintf(&b, " %s at %v (end %v)", s.member, time.Duration(s.start-since), time.Duration(s.end-since))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// reconciles returns how many reconciles of objects churn leaves alone
// have started.
func (m *measurement) reconciles() int {
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	n := 0
	for key, s := range m.l.spans {
		if !m.churned[key] {
			n += len(s)
		}
	}
	return n
}

// change does do, which leaves live as the ring's members, waits for the
// ring to settle, and logs what the ranges that changed holder cost.
func (m *measurement) change(what string, live []string, do func()) {
	t := m.t
	before := m.l.holders()
	received := map[string]uint64{}
	for _, id := range live {
		if p := m.procs[id]; p != nil {
			s := p.askStats(t)
			received[id] = s.Events + s.ShardDropped
		}
	}
	at := time.Now()
	do()
	if strings.Contains(what, "SIGKILL") {
		m.killed = at
	}
	var gone []int // ranges whose holder left
	for i, who := range before {
		if !slices.Contains(live, who) {
			gone = append(gone, i)
		}
	}
	var heldAfter time.Duration
	if len(gone) > 0 {
		heldAfter = waitHeld(t, m.l, gone, at, time.Minute)
	}
	m.settle(live, what)
	after := m.l.holders()
	c := m.cost(before, after, at)
	var reads []string
	for _, id := range live {
		s := m.procs[id].askStats(t)
		r := s.Events + s.ShardDropped - received[id]
		reads = append(reads, fmt.Sprintf("%s received %d objects (%.2f× the kind; %d lists, %d watches, %d relists so far; holds %d ranges, caches %d)",
			id, r, float64(r)/float64(len(m.hashes)), s.ListRequests, s.WatchRequests, s.Relists, s.Held, s.Objects))
	}
	held := ""
	if len(gone) > 0 {
		held = fmt.Sprintf("; the %d ranges of the member gone held elsewhere %v after", len(gone), heldAfter.Round(time.Millisecond))
	}
	t.Logf("%s: %d ranges changed holder%s; their %d objects: %d reconciles (%d more than once, %d never), "+
		"first reconcile by the new holder %v after, last %v; %d reconciles of other objects\n  %s",
		what, c.ranges, held, c.objects, c.reconciles, c.twice, c.never, c.first.Round(time.Millisecond), c.last.Round(time.Millisecond),
		c.others, strings.Join(reads, "\n  "))
	if c.twice > 0 || c.never > 0 {
		t.Errorf("%s: %d of %d objects of the ranges moved reconciled more than once, %d never; want each once", what, c.twice, c.objects, c.never)
	}
}

// moveCost is what the ranges that changed holder cost: their objects,
// the reconciles of those since the change, how many were reconciled
// more than once or never, when their new holders' first reconciles
// started (from the first object's to the last's), and the reconciles of
// the other objects since the change (none is due).
type moveCost struct {
	ranges, objects, reconciles, twice, never, others int
	first, last                                       time.Duration
}

// cost reads the ledger for the ranges whose holder is not the same in
// before and after, since at.
func (m *measurement) cost(before, after []string, at time.Time) moveCost {
	m.l.mu.Lock()
	defer m.l.mu.Unlock()
	c := moveCost{first: time.Duration(1 << 62)}
	var moved []int
	for i := range after {
		if after[i] != before[i] {
			moved = append(moved, i)
		}
	}
	c.ranges = len(moved)
	for key, h := range m.hashes {
		if m.churned[key] {
			continue
		}
		i := leader.RangeOf(h, measureRanges).Index
		n, firstByHolder := 0, int64(0)
		for _, s := range m.l.spans[key] {
			if s.start < at.UnixNano() {
				continue
			}
			n++
			if s.member == after[i] && (firstByHolder == 0 || s.start < firstByHolder) {
				firstByHolder = s.start
			}
		}
		if !slices.Contains(moved, i) {
			c.others += n
			continue
		}
		if firstByHolder != 0 {
			d := time.Duration(firstByHolder - at.UnixNano())
			c.first, c.last = min(c.first, d), max(c.last, d)
		}
		c.objects++
		c.reconciles += n
		switch {
		case n == 0:
			c.never++
		case n > 1:
			c.twice++
		}
	}
	return c
}
