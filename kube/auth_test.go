// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestAuthHeaders(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	tokenFile := filepath.Join(t.TempDir(), "token")
	writeFile(t, tokenFile, "from-file\n")
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte("admin:hunter2"))

	tests := []struct {
		name      string
		cfg       Config
		header    http.Header // set on the request by the caller
		wantAuth  string
		wantAgent string
	}{
		{name: "none", wantAgent: "kubeloop"},
		{name: "bearer token", cfg: Config{BearerToken: "tok"}, wantAuth: "Bearer tok", wantAgent: "kubeloop"},
		{name: "token file wins over token", cfg: Config{BearerToken: "tok", BearerTokenFile: tokenFile}, wantAuth: "Bearer from-file", wantAgent: "kubeloop"},
		{name: "token when the file is missing", cfg: Config{BearerToken: "tok", BearerTokenFile: tokenFile + ".missing"}, wantAuth: "Bearer tok", wantAgent: "kubeloop"},
		{name: "basic auth", cfg: Config{Username: "admin", Password: "hunter2"}, wantAuth: basic, wantAgent: "kubeloop"},
		{name: "user agent", cfg: Config{UserAgent: "my-controller/1.0"}, wantAgent: "my-controller/1.0"},
		{
			name: "the caller's headers win", cfg: Config{BearerToken: "tok"},
			header:   http.Header{"Authorization": {"Bearer mine"}, "User-Agent": {"mine/2"}},
			wantAuth: "Bearer mine", wantAgent: "mine/2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Host = srv.URL
			c, err := tt.cfg.HTTPClient()
			if err != nil {
				t.Fatalf("HTTPClient() error: %v", err)
			}
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL, nil)
			for k, v := range tt.header {
				req.Header[k] = v
			}
			before := req.Header.Clone()
			e, err := do(t, c, req)
			if err != nil {
				t.Fatalf("GET error: %v", err)
			}
			if e.Authorization != tt.wantAuth || e.UserAgent != tt.wantAgent {
				t.Errorf("server saw Authorization %q, User-Agent %q; want %q, %q", e.Authorization, e.UserAgent, tt.wantAuth, tt.wantAgent)
			}
			if len(req.Header) != len(before) || req.Header.Get("Authorization") != before.Get("Authorization") {
				t.Errorf("the caller's request headers changed: %v, were %v", req.Header, before)
			}
		})
	}
}

func TestAuthMissingTokenFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	c, err := (&Config{Host: "http://127.0.0.1:1", BearerTokenFile: path}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	_, err = get(t, c, "http://127.0.0.1:1/")
	if err == nil || !strings.Contains(err.Error(), "read bearer token file "+path) {
		t.Errorf("GET with a missing token file: error %v, want one naming the file", err)
	}
}

func TestAuthTokenFileRotation(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "first")
	setMtime(t, path, 1)
	c, err := (&Config{Host: srv.URL, BearerTokenFile: path}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		write string // "" leaves the file alone; "-" removes it
		mtime int64
		want  string
	}{
		{"", 0, "Bearer first"},
		{"second", 2, "Bearer second"}, // same size as "first": the mtime tells
		{"", 0, "Bearer second"},
		{"-", 0, "Bearer second"}, // gone: the last token read stays
		{"third-token", 3, "Bearer third-token"},
	}
	for i, s := range steps {
		switch s.write {
		case "":
		case "-":
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
		default:
			writeFile(t, path, s.write)
			setMtime(t, path, s.mtime)
		}
		e, err := get(t, c, srv.URL)
		if err != nil || e.Authorization != s.want {
			t.Fatalf("step %d (write %q): Authorization %q, error %v; want %q", i, s.write, e.Authorization, err, s.want)
		}
	}
}

func TestTokenFileMaxAge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "token")
	writeFile(t, path, "aaaa")
	setMtime(t, path, 1)
	f := &tokenFile{path: path}
	t0 := time.Unix(1_800_000_000, 0)
	if tok, err := f.get(t0); err != nil || tok != "aaaa" {
		t.Fatalf("get(t0) = %q, %v; want aaaa", tok, err)
	}
	// Same size and modification time: only the age forces a new read.
	writeFile(t, path, "bbbb")
	setMtime(t, path, 1)
	for _, tc := range []struct {
		after time.Duration
		want  string
	}{
		{30 * time.Second, "aaaa"},
		{tokenFileMaxAge - time.Nanosecond, "aaaa"},
		{tokenFileMaxAge, "bbbb"},
	} {
		if tok, err := f.get(t0.Add(tc.after)); err != nil || tok != tc.want {
			t.Errorf("get(t0+%v) = %q, %v; want %q", tc.after, tok, err, tc.want)
		}
	}
}
