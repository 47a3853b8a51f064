// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the test harness: a kubetest server reached through its
// in-process transport (usable inside synctest bubbles), managers run for
// the length of a test, runnables that write what happens to them in a
// ledger, and a log handler that keeps the manager's records.

var configMaps = kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// newServer starts a kubetest server; inside a bubble, call it inside.
func newServer(t testing.TB) *kubetest.Server {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	// The tests count ConfigMaps cluster-wide: start without the one every
	// server (and kubetest) holds in kube-system.
	if err := srv.Delete(configMaps, "kube-system", "kube-apiserver-legacy-service-account-token-tracking"); err != nil {
		t.Fatal(err)
	}
	return srv
}

// testConfig is srv's in-process config without client-side pacing.
func testConfig(srv *kubetest.Server) *kube.Config {
	cfg := srv.Config()
	cfg.QPS = -1
	return cfg
}

// newTestManager makes a manager on srv with no listeners, edited by edit.
func newTestManager(t testing.TB, srv *kubetest.Server, edit func(*Options)) *Manager {
	t.Helper()
	opts := Options{MetricsBindAddress: "0"}
	if edit != nil {
		edit(&opts)
	}
	m, err := newManager(testConfig(srv), opts, "/nonexistent/namespace")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return m
}

// running is a manager run by a test.
type running struct {
	cancel context.CancelFunc
	done   chan struct{}
	err    error // Start's result, set before done is closed
}

// start runs m.Start until stop (or the end of the test).
func start(t testing.TB, m *Manager) *running {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = m.Start(ctx)
	}()
	t.Cleanup(func() { r.cancel(); <-r.done })
	return r
}

// stop cancels Start's context and returns its result.
func (r *running) stop() error {
	r.cancel()
	<-r.done
	return r.err
}

// exited reports whether Start has returned.
func (r *running) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// ledger records what happens, in order, with the fake time.
type ledger struct {
	mu      sync.Mutex
	entries []string
	times   map[string]time.Time
}

func (l *ledger) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.entries = append(l.entries, s)
	if l.times == nil {
		l.times = map[string]time.Time{}
	}
	if _, ok := l.times[s]; !ok {
		l.times[s] = time.Now()
	}
}

func (l *ledger) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.entries)
}

func (l *ledger) has(s string) bool { return slices.Contains(l.all(), s) }

// at returns when s was first recorded.
func (l *ledger) at(s string) (time.Time, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	at, ok := l.times[s]
	return at, ok
}

// matching returns the entries with the given prefix, in order.
func (l *ledger) matching(prefix string) []string {
	var out []string
	for _, e := range l.all() {
		if strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// probe is a runnable that records its start and stop in a ledger.
type probe struct {
	name  string
	l     *ledger
	needs bool // NeedLeaderElection
	// onStart, if set, runs at the start of Start, with Start's context.
	onStart func(ctx context.Context)
	// err, if set, is returned once ctx is done (or at once, with fail).
	err  error
	fail bool
	// hang makes Start ignore ctx until the channel is closed.
	hang chan struct{}
}

func (p *probe) Name() string             { return p.name }
func (p *probe) NeedLeaderElection() bool { return p.needs }

func (p *probe) Start(ctx context.Context) error {
	p.l.add("start " + p.name)
	if p.onStart != nil {
		p.onStart(ctx)
	}
	if p.fail {
		return p.err
	}
	if p.hang != nil {
		<-p.hang
	} else {
		<-ctx.Done()
	}
	p.l.add("stop " + p.name)
	return p.err
}

// cacheProbe is a probe that the manager runs as a cache: it syncs after
// syncAfter.
type cacheProbe struct {
	probe
	syncAfter time.Duration
}

func (c *cacheProbe) WaitForSync(ctx context.Context) error {
	select {
	case <-time.After(c.syncAfter):
		c.l.add("synced " + c.name)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// logRecorder is a slog handler that keeps every record's message and
// attributes as "msg key=value ...".
type logRecorder struct {
	mu    *sync.Mutex
	lines *[]string
	attrs []slog.Attr
}

func newLogRecorder() *logRecorder { return &logRecorder{mu: &sync.Mutex{}, lines: new([]string)} }

func (h *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (h *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	for _, a := range h.attrs {
		b.WriteString(" " + a.String())
	}
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	*h.lines = append(*h.lines, b.String())
	return nil
}

func (h *logRecorder) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &logRecorder{mu: h.mu, lines: h.lines, attrs: append(slices.Clone(h.attrs), attrs...)}
}

func (h *logRecorder) WithGroup(string) slog.Handler { return h }

// matching returns the recorded lines that start with prefix.
func (h *logRecorder) matching(prefix string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, l := range *h.lines {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// createCM seeds srv with a ConfigMap.
func createCM(t testing.TB, srv *kubetest.Server, ns, name string) {
	t.Helper()
	if _, err := srv.Create(configMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"namespace": ns, "name": name}, "data": map[string]any{"k": "v"}}); err != nil {
		t.Fatalf("create configmap %s/%s: %v", ns, name, err)
	}
}
