// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestHTTPClientTLS(t *testing.T) {
	ca, otherCA, clientCA := newTestCA(t, "server-ca"), newTestCA(t, "other-ca"), newTestCA(t, "client-ca")
	srv := newTLSServer(t, ca, []string{"127.0.0.1"}, clientCA, echoHandler())
	named := newTLSServer(t, ca, []string{"kube.test"}, nil, echoHandler())
	dir := t.TempDir()
	caFile := filepath.Join(dir, "ca.crt")
	writeFile(t, caFile, string(ca.pem))
	certPEM, keyPEM, _ := clientCA.issue(t, "alice")
	certFile, keyFile := filepath.Join(dir, "client.crt"), filepath.Join(dir, "client.key")
	writeFile(t, certFile, string(certPEM))
	writeFile(t, keyFile, string(keyPEM))

	tests := []struct {
		name    string
		url     string
		tls     TLSConfig
		wantCN  string
		wantErr string
	}{
		{name: "CA data", url: srv.URL, tls: TLSConfig{CAData: ca.pem}},
		{name: "CA file", url: srv.URL, tls: TLSConfig{CAFile: caFile}},
		{name: "system roots reject a private CA", url: srv.URL, wantErr: "certificate"},
		{name: "wrong CA data", url: srv.URL, tls: TLSConfig{CAData: otherCA.pem}, wantErr: "certificate"},
		{name: "insecure", url: srv.URL, tls: TLSConfig{Insecure: true}},
		{name: "server name override with CA data", url: named.URL, tls: TLSConfig{CAData: ca.pem, ServerName: "kube.test"}},
		{name: "server name override with CA file", url: named.URL, tls: TLSConfig{CAFile: caFile, ServerName: "kube.test"}},
		{name: "name mismatch with CA data", url: named.URL, tls: TLSConfig{CAData: ca.pem}, wantErr: "certificate"},
		{name: "name mismatch with CA file", url: named.URL, tls: TLSConfig{CAFile: caFile}, wantErr: "certificate"},
		{name: "wrong name with CA file", url: srv.URL, tls: TLSConfig{CAFile: caFile, ServerName: "other.test"}, wantErr: "certificate"},
		{name: "client certificate data", url: srv.URL, tls: TLSConfig{CAData: ca.pem, CertData: certPEM, KeyData: keyPEM}, wantCN: "alice"},
		{name: "client certificate files", url: srv.URL, tls: TLSConfig{CAFile: caFile, CertFile: certFile, KeyFile: keyFile}, wantCN: "alice"},
		{name: "client certificate file, key data", url: srv.URL, tls: TLSConfig{CAData: ca.pem, CertFile: certFile, KeyData: keyPEM}, wantCN: "alice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := (&Config{Host: tt.url, TLS: tt.tls}).HTTPClient()
			if err != nil {
				t.Fatalf("HTTPClient() error: %v", err)
			}
			defer c.CloseIdleConnections()
			e, err := get(t, c, tt.url)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("GET error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("GET error: %v", err)
			}
			if e.Proto != "HTTP/1.1" || e.ClientCN != tt.wantCN {
				t.Errorf("GET served as %s with client certificate %q, want HTTP/1.1 and %q", e.Proto, e.ClientCN, tt.wantCN)
			}
		})
	}
}

// setMtime gives path a modification time of its own, so that a rewrite is
// seen even on a file system with coarse timestamps.
func setMtime(t *testing.T, path string, sec int64) {
	t.Helper()
	ts := time.Unix(1_700_000_000+sec, 0)
	if err := os.Chtimes(path, ts, ts); err != nil {
		t.Fatal(err)
	}
}

