// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestShardProcesses runs a sharded ConfigMap controller
// (cmd/internal/shardmember) as three OS processes on 3,000 ConfigMaps,
// against the harness's server (ShardedListAndWatch on: the server
// filters) and against a second kube-apiserver it starts with the gate off
// (the members filter). On each: every ConfigMap is reconciled by the
// member holding its range, never by two members at once (the ledger of
// reconciles of every process, by wall clock); each member caches about a
// third; after one member is killed with SIGKILL its ranges are held by
// the others within LeaseDuration + RetryPeriod (+1s), and every ConfigMap whose
// range moved is reconciled by its new holder. An unsharded replica
// reconciles the same set, for the bytes read. It logs a table of objects
// cached, bytes read, list and watch requests, and the handover time.
//
// KUBELOOP_MEASURE=1 also runs rings of one and two members first, for
// the table of the note.
func TestShardProcesses(t *testing.T) {
	h := harnessFromEnv(t)
	bin := buildProgram(t, t.Context(), "internal/shardmember")
	var rows []string
	t.Run("gate-on", func(t *testing.T) {
		skipWithoutShardGate(t, h)
		rows = append(rows, shardRun(t, bin, shardServer{h.Server, h.Token, h.CAFile}, "on")...)
	})
	t.Run("gate-off", func(t *testing.T) {
		rows = append(rows, shardRun(t, bin, gateOffServer(t, h), "off")...)
	})
	t.Logf("%d ConfigMaps, %d ranges, LeaseDuration %v, RenewDeadline %v, RetryPeriod %v, reconcile %v\n"+
		"gate | members | member | objects cached | bytes read | lists | watches | dropped by client | handover after SIGKILL\n%s",
		shardObjects, shardRanges, shardLD, shardRD, shardRP, shardReconcile, strings.Join(rows, "\n"))
}

// The size of the check and the ring's timings: short leases keep it fast.
const (
	shardObjects   = 3000
	shardRanges    = 16
	shardLD        = 4 * time.Second
	shardRD        = 3 * time.Second
	shardRP        = 500 * time.Millisecond
	shardReconcile = 5 * time.Millisecond
)

// shardServer is a server the members and the test reach.
type shardServer struct{ host, token, caFile string }

func (s shardServer) env() []string {
	return append(os.Environ(), "KUBELOOP_SERVER="+s.host, "KUBELOOP_TOKEN="+s.token, "KUBELOOP_CA_FILE="+s.caFile)
}

// shardGateMinor is the first minor with the ShardedListAndWatch gate
// (alpha in 1.36); older servers ignore shardSelector, as the gate off does.
const shardGateMinor = 36

// skipWithoutShardGate skips a test of the gate on when the harness's
// server is older than the gate.
func skipWithoutShardGate(t *testing.T, h harness) {
	t.Helper()
	if _, minor := h.serverVersion(t); minor < shardGateMinor {
		t.Skipf("1.%d has no ShardedListAndWatch gate (1.%d and newer): it ignores shardSelector, which gate-off covers", minor, shardGateMinor)
	}
}

// gateOffServer returns a server that ignores shardSelector: the
// harness's own when it predates the gate, else one startGateOff starts.
func gateOffServer(t *testing.T, h harness) shardServer {
	t.Helper()
	if _, minor := h.serverVersion(t); minor < shardGateMinor {
		return shardServer{h.Server, h.Token, h.CAFile}
	}
	return startGateOff(t)
}

