// SPDX-License-Identifier: Apache-2.0

package metricsauth_test

import (
	"context"
	"crypto/tls"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/metricsauth"
)

// The tokens of the kubetest server: admin is allowed everything, denied
// nothing (as the harness's users).
const (
	adminToken  = "admin-token"
	deniedToken = "denied-token"
)

// fixture is a manager on a kubetest server whose metrics a
// metricsauth.Server serves on loopback, with a certificate of ca.
type fixture struct {
	api    *kubetest.Server
	ms     *metricsauth.Server
	client *http.Client // trusts ca only
	url    string       // https://ADDR/metrics
}

// start runs a manager with a metrics server of opts (BindAddress and
// CertDir filled in) until the test ends.
func start(t *testing.T, opts metricsauth.Options) *fixture {
	t.Helper()
	api := kubetest.New(kubetest.Options{Tokens: map[string]string{adminToken: "admin", deniedToken: "denied"}})
	t.Cleanup(api.Close)
	api.Deny("denied", "*", "*")
	ca, err := kubetest.NewCA("metrics-test-ca")
	if err != nil {
		t.Fatal(err)
	}
	if opts.Certificates == nil {
		opts.CertDir = t.TempDir()
		if err := ca.WriteServing(opts.CertDir, "127.0.0.1"); err != nil {
			t.Fatal(err)
		}
	}
	opts.BindAddress = "127.0.0.1:0"
	cfg := api.ConfigFor("admin")
	cfg.QPS = -1
	mgr, err := manager.New(cfg, manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := metricsauth.New(mgr, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(ms); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager Start() = %v, want nil", err)
		}
	})
	select {
	case <-mgr.Elected(): // the servers started before the caches
	case err := <-done:
		t.Fatalf("manager Start() = %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("the manager did not start within 10s")
	}
	f := &fixture{api: api, ms: ms, url: "https://" + ms.Addr().String() + "/metrics",
		client: &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool}}}}
	t.Cleanup(f.client.CloseIdleConnections)
	return f
}

// get scrapes path with token ("" for none) and returns the status code
// and the body.
func (f *fixture) get(t *testing.T, url, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := f.client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