func TestHTTPClientReloadsCAFile(t *testing.T) {
	ca1, ca2 := newTestCA(t, "ca-1"), newTestCA(t, "ca-2")
	srv2 := newTLSServer(t, ca2, []string{"127.0.0.1"}, nil, echoHandler())
	caFile := filepath.Join(t.TempDir(), "ca.crt")
	writeFile(t, caFile, string(ca1.pem))
	setMtime(t, caFile, 1)
	c, err := (&Config{Host: srv2.URL, TLS: TLSConfig{CAFile: caFile}}).HTTPClient()
	if err != nil {
		t.Fatalf("HTTPClient() error: %v", err)
	}
	defer c.CloseIdleConnections()
	if _, err := get(t, c, srv2.URL); err == nil {
		t.Fatal("GET with the old CA succeeded, want a certificate error")
	}

	writeFile(t, caFile, "not PEM") // half-written: the last good pool stays
	setMtime(t, caFile, 2)
	if _, err := get(t, c, srv2.URL); err == nil {
		t.Fatal("GET with an unparsable CA file succeeded, want the old CA kept and a certificate error")
	}

	writeFile(t, caFile, string(ca2.pem))
	setMtime(t, caFile, 3)
	if _, err := get(t, c, srv2.URL); err != nil {
		t.Fatalf("GET after the CA file was rotated: %v", err)
	}
}

func TestHTTPClientReloadsClientCertificate(t *testing.T) {
	ca, clientCA := newTestCA(t, "ca"), newTestCA(t, "client-ca")
	srv := newTLSServer(t, ca, []string{"127.0.0.1"}, clientCA, echoHandler())
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	write := func(cn string, mtime int64) {
		certPEM, keyPEM, _ := clientCA.issue(t, cn)
		writeFile(t, certFile, string(certPEM))
		writeFile(t, keyFile, string(keyPEM))
		setMtime(t, certFile, mtime)
		setMtime(t, keyFile, mtime)
	}
	write("alice", 1)
	c, err := (&Config{Host: srv.URL, TLS: TLSConfig{CAData: ca.pem, CertFile: certFile, KeyFile: keyFile}}).HTTPClient()
	if err != nil {
		t.Fatalf("HTTPClient() error: %v", err)
	}
	defer c.CloseIdleConnections()
	for _, step := range []struct {
		rotate string // "" leaves the files alone
		want   string
	}{
		{"", "alice"},
		{"bob", "bob"},
		{"", "bob"},
	} {
		if step.rotate != "" {
			write(step.rotate, 2)
		}
		c.CloseIdleConnections() // a new connection, hence a new handshake
		e, err := get(t, c, srv.URL)
		if err != nil || e.ClientCN != step.want {
			t.Fatalf("GET after rotating to %q: client certificate %q, error %v; want %q", step.rotate, e.ClientCN, err, step.want)
		}
	}
}

func TestHTTPClientConfigErrors(t *testing.T) {
	ca := newTestCA(t, "ca")
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"insecure with a CA", Config{TLS: TLSConfig{Insecure: true, CAData: ca.pem}}, "TLS.Insecure and a CA are both set"},
		{"CA data not PEM", Config{TLS: TLSConfig{CAData: []byte("nope")}}, "TLS.CAData holds no PEM certificate"},
		{"CA file missing", Config{TLS: TLSConfig{CAFile: "/nonexistent/ca.crt"}}, "read CA file"},
		{"certificate without key", Config{TLS: TLSConfig{CertData: ca.pem}}, "both a client certificate and its key"},
		{"key does not match", Config{TLS: TLSConfig{CertData: ca.pem, KeyData: []byte("-----BEGIN EC PRIVATE KEY-----\nAAAA\n-----END EC PRIVATE KEY-----\n")}}, "load client certificate"},
		{"token and basic auth", Config{BearerToken: "t", Username: "u", Password: "p"}, "pick one"},
		{"proxy scheme", Config{ProxyURL: "ftp://proxy"}, `ProxyURL "ftp://proxy": want an http, https or socks5 URL`},
		{"proxy without host", Config{ProxyURL: "http://"}, `ProxyURL "http://" has no host`},
		{"proxy URL that does not parse hides its password", Config{ProxyURL: "http://user:pa ss@proxy:bad"}, "parse ProxyURL"},
		{"exec interactive", Config{Exec: &ExecConfig{Command: "x", InteractiveMode: "Always"}}, "wants a terminal"},
		{"exec api version", Config{Exec: &ExecConfig{Command: "x", APIVersion: "client.authentication.k8s.io/v1alpha1"}}, "Exec.APIVersion"},
		{"exec without command", Config{Exec: &ExecConfig{}}, "Exec.Command is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Host = "https://127.0.0.1:6443"
			_, err := tt.cfg.HTTPClient()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("HTTPClient() error = %v, want one containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "pa ss") || strings.Contains(err.Error(), "AAAA") {
				t.Errorf("HTTPClient() error = %q: it quotes a secret", err)
			}
		})
	}
}

