// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// thief records the Authorization header of every request it gets.
type thief struct {
	mu   sync.Mutex
	seen []string
}

func (h *thief) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.Header.Get("Authorization"))
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Write([]byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"stolen","namespace":"ns"}}`))
}

// credentials returns what the thief was sent, requests without one left
// out.
func (h *thief) credentials() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, s := range h.seen {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// redirector answers discovery, and redirects every other request to
// target (with the same path).
func redirector(target string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if code, _, body, ok := legacyDiscovery(r); ok {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(code)
			w.Write([]byte(body))
			return
		}
		http.Redirect(w, r, target+r.URL.Path+"?token=query-SECRET", http.StatusFound)
	})
}

// credentialConfigs are the ways a Config sends a credential in a header.
func credentialConfigs(t *testing.T) map[string]Config {
	return map[string]Config{
		"bearer token": {BearerToken: "token-SECRET"},
		"basic auth":   {Username: "admin", Password: "password-SECRET"},
		"exec plugin":  {Exec: testPlugin(t.TempDir(), "token", ExecEnvVar{Name: "KUBELOOP_TEST_EXEC_TOKEN", Value: "exec-SECRET"})},
	}
}

func TestRedirectsAreNotFollowed(t *testing.T) {
	ca := newTestCA(t, "ca")
	tests := []struct {
		name  string
		start func(t *testing.T, target string) (*httptest.Server, TLSConfig)
	}{
		{"to another host", func(t *testing.T, target string) (*httptest.Server, TLSConfig) {
			srv := httptest.NewServer(redirector(target))
			t.Cleanup(srv.Close)
			return srv, TLSConfig{}
		}},
		{"from https to http", func(t *testing.T, target string) (*httptest.Server, TLSConfig) {
			return newTLSServer(t, ca, []string{"127.0.0.1"}, nil, redirector(target)), TLSConfig{CAData: ca.pem}
		}},
	}
	for _, tt := range tests {
		for name, cfg := range credentialConfigs(t) {
			t.Run(tt.name+"/"+name, func(t *testing.T) {
				stolen := &thief{}
				plain := httptest.NewServer(stolen) // another host: another port, plain http
				defer plain.Close()
				srv, tlsCfg := tt.start(t, plain.URL)
				cfg.Host, cfg.TLS, cfg.QPS = srv.URL, tlsCfg, -1
				c, err := NewClient(&cfg, ClientOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var cm ConfigMap
				err = c.Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &cm)
				if err == nil || !strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), plain.URL+"/api/v1/namespaces/ns/configmaps/a") {
					t.Errorf("Get through a redirect = %v, want an error naming the redirect's target %s", err, plain.URL)
				}
				if err != nil && strings.Contains(err.Error(), "SECRET") {
					t.Errorf("Get error %q quotes the redirect's query", err)
				}
				if got := stolen.credentials(); len(got) > 0 {
					t.Errorf("the redirect's target got credentials %q", got)
				}
			})
		}
	}
}

// TestCredentialsStayWithTheirServer follows redirects with the client's
// transport, as a caller wrapping it in its own http.Client would: the
// transport itself must not hand the credential to another server, nor to
// the same one over plain http.
func TestCredentialsStayWithTheirServer(t *testing.T) {
	for name, cfg := range credentialConfigs(t) {
		t.Run(name, func(t *testing.T) {
			stolen := &thief{}
			other := httptest.NewServer(stolen)
			defer other.Close()
			origin := httptest.NewServer(redirector(other.URL))
			defer origin.Close()
			cfg.Host = origin.URL
			hc, err := cfg.HTTPClient()
			if err != nil {
				t.Fatal(err)
			}
			follow := &http.Client{Transport: hc.Transport}
			resp, err := follow.Get(origin.URL + "/api/v1/namespaces/ns/configmaps/a")
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if got := stolen.credentials(); len(got) > 0 {
				t.Errorf("another server got credentials %q", got)
			}
		})
	}
	// The configured server over plain http gets no credential either.
	rec := &fakeServer{handle: func(*http.Request) (int, http.Header, string) { return 200, nil, "{}" }}
	hc, err := (&Config{Host: "https://kube.example:6443", BearerToken: "token-SECRET", Transport: rec}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://kube.example:6443/api", "https://kube.example:6443/api", "https://KUBE.example:6443/api", "https://kube.example/api", "https://other.example:6443/api"} {
		resp, err := hc.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		sent := rec.requests[len(rec.requests)-1].Header.Get("Authorization")
		want := ""
		if strings.HasPrefix(strings.ToLower(u), "https://kube.example:6443/") {
			want = "Bearer token-SECRET"
		}
		if sent != want {
			t.Errorf("GET %s sent Authorization %q, want %q", u, sent, want)
		}
	}
}
