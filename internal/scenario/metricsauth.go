// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/metricsauth"
	"github.com/kubeloop/kubeloop/manager/webhook/certs"
)

// testMetricsAuth: a manager whose metrics package metricsauth serves
// over HTTPS reviews each caller's token with the server (TokenReview,
// created through kube.Client without a name) and its get of /metrics
// (a SubjectAccessReview of the non-resource URL): the admin's token
// reads the metrics, no token gets 401, the denied user's token 403. A
// nameless create of a kind whose objects have names is refused by the
// server itself.
func testMetricsAuth(t *testing.T, f *fixture) {
	if f.env.DeniedConfig == nil {
		t.Fatal("the environment has no denied user: this scenario cannot run")
	}
	err := f.c.Create(f.ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: f.ns}})
	if !kube.IsInvalid(err) || !strings.Contains(err.Error(), "name or generateName is required") {
		t.Errorf("create of a ConfigMap without a name = %v, want Invalid: name or generateName is required", err)
	}

	m, err := manager.New(f.env.Config, manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		t.Fatal(err)
	}
	kc, err := certs.New(nil, certs.Options{Dir: t.TempDir(), IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := metricsauth.New(m, metricsauth.Options{BindAddress: "127.0.0.1:0", Certificates: kc})
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(ms); err != nil {
		t.Fatal(err)
	}
	defer f.run(t, "manager", m.Start)()
	bundle, changed := kc.CABundle()
	for bundle == nil {
		select {
		case <-changed:
		case <-f.ctx.Done():
			t.Fatal("no certificate made for the metrics server")
		}
		bundle, changed = kc.CABundle()
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(bundle)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}}
	defer client.CloseIdleConnections()
	url := "https://" + ms.Addr().String() + "/metrics"
	for _, tc := range []struct {
		user  string
		token string
		code  int
		body  string
	}{
		{"admin", bearerToken(t, f.env.Config), 200, "rest_client_requests_total{"},
		{"no token", "", 401, "Unauthorized"},
		{"unknown token", "not-a-token-of-this-server", 401, "Unauthorized"},
		{"denied", bearerToken(t, f.env.DeniedConfig), 403, "may not get /metrics"},
	} {
		req, err := http.NewRequestWithContext(f.ctx, http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		if tc.token != "" {
			req.Header.Set("Authorization", "Bearer "+tc.token)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET /metrics as %s: %v", tc.user, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.code || !strings.Contains(string(b), tc.body) {
			t.Errorf("GET /metrics as %s = %d %.100q, want %d with %q", tc.user, resp.StatusCode, b, tc.code, tc.body)
		}
	}
}

// bearerToken is the token cfg authenticates with.
func bearerToken(t *testing.T, cfg *kube.Config) string {
	t.Helper()
	if cfg.BearerToken != "" {
		return cfg.BearerToken
	}
	if cfg.BearerTokenFile != "" {
		b, err := os.ReadFile(cfg.BearerTokenFile)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(string(b))
	}
	t.Fatal("the config has no bearer token")
	return ""
}
