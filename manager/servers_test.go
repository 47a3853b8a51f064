// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/metrics/metricstest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// These tests use real loopback listeners, so they run outside synctest
// bubbles, with real (short) waits.

func TestOptionsValidation(t *testing.T) {
	srv := newServer(t)
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"bad metrics address", Options{MetricsBindAddress: "8080"}, `MetricsBindAddress "8080": want "host:port"`},
		{"bad metrics port", Options{MetricsBindAddress: ":99999"}, `MetricsBindAddress ":99999": port 99999 out of range`},
		{"bad health address", Options{MetricsBindAddress: "0", HealthProbeBindAddress: "localhost"}, `HealthProbeBindAddress "localhost"`},
		{"endpoint without slash", Options{MetricsBindAddress: "0", ReadinessEndpointName: "readyz"}, `ReadinessEndpointName "readyz"`},
		{"same endpoints", Options{MetricsBindAddress: "0", ReadinessEndpointName: "/z", LivenessEndpointName: "/z"}, `both "/z"`},
		{"nil DisableFor", Options{MetricsBindAddress: "0", DisableFor: []kube.Object{nil}}, "DisableFor[0] is nil"},
		{"kindless DisableFor", Options{MetricsBindAddress: "0", DisableFor: []kube.Object{&kube.Unstructured{}}}, "DisableFor[0] (*kube.Unstructured) names no kind"},
		{"two errors at once", Options{MetricsBindAddress: "x", HealthProbeBindAddress: "y"}, `HealthProbeBindAddress "y"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(testConfig(srv), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := New(nil, Options{}); err == nil {
		t.Error("New(nil config) = nil error, want one")
	}
}

func TestDefaults(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, nil)
	o := m.opts
	// The sync period's default is the cache's, set where it is used.
	if o.Cache.SyncPeriod != 0 || cache.DefaultSyncPeriod != 10*time.Hour || o.GracefulShutdownTimeout != 30*time.Second ||
		o.ReadinessEndpointName != "/readyz" || o.LivenessEndpointName != "/healthz" || o.HealthProbeBindAddress != "0" {
		t.Errorf("defaults = %+v", o)
	}
	if m.metricsLn != nil || m.healthLn != nil {
		t.Error("listeners opened with both servers off")
	}
	var opts Options
	err := opts.withDefaults("/nonexistent")
	if err != nil || opts.MetricsBindAddress != ":8080" {
		t.Errorf("zero Options: MetricsBindAddress = %q (%v), want :8080", opts.MetricsBindAddress, err)
	}
}

// TestListenersOpenInStart: New opens no listener, so a manager that is
// never started holds no port; an address in use is Start's error, which
// names the option, comes before anything starts, and leaves no listener
// open.
func TestListenersOpenInStart(t *testing.T) {
	srv := newServer(t)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	addr := taken.Addr().String()
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()
	freeAgain := func(what string) {
		t.Helper()
		ln, err := net.Listen("tcp", freeAddr)
		if err != nil {
			t.Errorf("%s: the metrics address is held: %v", what, err)
			return
		}
		ln.Close()
	}

	m, err := New(testConfig(srv), Options{MetricsBindAddress: freeAddr})
	if err != nil {
		t.Fatal(err)
	}
	freeAgain("after New")
	_ = m

	m, err = New(testConfig(srv), Options{MetricsBindAddress: addr})
	if err != nil {
		t.Fatalf("New with the metrics address in use = %v, want nil: New opens no listener", err)
	}
	if err := m.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "start manager: MetricsBindAddress "+strconv.Quote(addr)) {
		t.Errorf("Start with the metrics address in use = %v, want an error naming MetricsBindAddress", err)
	}
	// The metrics listener opened first is closed when the health one fails.
	m, err = New(testConfig(srv), Options{MetricsBindAddress: freeAddr, HealthProbeBindAddress: addr})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "start manager: HealthProbeBindAddress") {
		t.Errorf("Start with the health address in use = %v, want an error naming HealthProbeBindAddress", err)
	}
	freeAgain("after Start failed")
	if n := len(m.caches.entries()); n != 0 {
		t.Errorf("Start that failed to listen started %d caches, want none", n)
	}
}

func httpGet(t *testing.T, url string) (int, string, error) {
	t.Helper()
	c := &http.Client{Timeout: 5 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}

// TestServersOnListeners runs the metrics and health servers on loopback
// ports: they serve while the manager runs, go on answering while the
// runnables stop, and close last.
func TestServersOnListeners(t *testing.T) {
	srv := newServer(t)
	createCM(t, srv, "default", "seed")
	m, err := New(testConfig(srv), Options{MetricsBindAddress: "127.0.0.1:0", HealthProbeBindAddress: "127.0.0.1:0",
		Cache: cache.Options{ByObject: []cache.ByObject{{Object: &kube.ConfigMap{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	stopping, release := make(chan struct{}), make(chan struct{})
	if err := m.Add(RunnableFunc(func(ctx context.Context) error {
		<-ctx.Done()
		close(stopping)
		<-release // a reconcile finishing during the stop
		return nil
	})); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	select {
	case <-m.Elected():
	case <-time.After(10 * time.Second):
		t.Fatal("the manager did not start its runnables")
	}
	// Start opened the listeners before it closed Elected.
	metricsURL := "http://" + m.metricsLn.Addr().String()
	healthURL := "http://" + m.healthLn.Addr().String()

	code, body, err := httpGet(t, metricsURL+"/metrics")
	if err != nil || code != 200 {
		t.Fatalf("GET /metrics = %d %v", code, err)
	}
	if _, err := metricstest.Parse(strings.NewReader(body)); err != nil {
		t.Errorf("GET /metrics does not parse: %v\n%s", err, body)
	}
	if !strings.Contains(body, "rest_client_requests_total{") {
		t.Errorf("GET /metrics has no rest_client_requests_total:\n%s", body)
	}
	if code, body, err := httpGet(t, healthURL+"/readyz"); err != nil || code != 200 || body != "ok" {
		t.Errorf("GET /readyz = %d %q %v, want 200 ok", code, body, err)
	}

	cancel()
	<-stopping
	if code, _, err := httpGet(t, healthURL+"/healthz"); err != nil || code != 200 {
		t.Errorf("GET /healthz while stopping = %d %v, want 200", code, err)
	}
	if code, _, err := httpGet(t, metricsURL+"/metrics"); err != nil || code != 200 {
		t.Errorf("GET /metrics while stopping = %d %v, want 200", code, err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Start = %v", err)
	}
	if _, _, err := httpGet(t, healthURL+"/healthz"); err == nil {
		t.Error("GET /healthz after Start returned succeeded, want the server closed")
	}
}

// slotServer is what the webhook slot sees of a webhook server.
type slotServer struct {
	listened  int
	listenErr error
	ready     bool
}

func (s *slotServer) Listen() error { s.listened++; return s.listenErr }
func (s *slotServer) Start(ctx context.Context) error {
	s.ready = true
	<-ctx.Done()
	return nil
}

func (s *slotServer) StartedChecker() func(*http.Request) error {
	return func(*http.Request) error {
		if !s.ready {
			return errors.New("not serving")
		}
		return nil
	}
}

func TestWebhookServerSlot(t *testing.T) {
	srv := newServer(t)
	w := &slotServer{}
	m, err := New(testConfig(srv), Options{MetricsBindAddress: "0", WebhookServer: w})
	if err != nil {
		t.Fatal(err)
	}
	if w.listened != 0 {
		t.Errorf("New called Listen %d times, want none (Start calls it)", w.listened)
	}
	if code, body := get(m.healthHandler(), "/readyz/webhook"); code != 500 {
		t.Errorf("GET /readyz/webhook before Start = %d %q, want 500", code, body)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	<-m.Elected()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Start = %v", err)
	}
	if w.listened != 1 {
		t.Errorf("Start called Listen %d times, want once", w.listened)
	}

	// A webhook server that cannot listen fails Start, which then closes
	// the listeners it opened.
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	freeAddr := free.Addr().String()
	free.Close()
	m, err = New(testConfig(srv), Options{MetricsBindAddress: freeAddr, WebhookServer: &slotServer{listenErr: errors.New("address in use")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "start manager: WebhookServer: address in use") {
		t.Errorf("Start with a webhook server that cannot listen = %v, want an error naming WebhookServer", err)
	}
	if ln, err := net.Listen("tcp", freeAddr); err != nil {
		t.Errorf("the metrics listener was left open after Start failed: %v", err)
	} else {
		ln.Close()
	}

	// The webhook package's own server: without its certificate, Start
	// fails at once.
	ws, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	m, err = New(testConfig(srv), Options{MetricsBindAddress: "0", WebhookServer: ws})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Start(t.Context()); err == nil || !strings.Contains(err.Error(), "WebhookServer") {
		t.Errorf("Start with a webhook server lacking its certificate = %v, want an error naming WebhookServer", err)
	}
}

// TestServersCloseIdleConnections: a keep-alive connection left idle
// after a request is closed by the metrics and health servers once their
// idle timeout passes (it was held for ever), and one that never sends
// its request once the header timeout passes. The timeouts are shortened
// here; New sets 90s idle and 10s for headers.
func TestServersCloseIdleConnections(t *testing.T) {
	srv := newServer(t)
	m, err := New(testConfig(srv), Options{MetricsBindAddress: "127.0.0.1:0", HealthProbeBindAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.serverTimeouts, (serverTimeouts{readHeader: 10 * time.Second, read: time.Minute, write: time.Minute, idle: 90 * time.Second}); got != want {
		t.Errorf("server timeouts = %+v, want %+v", got, want)
	}
	m.serverTimeouts.idle, m.serverTimeouts.readHeader = 200*time.Millisecond, 200*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- m.Start(ctx) }()
	<-m.Elected() // Start has opened the listeners
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start = %v", err)
		}
	}()
	for _, tc := range []struct{ name, addr, path string }{
		{"metrics", m.metricsLn.Addr().String(), "/metrics"},
		{"health", m.healthLn.Addr().String(), "/healthz"},
	} {
		conn, err := net.Dial("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// The client gives up long after the server should have.
		if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(conn, "GET "+tc.path+" HTTP/1.1\r\nHost: probe\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(conn)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("%s: read answer: %v", tc.name, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || resp.Close {
			t.Fatalf("%s: GET %s = %d (close %v), want 200 on a kept-alive connection", tc.name, tc.path, resp.StatusCode, resp.Close)
		}
		if n, err := br.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Errorf("%s: idle connection: read = %d, %v; want the server to close it (EOF)", tc.name, n, err)
		}

		// A connection that never sends its request.
		mute, err := net.Dial("tcp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer mute.Close()
		if err := mute.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			t.Fatal(err)
		}
		if n, err := mute.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
			t.Errorf("%s: mute connection: read = %d, %v; want the server to close it (EOF)", tc.name, n, err)
		}
	}
}
