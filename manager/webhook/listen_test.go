// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// TestWebhookServerListenEarly: a program that lets the system choose the
// port (Port -1) calls Listen to learn it, then gives the server to a
// manager, whose Start calls Listen again: Start serves on the socket the
// first Listen bound, where it failed with "already listening".
func TestWebhookServerListenEarly(t *testing.T) {
	ca := newTestCA(t)
	dir := t.TempDir()
	ca.writePair(t, dir, time.Now())
	ws, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	ws.Register("/validate", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("served"))
	}))
	if err := ws.Listen(); err != nil {
		t.Fatalf("Listen() = %v", err)
	}
	addr := ws.Addr()
	if err := ws.Listen(); err != nil || ws.Addr().String() != addr.String() {
		t.Fatalf("Listen() again = %v, Addr %v; want nil and %v", err, ws.Addr(), addr)
	}

	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	mgr, err := manager.New(srv.Config(), manager.Options{MetricsBindAddress: "0", WebhookServer: ws})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool}}}
	defer hc.CloseIdleConnections()
	var body string
	for deadline := time.Now().Add(10 * time.Second); body != "served"; time.Sleep(10 * time.Millisecond) {
		select {
		case err := <-done:
			t.Fatalf("manager Start() = %v, want it serving on %v", err, addr)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("POST https://%v/validate got %q after 10s, want served", addr, body)
		}
		if resp, err := hc.Post("https://"+addr.String()+"/validate", "application/json", nil); err == nil {
			b := make([]byte, 16)
			n, _ := resp.Body.Read(b)
			resp.Body.Close()
			body = string(b[:n])
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("manager Start() = %v, want nil", err)
	}
}

// records is a slog handler that keeps every record.
type records struct {
	mu   sync.Mutex
	recs []slog.Record
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
	return nil
}
func (r *records) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *records) WithGroup(string) slog.Handler      { return r }

// at returns the messages logged at level or above.
func (r *records) at(level slog.Level) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, rec := range r.recs {
		if rec.Level >= level {
			out = append(out, rec.Message)
		}
	}
	return out
}

// TestWebhookServerNoCertificateYetIsNotAWarning: while its certificate
// source has no certificate yet (package certs reading or making it at
// start), the server refuses handshakes and says so at debug level, not
// as a warning; a client's own failure (plain HTTP to the TLS port) is
// still a warning.
func TestWebhookServerNoCertificateYetIsNotAWarning(t *testing.T) {
	logs := &records{}
	src := &source{}
	s, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, Certificates: src, Logger: slog.New(logs)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start() = %v", err)
		}
	}()
	conn, err := tls.Dial("tcp", s.Addr().String(), &tls.Config{InsecureSkipVerify: true})
	if err == nil {
		conn.Close()
		t.Fatal("TLS handshake without a certificate succeeded")
	}
	// The server logs the refusal on its own goroutine, after the alert.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(strings.Join(logs.at(slog.LevelDebug), "\n"), "TLS handshake error"); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no record of the refused handshake after 10s: %q", logs.at(slog.LevelDebug))
		}
	}
	if warns := logs.at(slog.LevelWarn); len(warns) > 0 {
		t.Errorf("refusing a handshake before the certificate was made logged %q, want no warning", warns)
	}

	plain, err := net.Dial("tcp", s.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	_, _ = plain.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	_, _ = plain.Read(make([]byte, 512))
	plain.Close()
	for deadline := time.Now().Add(10 * time.Second); len(logs.at(slog.LevelWarn)) == 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("plain HTTP to the TLS port logged no warning after 10s")
		}
	}
}
