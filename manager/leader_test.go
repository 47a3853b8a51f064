// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/leader"
)

var leases = kube.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

const testLease = "demo-lease"

// electing makes a manager that elects as id, caching ConfigMaps, with a
// leader probe and an other probe writing to l.
func electing(t *testing.T, srv *kubetest.Server, id string, l *ledger, edit func(*LeaderElectionOptions)) *Manager {
	t.Helper()
	m := newTestManager(t, srv, func(o *Options) {
		o.Cache.ByObject = []cache.ByObject{{Object: &kube.ConfigMap{}}}
		le := LeaderElectionOptions{LeaseName: testLease, Namespace: "default", Identity: id}
		if edit != nil {
			edit(&le)
		}
		o.LeaderElection = le
	})
	for _, r := range []Runnable{&probe{name: "leader", l: l, needs: true}, &probe{name: "other", l: l}} {
		if err := m.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

func isClosed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// leaseSpec returns the Lease's spec as stored.
func leaseSpec(t *testing.T, srv *kubetest.Server) map[string]any {
	t.Helper()
	l, err := srv.Get(leases, "default", testLease)
	if err != nil {
		t.Fatal(err)
	}
	return l["spec"].(map[string]any)
}

func TestLeaderGatingAndWarmStandby(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createCM(t, srv, "default", "seed")
		la, lb := &ledger{}, &ledger{}
		release := func(le *LeaderElectionOptions) { le.ReleaseOnCancel = true }
		a := electing(t, srv, "a", la, release)
		b := electing(t, srv, "b", lb, release)
		ra := start(t, a)
		time.Sleep(time.Second)
		synctest.Wait()
		rb := start(t, b)
		time.Sleep(time.Minute) // many polls of b
		synctest.Wait()

		if !la.has("start leader") || lb.has("start leader") {
			t.Fatalf("leader runnables: a %q, b %q; want a's only", la.matching("start"), lb.matching("start"))
		}
		if !la.has("start other") || !lb.has("start other") {
			t.Errorf("runnables without leader election: a %q, b %q; want both", la.matching("start"), lb.matching("start"))
		}
		if !isClosed(a.Elected()) || isClosed(b.Elected()) {
			t.Errorf("Elected closed: a %v, b %v; want a only", isClosed(a.Elected()), isClosed(b.Elected()))
		}
		// Warm standby: b's cache is synced and serves reads.
		if !b.synced.Load() {
			t.Error("the standby's caches have not synced")
		}
		var cm kube.ConfigMap
		if err := b.Client().Get(context.Background(), kube.Key{Namespace: "default", Name: "seed"}, &cm); err != nil || cm.Data["k"] != "v" {
			t.Errorf("standby Get = %v (%v), want the seed", err, cm.Data)
		}

		// a stops and releases; b must start leading at its next poll, and
		// start its leader runnables the moment it acquires the Lease.
		stopped := time.Now()
		if err := ra.stop(); err != nil {
			t.Fatalf("a's Start = %v, want nil", err)
		}
		for i := 0; i < 100 && !lb.has("start leader"); i++ {
			time.Sleep(100 * time.Millisecond)
		}
		started, ok := lb.at("start leader")
		if !ok {
			t.Fatal("b never started its leader runnables")
		}
		if d := started.Sub(stopped); d > time.Duration((1+leader.JitterFactor)*float64(leader.DefaultRetryPeriod)) {
			t.Errorf("b led %v after a released the Lease, want within one jittered RetryPeriod", d)
		}
		spec := leaseSpec(t, srv)
		acquired, err := time.Parse(kube.MicroTimeLayout, spec["acquireTime"].(string))
		if err != nil {
			t.Fatal(err)
		}
		if spec["holderIdentity"] != "b" {
			t.Errorf("holder = %v, want b", spec["holderIdentity"])
		}
		if d := started.Sub(acquired); d < 0 || d > leader.DefaultRetryPeriod {
			t.Errorf("b's leader runnable started %v after the Lease was acquired, want within RetryPeriod %v", d, leader.DefaultRetryPeriod)
		}
		if !isClosed(b.Elected()) {
			t.Error("b's Elected not closed")
		}
		if err := rb.stop(); err != nil {
			t.Errorf("b's Start = %v, want nil", err)
		}
	})
}

func TestLeadershipLostStopsTheManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		l := &ledger{}
		m := electing(t, srv, "a", l, nil)
		run := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		if !l.has("start leader") {
			t.Fatal("a did not lead")
		}
		// Another holder takes the Lease over behind a's back.
		lease, err := srv.Get(leases, "default", testLease)
		if err != nil {
			t.Fatal(err)
		}
		spec := lease["spec"].(map[string]any)
		spec["holderIdentity"] = "intruder"
		spec["renewTime"] = time.Now().UTC().Format(kube.MicroTimeLayout)
		if _, err := srv.Update(leases, lease); err != nil {
			t.Fatal(err)
		}
		taken := time.Now()
		<-run.done
		if !errors.Is(run.err, leader.ErrLeadershipLost) {
			t.Fatalf("Start = %v, want an error wrapping leader.ErrLeadershipLost", run.err)
		}
		if !strings.Contains(run.err.Error(), "intruder") {
			t.Errorf("Start = %v, want it to name the new holder", run.err)
		}
		stoppedAt, _ := l.at("stop leader")
		if d := stoppedAt.Sub(taken); d > leader.DefaultRetryPeriod {
			t.Errorf("the leader runnable stopped %v after the Lease was taken, want within the renew period", d)
		}
		if got := l.matching("stop"); len(got) != 2 || got[0] != "stop leader" {
			t.Errorf("stop order = %q, want the leader runnable first", got)
		}
	})
}

