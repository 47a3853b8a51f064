// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/manager/webhook"
)

// running is a server started by startServer.
type running struct {
	s      *webhook.Server
	addr   string
	client *http.Client
	stop   func() error // cancels Start and returns its error
}

// startServer starts a server on a free loopback port with a fresh
// certificate in a temporary directory.
func startServer(t *testing.T, ca *testCA, dir string, register func(*webhook.Server)) *running {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, "tls.crt")); err != nil {
		ca.writePair(t, dir, time.Now())
	}
	s, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: dir})
	if err != nil {
		t.Fatalf("New() error: %v", err)
	}
	if register != nil {
		register(s)
	}
	if err := s.StartedChecker()(nil); err == nil {
		t.Errorf("StartedChecker()() before Start = nil, want an error")
	}
	if err := s.Listen(); err != nil {
		t.Fatalf("Listen() error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for s.StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatalf("StartedChecker()() still failing after 10s")
		}
		time.Sleep(time.Millisecond)
	}
	r := &running{
		s:    s,
		addr: s.Addr().String(),
		client: &http.Client{Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: ca.Pool},
		}},
	}
	var stopped bool
	var stopErr error
	r.stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			stopErr = <-done
			r.client.CloseIdleConnections()
		}
		return stopErr
	}
	t.Cleanup(func() { _ = r.stop() })
	return r
}

func TestWebhookServerServesTLS(t *testing.T) {
	ca := newTestCA(t)
	r := startServer(t, ca, t.TempDir(), func(s *webhook.Server) {
		s.Register("/hello", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, "hello "+r.TLS.ServerName)
		}))
	})
	for _, host := range []string{"127.0.0.1", "localhost"} {
		url := "https://" + net.JoinHostPort(host, strconv.Itoa(r.s.Addr().(*net.TCPAddr).Port)) + "/hello"
		resp, err := r.client.Get(url)
		if err != nil {
			t.Fatalf("GET %s error: %v", url, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.HasPrefix(string(body), "hello") {
			t.Errorf("GET %s = %d %q, want 200 hello", url, resp.StatusCode, body)
		}
	}

	resp, err := r.client.Get("https://" + r.addr + "/hello/")
	if err != nil {
		t.Fatalf("GET /hello/ error: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("GET /hello/ = %d, want 404 (paths are exact)", resp.StatusCode)
	}

	old := &tls.Config{RootCAs: ca.Pool, ServerName: "127.0.0.1", MaxVersion: tls.VersionTLS11}
	if conn, err := tls.Dial("tcp", r.addr, old); err == nil {
		conn.Close()
		t.Errorf("TLS 1.1 handshake succeeded, want it refused")
	}

	if err := r.stop(); err != nil {
		t.Errorf("Start() = %v, want nil after cancel", err)
	}
	if err := r.s.StartedChecker()(nil); err == nil {
		t.Errorf("StartedChecker()() after Start returned = nil, want an error")
	}
	if conn, err := net.Dial("tcp", r.addr); err == nil {
		conn.Close()
		t.Errorf("dial %s after stop succeeded, want the listener closed", r.addr)
	}
}

func TestWebhookServerCertificateRotation(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	start := time.Now().Add(-time.Minute)
	first := ca.writePair(t, dir, start)
	r := startServer(t, ca, dir, nil)
	if got := ca.servedSerial(t, r.addr); got != first {
		t.Fatalf("served serial = %d, want %d", got, first)
	}

	// A new pair, written with a later time: served at the next handshake.
	second := ca.writePair(t, dir, start.Add(time.Second))
	if got := ca.servedSerial(t, r.addr); got != second {
		t.Fatalf("after rotation, served serial = %d, want %d", got, second)
	}

	// Half a rotation (a certificate whose key is not there yet) keeps the
	// previous pair; the key's arrival completes it.
	certPEM, keyPEM, third := ca.issue(t)
	writeFile(t, dir, "tls.crt", certPEM, start.Add(2*time.Second))
	if got := ca.servedSerial(t, r.addr); got != second {
		t.Fatalf("with a mismatched key, served serial = %d, want %d (the previous pair)", got, second)
	}
	writeFile(t, dir, "tls.key", keyPEM, start.Add(2*time.Second))
	if got := ca.servedSerial(t, r.addr); got != third {
		t.Fatalf("once the key is written, served serial = %d, want %d", got, third)
	}

	// Files gone for a moment: the last pair is still served.
	if err := os.Remove(filepath.Join(dir, "tls.key")); err != nil {
		t.Fatal(err)
	}
	if got := ca.servedSerial(t, r.addr); got != third {
		t.Fatalf("with the key removed, served serial = %d, want %d", got, third)
	}
}

func TestWebhookServerListenErrors(t *testing.T) {
	ca := newTestCA(t)
	occupied, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer occupied.Close()
	busyPort := occupied.Addr().(*net.TCPAddr).Port

	withPair := t.TempDir()
	ca.writePair(t, withPair, time.Now())
	mismatched := t.TempDir()
	certPEM, _, _ := ca.issue(t)
	_, otherKey, _ := ca.issue(t)
	writeFile(t, mismatched, "tls.crt", certPEM, time.Now())
	writeFile(t, mismatched, "tls.key", otherKey, time.Now())
	empty := t.TempDir()

	tests := []struct {
		name string
		opts webhook.Options
		want []string // substrings of the error
	}{
		{"missing certificate", webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: empty},
			[]string{filepath.Join(empty, "tls.crt"), "no such file"}},
		{"missing key", webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: withPair, KeyName: "other.key"},
			[]string{filepath.Join(withPair, "other.key")}},
		{"mismatched key", webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: mismatched},
			[]string{filepath.Join(mismatched, "tls.crt"), "private key does not match"}},
		{"port in use", webhook.Options{Host: "127.0.0.1", Port: busyPort, CertDir: withPair},
			[]string{"listen on 127.0.0.1:" + strconv.Itoa(busyPort)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := webhook.New(tt.opts)
			if err != nil {
				t.Fatalf("New() error: %v", err)
			}
			err = s.Listen()
			if err == nil {
				t.Fatalf("Listen() = nil, want an error")
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Listen() = %q, want it to contain %q", err, w)
				}
			}
			// Start reports the same failure when Listen was not called.
			s2, _ := webhook.New(tt.opts)
			if err := s2.Start(context.Background()); err == nil {
				t.Errorf("Start() = nil, want an error")
			}
		})
	}
}

