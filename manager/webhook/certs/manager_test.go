// SPDX-License-Identifier: Apache-2.0

package certs_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/webhook"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// TestWithManager wires the package as its doc says: the Certs in the
// webhook server of a manager with leader election, the Injector added
// to the manager. The elected manager injects the caBundle, and a client
// that trusts only that caBundle reaches the webhook over TLS. Real time
// (the webhook listens on loopback, which synctest cannot wait on).
func TestWithManager(t *testing.T) {
	srv := newServer(t)
	createVWC(t, srv, "widgets")
	opts := testOptions()
	opts.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
	kc, err := certs.New(client(t, srv), opts)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, Certificates: kc})
	if err != nil {
		t.Fatal(err)
	}
	ws.Register("/validate", webhook.Admission(func(context.Context, *webhook.AdmissionRequest) webhook.AdmissionResponse {
		return webhook.Allowed(nil)
	}))
	cfg := srv.Config()
	cfg.QPS = -1
	mgr, err := manager.New(cfg, manager.Options{
		MetricsBindAddress: "0",
		WebhookServer:      ws,
		LeaderElection:     manager.LeaderElectionOptions{LeaseName: "widgets", Namespace: secretNS},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(kc.Injector()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		if err := mgr.Start(ctx); err != nil {
			t.Errorf("manager Start() = %v, want nil", err)
		}
	})
	defer wg.Wait()
	defer cancel()

	var bundle []byte
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if bundle = caBundles(t, srv, "widgets")[0]; len(bundle) > 0 && ws.Addr() != nil && ws.StartedChecker()(nil) == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no caBundle injected or the webhook server not ready after 10s: %v", ws.StartedChecker()(nil))
		}
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	defer hc.CloseIdleConnections()
	resp, err := hc.Post("https://"+ws.Addr().String()+"/validate", "application/json", nil)
	if err != nil {
		t.Fatalf("POST to the webhook, trusting the injected caBundle: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest { // an empty review, answered
		t.Errorf("POST of an empty review = %s, want 400 Bad Request", resp.Status)
	}
}