func TestLeaderElectionOptions(t *testing.T) {
	dir := t.TempDir()
	nsFile := filepath.Join(dir, "namespace")
	if err := os.WriteFile(nsFile, []byte("pod-ns\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := newServer(t)
	tests := []struct {
		name    string
		le      LeaderElection
		nsFile  string
		wantNS  string
		wantErr string
	}{
		{"namespace from the pod", LeaderElectionOptions{LeaseName: "x"}, nsFile, "pod-ns", ""},
		{"namespace given", LeaderElectionOptions{LeaseName: "x", Namespace: "mine"}, filepath.Join(dir, "none"), "mine", ""},
		{"not in a cluster", LeaderElectionOptions{LeaseName: "x"}, filepath.Join(dir, "none"), "", "LeaderElection.Namespace is empty"},
		{"empty namespace file", LeaderElectionOptions{LeaseName: "x"}, empty, "", "LeaderElection.Namespace is empty"},
		{"no lease name", LeaderElectionOptions{Namespace: "ns"}, nsFile, "", `LeaderElection.LeaseName ""`},
		{"bad durations", LeaderElectionOptions{LeaseName: "x", Namespace: "ns", LeaseDuration: 5 * time.Second, RenewDeadline: 10 * time.Second}, nsFile, "", "LeaseDuration 5s must be longer than RenewDeadline 10s"},
		{"bad lease name", LeaderElectionOptions{LeaseName: "Not_Valid", Namespace: "ns"}, nsFile, "", `LeaseName "Not_Valid"`},
		{"disabled needs nothing", nil, filepath.Join(dir, "none"), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := newManager(testConfig(srv), Options{MetricsBindAddress: "0", LeaderElection: tt.le}, tt.nsFile)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("New = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("New = %v", err)
			}
			if (m.election != nil) != (tt.le != nil) {
				t.Fatalf("elector made = %v, want %v", m.election != nil, tt.le != nil)
			}
			if m.election == nil {
				return
			}
			if got, _ := m.election.lease(); got != tt.wantNS {
				t.Errorf("Namespace = %q, want %q", got, tt.wantNS)
			}
		})
	}
}

// warmProbe is a leader runnable whose Warmup makes the informer its
// Start would use (Secrets, a kind not declared in ByObject).
type warmProbe struct {
	probe
	m       *Manager
	warmErr error
}

func (w *warmProbe) Warmup(ctx context.Context) error {
	w.l.add("warmup " + w.name)
	if w.warmErr != nil {
		return w.warmErr
	}
	src, err := w.m.GetInformer(ctx, &kube.Secret{})
	if err != nil {
		return err
	}
	return src.WaitForSync(ctx)
}

func TestWarmupOnStandby(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		la, lb := &ledger{}, &ledger{}
		a := electing(t, srv, "a", la, nil)
		b := electing(t, srv, "b", lb, nil)
		for _, x := range []struct {
			m *Manager
			l *ledger
		}{{a, la}, {b, lb}} {
			if err := x.m.Add(&warmProbe{probe: probe{name: "warm", l: x.l, needs: true}, m: x.m}); err != nil {
				t.Fatal(err)
			}
		}
		start(t, a)
		time.Sleep(time.Second)
		synctest.Wait()
		start(t, b)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if !lb.has("warmup warm") || lb.has("start warm") {
			t.Errorf("standby b: %q, want warmed up and not started", lb.all())
		}
		kinds := map[string]bool{}
		for _, s := range b.Cache().Stats() {
			kinds[s.Kind.Kind] = s.Synced
		}
		if !kinds["Secret"] || !kinds["ConfigMap"] {
			t.Errorf("standby cache kinds synced = %v, want Secret (warmed up) and ConfigMap (declared)", kinds)
		}
	})
}

func TestWarmupFailureStopsTheManager(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		l := &ledger{}
		m := electing(t, srv, "a", l, nil)
		boom := errors.New("no such kind")
		if err := m.Add(&warmProbe{probe: probe{name: "warm", l: l, needs: true}, m: m, warmErr: boom}); err != nil {
			t.Fatal(err)
		}
		run := start(t, m)
		<-run.done
		if !errors.Is(run.err, boom) || !strings.Contains(run.err.Error(), `warm up "warm"`) {
			t.Errorf("Start = %v, want the warm-up's error", run.err)
		}
	})
}

// TestCampaignLoggedOnce: a manager with leader election says once that
// it campaigns (the elector says it, naming the Lease and the identity;
// the manager said it again).
func TestCampaignLoggedOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		var logs lockedBuffer
		m := newTestManager(t, srv, func(o *Options) {
			o.LeaderElection = LeaderElectionOptions{LeaseName: testLease, Namespace: "default", Identity: "a"}
			o.Logger = slog.New(slog.NewTextHandler(&logs, nil))
		})
		r := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		if !isClosed(m.Elected()) {
			t.Fatal("the manager was not elected")
		}
		if err := r.stop(); err != nil {
			t.Fatal(err)
		}
		out := logs.String()
		if n := strings.Count(out, "campaigning"); n != 1 {
			t.Errorf("logs say %d times that the manager campaigns, want once:\n%s", n, out)
		}
		if !strings.Contains(out, `msg="campaigning for leadership" lease=default/`+testLease+" identity=a") {
			t.Errorf("the campaign's log does not name the Lease and identity:\n%s", out)
		}
	})
}

// lockedBuffer is a bytes.Buffer safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