// startGateOff starts a kube-apiserver with ShardedListAndWatch off through
// the harness script, stopped when the test ends.
func startGateOff(t *testing.T) shardServer {
	t.Helper()
	script, err := filepath.Abs("../../testdata/kube-apiserver/harness.sh")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "k8s")
	if out, err := exec.Command(script, "start", dir, "--", "--feature-gates=ShardedListAndWatch=false").CombinedOutput(); err != nil {
		t.Fatalf("start a kube-apiserver with the gate off: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if out, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("stop the gate-off kube-apiserver: %v\n%s", err, out)
		}
	})
	f, err := os.Open(filepath.Join(dir, "env"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars := map[string]string{}
	for sc := bufio.NewScanner(f); sc.Scan(); {
		k, v, ok := strings.Cut(strings.TrimPrefix(sc.Text(), "export "), "=")
		if ok {
			vars[k] = strings.Trim(v, "'")
		}
	}
	return shardServer{vars["KUBELOOP_SERVER"], vars["KUBELOOP_TOKEN"], vars["KUBELOOP_CA_FILE"]}
}

// shardRun makes the ConfigMaps on srv and runs the rings and the
// unsharded replica on them; it returns the rows of the table.
func shardRun(t *testing.T, bin string, srv shardServer, gate string) []string {
	cfg := &kube.Config{Host: srv.host, BearerToken: srv.token, QPS: -1}
	cfg.TLS.CAFile = srv.caFile
	admin, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	ns := "shards-" + randomName()
	if err := admin.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	label := map[string]string{"kubeloop.dev/shard-test": ns}
	hashes := createConfigMaps(t, ctx, admin, ns, label, shardObjects)
	t.Cleanup(func() {
		_ = admin.DeleteAllOf(context.Background(), kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			kube.DeleteAllOfOptions{Namespace: ns, LabelSelector: kube.SelectorFromSet(label)})
	})
	args := []string{"--namespace", ns, "--selector", "kubeloop.dev/shard-test=" + ns,
		"--ranges", fmt.Sprint(shardRanges), "--lease-duration", shardLD.String(),
		"--renew-deadline", shardRD.String(), "--retry-period", shardRP.String(),
		"--reconcile-time", shardReconcile.String()}
	var rows []string
	row := func(members, id string, s memberStats, handover string) {
		rows = append(rows, fmt.Sprintf("%s | %s | %s | %d | %d | %d | %d | %d | %s",
			gate, members, id, s.Objects, s.WireBytes, s.ListRequests, s.WatchRequests, s.ShardDropped, handover))
	}

	// The unsharded replica, for comparison.
	l := newLedger(0)
	p := startMember(t, bin, "unsharded", srv.env(), l, slices.Concat(args, []string{"--unsharded"})...)
	waitPending(t, l, hashes, []string{p.id}, time.Minute, "the unsharded replica")
	row("unsharded", p.id, p.askStats(t), "")
	p.stop(t)

	if os.Getenv("KUBELOOP_MEASURE") != "" {
		for n := 1; n <= 2; n++ {
			l := newLedger(shardRanges)
			ring := slices.Concat(args, []string{"--ring", fmt.Sprintf("m%d-%s", n, ns)})
			var ps []*shardProc
			var ids []string
			for i := range n {
				ids = append(ids, fmt.Sprintf("m%d-%d", n, i))
				ps = append(ps, startMember(t, bin, ids[i], srv.env(), l, ring...))
			}
			waitPending(t, l, hashes, ids, time.Minute, fmt.Sprintf("a ring of %d", n))
			for _, p := range ps {
				row(fmt.Sprint(n), p.id, p.askStats(t), "")
			}
			for _, p := range ps {
				p.stop(t)
			}
			if o := l.overlaps(nil); len(o) > 0 {
				t.Errorf("a ring of %d: %d reconciles by two members at once: %v", n, len(o), o[:min(len(o), 10)])
			}
		}
	}

	// Three members, one killed.
	l = newLedger(shardRanges)
	ring := slices.Concat(args, []string{"--ring", "m3-" + ns})
	ids := []string{"m0", "m1", "m2"}
	var ps []*shardProc
	for _, id := range ids {
		ps = append(ps, startMember(t, bin, id, srv.env(), l, ring...))
	}
	waitPending(t, l, hashes, ids, time.Minute, "a ring of 3")
	total := 0
	for _, p := range ps {
		s := p.askStats(t)
		total += s.Objects
		row("3", p.id, s, "")
		if lo, hi := shardObjects/5, shardObjects/2; s.Objects < lo || s.Objects > hi {
			t.Errorf("%s caches %d of %d ConfigMaps, want between %d and %d", p.id, s.Objects, shardObjects, lo, hi)
		}
		if gate == "off" && s.ShardDropped == 0 {
			t.Errorf("%s dropped no object on a server with the gate off", p.id)
		}
		if gate == "on" && s.ShardDropped != 0 {
			t.Errorf("%s dropped %d objects on a server that filters", p.id, s.ShardDropped)
		}
	}
	if total != shardObjects {
		t.Errorf("the members cache %d ConfigMaps in all, want %d", total, shardObjects)
	}

	var theirs []int
	for i, who := range l.holders() {
		if who == "m1" {
			theirs = append(theirs, i)
		}
	}
	killed := time.Now()
	if err := ps[1].cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-ps[1].exited
	handover := waitHeld(t, l, theirs, killed, shardLD+shardRP+5*time.Second)
	// The bound of the issue, LeaseDuration + RetryPeriod, and a second of
	// slack for processes on a loaded machine, as TestProcessFailover
	// (leader) allows: a member counts LeaseDuration from when it saw m1's
	// Lease change, up to a RetryPeriod after m1 wrote it, and sees the
	// expiry at its next step.
	bound := shardLD + shardRP
	if handover > bound+time.Second {
		t.Errorf("m1's ranges %v were held elsewhere %v after SIGKILL, want at most LeaseDuration + RetryPeriod = %v (+1s)", theirs, handover, bound)
	}
	live := []string{"m0", "m2"}
	waitPending(t, l, hashes, live, time.Minute, "m0 and m2 after m1's death")
	total = 0
	for _, p := range []*shardProc{ps[0], ps[2]} {
		s := p.askStats(t)
		total += s.Objects
		row("3, m1 killed", p.id, s, handover.Round(time.Millisecond).String())
	}
	if total != shardObjects {
		t.Errorf("after m1's death the members cache %d ConfigMaps in all, want %d", total, shardObjects)
	}
	if o := l.overlaps(map[string]int64{"m1": killed.UnixNano()}); len(o) > 0 {
		t.Errorf("%d reconciles of one ConfigMap by two members at once: %v", len(o), o[:min(len(o), 10)])
	}
	t.Logf("gate %s: m1 held ranges %v; held elsewhere %v after SIGKILL (bound %v); %d ConfigMaps reconciled",
		gate, theirs, handover, bound, l.reconciled())
	ps[0].stop(t)
	ps[2].stop(t)
	return rows
}

// createConfigMaps makes n ConfigMaps labelled label in ns, a few at a
// time, and returns the FNV-1a hash of each one's uid by key.
func createConfigMaps(t *testing.T, ctx context.Context, c *kube.Client, ns string, label map[string]string, n int) map[string]uint64 {
	t.Helper()
	var (
		mu     sync.Mutex
		hashes = map[string]uint64{}
		next   atomic.Int64
		wg     sync.WaitGroup
		failed atomic.Value
	)
	for range 8 {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
				cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%04d", i), Labels: label},
					Data: map[string]string{"n": fmt.Sprint(i)}}
				if err := c.Create(ctx, cm); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
				mu.Lock()
				hashes[cm.Namespace+"/"+cm.Name] = kube.ShardHash(string(cm.UID))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatalf("create ConfigMaps: %v", err)
	}
	return hashes
}