func TestWebhookServerOptions(t *testing.T) {
	tests := []struct {
		opts    webhook.Options
		wantErr string
	}{
		{webhook.Options{Port: 70000}, "Port 70000"},
		{webhook.Options{CertName: "../tls.crt"}, "CertName"},
		{webhook.Options{KeyName: ".."}, "KeyName"},
		{webhook.Options{}, ""},
	}
	for _, tt := range tests {
		_, err := webhook.New(tt.opts)
		if (err == nil) != (tt.wantErr == "") || err != nil && !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("New(%+v) = %v, want error containing %q", tt.opts, err, tt.wantErr)
		}
	}
	if got, want := webhook.DefaultCertDir(), filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs"); got != want {
		t.Errorf("DefaultCertDir() = %q, want %q", got, want)
	}
}

func TestWebhookServerStartTwiceAndListenTwice(t *testing.T) {
	ca := newTestCA(t)
	r := startServer(t, ca, t.TempDir(), nil)
	if err := r.s.Start(context.Background()); err == nil || !strings.Contains(err.Error(), "started before") {
		t.Errorf("second Start() = %v, want started before", err)
	}
	if err := r.s.Listen(); err == nil || !strings.Contains(err.Error(), "already listening") {
		t.Errorf("Listen() after Start = %v, want already listening", err)
	}
}

func TestWebhookServerDrainsRequestsInFlight(t *testing.T) {
	ca := newTestCA(t)
	entered, release := make(chan struct{}), make(chan struct{})
	r := startServer(t, ca, t.TempDir(), func(s *webhook.Server) {
		s.Register("/slow", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			close(entered)
			<-release
			_, _ = io.WriteString(w, "done")
		}))
	})
	got := make(chan string, 1)
	go func() {
		resp, err := r.client.Get("https://" + r.addr + "/slow")
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	<-entered
	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	select {
	case err := <-stopped:
		t.Fatalf("Start returned (%v) with a request in flight", err)
	case <-time.After(50 * time.Millisecond):
	}
	// Start marks itself not serving on its own goroutine, some time
	// after the cancel: wait for it (the request is still held), not for
	// a fixed time.
	for deadline := time.Now().Add(10 * time.Second); r.s.StartedChecker()(nil) == nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("StartedChecker()() while draining still nil after 10s, want an error")
		}
	}
	select {
	case err := <-stopped:
		t.Fatalf("Start returned (%v) with a request in flight", err)
	default:
	}
	close(release)
	if body := <-got; body != "done" {
		t.Errorf("request in flight at shutdown got %q, want done", body)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Start() = %v, want nil", err)
	}
}

func TestWebhookRegisterPanics(t *testing.T) {
	s, err := webhook.New(webhook.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Register("/a", http.NotFoundHandler())
	for _, path := range []string{"/a", "a", "/b?x", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", path)
				}
			}()
			s.Register(path, http.NotFoundHandler())
		}()
	}
}