func TestHTTPClientTransportSettings(t *testing.T) {
	c, err := (&Config{Host: "https://127.0.0.1:6443"}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	if c.Timeout != 0 {
		t.Errorf("client Timeout = %v, want 0: watches are long", c.Timeout)
	}
	p, ok := c.Transport.(*authTransport).next.(*pools)
	if !ok {
		t.Fatalf("transport under the auth layer is %T, want *pools", c.Transport.(*authTransport).next)
	}
	if p.requests.MaxConnsPerHost != DefaultMaxConnections || p.requests.MaxIdleConnsPerHost != DefaultMaxConnections {
		t.Errorf("requests' pool: MaxConnsPerHost %d, MaxIdleConnsPerHost %d; want %d, %d",
			p.requests.MaxConnsPerHost, p.requests.MaxIdleConnsPerHost, DefaultMaxConnections, DefaultMaxConnections)
	}
	if p.watches.MaxConnsPerHost != 0 {
		t.Errorf("watches' pool: MaxConnsPerHost %d, want 0 (no bound)", p.watches.MaxConnsPerHost)
	}
	tr := p.requests
	if tr.Protocols == nil || tr.Protocols.HTTP2() || !tr.Protocols.HTTP1() {
		t.Errorf("protocols %v, want HTTP/1.1 only", tr.Protocols)
	}
	if tr.Proxy != nil {
		t.Errorf("Proxy is set without ProxyURL, want nil (not even the environment's)")
	}
	if tr.TLSClientConfig.MinVersion != 0x0303 {
		t.Errorf("TLS MinVersion = %#x, want TLS 1.2", tr.TLSClientConfig.MinVersion)
	}
	if tr.TLSHandshakeTimeout == 0 || tr.IdleConnTimeout == 0 {
		t.Errorf("TLSHandshakeTimeout %v, IdleConnTimeout %v: want both set", tr.TLSHandshakeTimeout, tr.IdleConnTimeout)
	}
}

// TestRequestsOverHTTP1: against a server that speaks HTTP/2, watches and
// every other request go over HTTP/1.1 (see newPools).
func TestRequestsOverHTTP1(t *testing.T) {
	var mu sync.Mutex
	protos := map[string]string{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		protos[r.URL.RequestURI()] = r.Proto
		mu.Unlock()
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	c, err := (&Config{Host: srv.URL, TLS: TLSConfig{CAData: ca}}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"/api/v1/configmaps?watch=true&allowWatchBookmarks=true", "/api/v1/configmaps", "/api"}
	for _, path := range paths {
		resp, err := c.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for _, path := range paths {
		if protos[path] != "HTTP/1.1" {
			t.Errorf("%s went over %q, want HTTP/1.1", path, protos[path])
		}
	}
}

func TestHTTPClientProxy(t *testing.T) {
	// The proxy answers itself: an HTTP proxy receives the absolute URL.
	var seen string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen = r.URL.String()
		echoHandler().ServeHTTP(w, r)
	}))
	defer proxy.Close()
	c, err := (&Config{Host: "http://kube.invalid", ProxyURL: proxy.URL, BearerToken: "tok"}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	e, err := get(t, c, "http://kube.invalid/api")
	if err != nil {
		t.Fatalf("GET through the proxy: %v", err)
	}
	if seen != "http://kube.invalid/api" || e.Authorization != "Bearer tok" {
		t.Errorf("proxy saw %q with Authorization %q, want http://kube.invalid/api and the token", seen, e.Authorization)
	}
}

func TestIsWatchQuery(t *testing.T) {
	for _, tt := range []struct {
		query string
		want  bool
	}{
		{"watch=true", true},
		{"labelSelector=a%3Db&watch=true&allowWatchBookmarks=true", true},
		{"watch=false", false},
		{"", false},
		{"limit=500", false},
		{"nowatch=true", false},
		{"allowWatchBookmarks=true", false},
		{"allowWatchBookmarks=true&resourceVersion=5", false},
	} {
		if got := isWatchQuery(tt.query); got != tt.want {
			t.Errorf("isWatchQuery(%q) = %v, want %v", tt.query, got, tt.want)
		}
	}
}
