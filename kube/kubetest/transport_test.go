// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func TestListenTLS(t *testing.T) {
	s := New(Options{Tokens: map[string]string{"secret": "admin"}})
	defer s.Close()
	l, err := s.Listen(true)
	if err != nil {
		t.Fatalf("Listen(true): %v", err)
	}
	if !strings.HasPrefix(l.URL, "https://127.0.0.1:") {
		t.Errorf("URL = %q", l.URL)
	}
	cfg := l.Config()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(cfg.TLS.CAData) {
		t.Fatalf("CAData holds no certificate: %q", cfg.TLS.CAData)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}, ForceAttemptHTTP2: true}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	get := func(path string) *http.Response {
		req, _ := http.NewRequest("GET", cfg.Host+path, nil)
		req.Header.Set("Authorization", "Bearer "+cfg.BearerToken)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		return resp
	}
	resp := get("/api/v1/namespaces/default")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ProtoMajor != 2 {
		t.Fatalf("GET namespace over TLS = %d %s %s, want 200 over HTTP/2", resp.StatusCode, resp.Proto, body)
	}

	// A watch over the socket streams events as they happen.
	w := get("/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=" + s.CurrentResourceVersion())
	defer w.Body.Close()
	if _, err := s.Create(gvrConfigMaps, map[string]any{"metadata": map[string]any{"name": "over-tls"}}); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(w.Body).ReadBytes('\n')
	if err != nil {
		t.Fatalf("read watch: %v", err)
	}
	var ev struct {
		Type   string
		Object struct{ Metadata struct{ Name string } }
	}
	if err := json.Unmarshal(line, &ev); err != nil || ev.Type != "ADDED" || ev.Object.Metadata.Name != "over-tls" {
		t.Errorf("watch line %q (%v), want ADDED over-tls", line, err)
	}
	l.Close()
	if _, err := hc.Get(cfg.Host + "/healthz"); err == nil {
		t.Error("GET after Listener.Close succeeded")
	}
}

func TestListenPlain(t *testing.T) {
	s := New(Options{})
	l, err := s.Listen(false)
	if err != nil {
		t.Fatalf("Listen(false): %v", err)
	}
	resp, err := http.Get(l.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("GET /readyz = %d %q", resp.StatusCode, body)
	}
	if l.CAData != nil || l.Config().TLS.CAData != nil {
		t.Error("plain listener has a CA")
	}
	s.Close() // closes the listener too
	if _, err := http.Get(l.URL + "/readyz"); err == nil {
		t.Error("GET after Server.Close succeeded")
	}
}

func TestTransportAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Options{})
		c := newClient(t, s)
		w := openWatch(t, c, cmPath+"?watch=1")
		s.Close()
		if _, ended := w.pending(); !ended {
			t.Error("watch open after Close")
		}
		_, err := c.http.Get("https://kubetest.invalid/healthz")
		if !errors.Is(err, ErrClosed) {
			t.Errorf("request after Close: %v, want ErrClosed", err)
		}
		s.Close() // idempotent
	})
}

func TestTransportCancelBeforeHeaders(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		s.Delay(nil, time.Hour)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			req, _ := http.NewRequestWithContext(ctx, "GET", "https://kubetest.invalid/healthz", nil)
			_, err := c.http.Do(req)
			done <- err
		}()
		synctest.Wait()
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled request: %v", err)
		}
	})
}

func TestConfig(t *testing.T) {
	s := New(Options{Tokens: map[string]string{"b": "bob", "a": "admin"}})
	defer s.Close()
	cfg := s.Config()
	if cfg.Transport == nil || cfg.BearerToken != "a" || cfg.Host == "" {
		t.Errorf("Config() = %+v", cfg)
	}
}

// Server.Client is not rate-limited, nor is a client of Server.Config
// (kube's default): a hundred requests take no time, where a client
// limited to 20 QPS takes seconds.
func TestClientUnthrottled(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := New(Options{})
		defer s.Close()
		c, err := s.Client(kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		byDefault, err := kube.NewClient(s.Config(), kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.Config()
		cfg.QPS, cfg.Burst = 20, 30
		throttled, err := kube.NewClient(cfg, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name    string
			c       *kube.Client
			minTime time.Duration
			maxTime time.Duration
		}{
			{"Client", c, 0, 0},
			{"Config", byDefault, 0, 0},
			{"Config with QPS 20", throttled, 3 * time.Second, time.Minute},
		} {
			start := time.Now()
			for range 100 {
				if err := tc.c.Get(t.Context(), kube.Key{Name: "default"}, &kube.Namespace{}); err != nil {
					t.Fatal(err)
				}
			}
			if d := time.Since(start); d < tc.minTime || d > tc.maxTime {
				t.Errorf("100 gets with the client of %s took %v, want %v to %v", tc.name, d, tc.minTime, tc.maxTime)
			}
		}
	})
}
