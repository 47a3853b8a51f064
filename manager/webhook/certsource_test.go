// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"crypto/tls"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/manager/webhook"
)

// source is a webhook.CertificateSource with a Start method, whose
// certificate the test sets.
type source struct {
	startErr error // what Start returns at once; nil blocks until ctx is done

	mu      sync.Mutex
	cert    *tls.Certificate
	running bool // Start was called and has not returned
	stopped bool // Start has returned
}

func (s *source) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cert == nil {
		return nil, errors.New("not yet")
	}
	return s.cert, nil
}

func (s *source) Start(ctx context.Context) error {
	s.mu.Lock()
	s.running = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running, s.stopped = false, true
		s.mu.Unlock()
	}()
	if s.startErr != nil {
		return s.startErr
	}
	<-ctx.Done()
	return nil
}

func (s *source) set(c *tls.Certificate) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cert = c
}

func (s *source) state() (running, stopped bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.running, s.stopped
}

// TestWebhookServerCertificateSource: a server given Options.Certificates
// needs no files, runs the source's Start while it serves, is not ready
// until the source has a certificate, then serves that certificate; the
// source stops with the server.
func TestWebhookServerCertificateSource(t *testing.T) {
	ca := newTestCA(t)
	certPEM, keyPEM, serial := ca.issue(t)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	src := &source{}
	s, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: "/nonexistent", Certificates: src})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatalf("Listen() = %v, want nil: a certificate source needs no files", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if running, _ := src.state(); running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the source's Start was not called within 10s")
		}
	}
	if err := s.StartedChecker()(nil); err == nil || !strings.Contains(err.Error(), "no certificate") {
		t.Errorf("StartedChecker()() without a certificate = %v, want it not ready", err)
	}
	src.set(&pair)
	for deadline := time.Now().Add(10 * time.Second); s.StartedChecker()(nil) != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("StartedChecker()() = %v after 10s, want ready", s.StartedChecker()(nil))
		}
	}
	if got := ca.servedSerial(t, s.Addr().String()); got != serial {
		t.Errorf("served serial %d, want the source's %d", got, serial)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Start() = %v, want nil", err)
	}
	if running, stopped := src.state(); running || !stopped {
		t.Errorf("source running=%v stopped=%v after Start returned, want stopped", running, stopped)
	}
}

// TestWebhookServerCertificateSourceFails: a source whose Start fails
// stops the server with its error.
func TestWebhookServerCertificateSourceFails(t *testing.T) {
	src := &source{startErr: errors.New("forbidden")}
	s, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, Certificates: src})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "certificates: forbidden") {
		t.Errorf("Start() = %v, want the source's error", err)
	}
}
