// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/manager/webhook"
)

// whPKI is a test CA and a serving certificate for 127.0.0.1 and
// localhost, written as tls.crt and tls.key in Dir.
type whPKI struct {
	*testCA
	Dir string
}

func newWebhookPKI(t *testing.T) *whPKI {
	t.Helper()
	p := &whPKI{testCA: newTestCA(t), Dir: t.TempDir()}
	if err := p.WriteServing(p.Dir, "127.0.0.1", "::1", "localhost"); err != nil {
		t.Fatal(err)
	}
	return p
}

// Client is an HTTPS client that trusts the test CA only.
func (p *whPKI) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: p.Pool}}}
}

// startWebhookServer runs s until the test ends and waits until it is
// ready. It returns the base URL.
func startWebhookServer(t testing.TB, s *webhook.Server) string {
	t.Helper()
	if err := s.Listen(); err != nil {
		t.Fatalf("Listen() error: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start() = %v, want nil", err)
		}
	})
	ready := s.StartedChecker()
	for deadline := time.Now().Add(10 * time.Second); ready(nil) != nil; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the webhook server is not ready after 10s")
		}
	}
	return "https://" + s.Addr().String()
}