// waitPending waits until l.pending is empty for live, and fails the test
// after limit.
func waitPending(t *testing.T, l *ledger, hashes map[string]uint64, live []string, limit time.Duration, what string) {
	t.Helper()
	start := time.Now()
	for {
		p := l.pending(hashes, live)
		if len(p) == 0 {
			t.Logf("%s: every ConfigMap reconciled by its holder %v after start", what, time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > limit {
			t.Fatalf("%s: %d ConfigMaps not reconciled by the holder of their range within %v (holders %v), e.g. %v",
				what, len(p), limit, l.holders(), p[:min(len(p), 5)])
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitHeld waits until every range of idx has a holder that started
// holding it after since, and returns how long after since the last one
// did; it fails the test after limit.
func waitHeld(t *testing.T, l *ledger, idx []int, since time.Time, limit time.Duration) time.Duration {
	t.Helper()
	for {
		l.mu.Lock()
		var last int64
		done := true
		for _, i := range idx {
			if l.holder[i] == "" || l.since[i] < since.UnixNano() {
				done = false
			}
			last = max(last, l.since[i])
		}
		holders := append([]string(nil), l.holder...)
		l.mu.Unlock()
		if done {
			return time.Duration(last - since.UnixNano())
		}
		if time.Since(since) > limit {
			t.Fatalf("ranges %v not held by another member within %v of SIGKILL (holders %v)", idx, limit, holders)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
