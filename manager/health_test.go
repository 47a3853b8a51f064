// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// get serves one request to h and returns the status and body.
func get(h http.Handler, target string) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
	return rec.Code, rec.Body.String()
}

func TestHealthEndpoints(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, nil)
	var dbErr error
	if err := m.AddReadyzCheck("database", func(*http.Request) error { return dbErr }); err != nil {
		t.Fatal(err)
	}
	if err := m.AddHealthzCheck("deadlock", func(*http.Request) error { return nil }); err != nil {
		t.Fatal(err)
	}
	h := m.healthHandler()
	m.synced.Store(true)

	tests := []struct {
		name     string
		failDB   bool
		target   string
		wantCode int
		wantBody string
	}{
		{"healthz", false, "/healthz", 200, "ok"},
		{"healthz verbose", false, "/healthz?verbose", 200, "[+]deadlock ok\n[+]ping ok\nhealthz check passed\n"},
		{"readyz", false, "/readyz", 200, "ok"},
		{"readyz trailing slash", false, "/readyz/", 200, "ok"},
		{"readyz verbose", false, "/readyz?verbose=1", 200, "[+]cache-sync ok\n[+]database ok\n[+]ping ok\nreadyz check passed\n"},
		{"readyz failing", true, "/readyz", 500, "[+]cache-sync ok\n[-]database failed: reason withheld\n[+]ping ok\nreadyz check failed\n"},
		{"readyz failing excluded", true, "/readyz?exclude=database", 200, "ok"},
		{"exclude unknown", false, "/readyz?verbose&exclude=nope&exclude=ping", 200,
			"[+]cache-sync ok\n[+]database ok\nwarn: some readyz checks cannot be excluded: no matches for \"nope\"\nreadyz check passed\n"},
		{"one check passing", false, "/readyz/database", 200, "ok"},
		{"one check failing", true, "/readyz/database", 500, "internal server error: connection refused\n"},
		{"one check unknown", false, "/readyz/nope", 404, "readyz check \"nope\" not found\n"},
		{"liveness checks are not readiness checks", false, "/healthz/database", 404, "healthz check \"database\" not found\n"},
		{"other paths", false, "/metrics", 404, "404 page not found\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dbErr = nil
			if tt.failDB {
				dbErr = errors.New("connection refused")
			}
			code, body := get(h, tt.target)
			if code != tt.wantCode || body != tt.wantBody {
				t.Errorf("GET %s = %d %q, want %d %q", tt.target, code, body, tt.wantCode, tt.wantBody)
			}
		})
	}
}

func TestAddCheckErrors(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, nil)
	ok := func(*http.Request) error { return nil }
	if err := m.AddReadyzCheck("mine", ok); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		check Checker
		want  string
	}{
		{"", ok, `name ""`},
		{"a/b", ok, `name "a/b"`},
		{"ping", ok, `add readyz check "ping": the name is a built-in check of the manager's (readyz has ping, cache-sync): choose another`},
		{"cache-sync", ok, `(readyz has ping, cache-sync)`},
		{"mine", ok, `check "mine": a check of that name was added before`},
		{"x", nil, "check is nil"},
	} {
		if err := m.AddReadyzCheck(tt.name, tt.check); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("AddReadyzCheck(%q) = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	if err := m.AddHealthzCheck("cache-sync", ok); err != nil {
		t.Errorf("AddHealthzCheck(cache-sync) = %v: the name is only a readiness built-in", err)
	}
	if err := m.AddHealthzCheck("ping", ok); err == nil || !strings.Contains(err.Error(), "(healthz has ping)") {
		t.Errorf("AddHealthzCheck(ping) = %v, want an error naming healthz's built-ins", err)
	}
}

func TestCustomEndpointNames(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, func(o *Options) {
		o.LivenessEndpointName, o.ReadinessEndpointName = "/live", "/ready"
	})
	h := m.healthHandler()
	if code, _ := get(h, "/live"); code != 200 {
		t.Errorf("GET /live = %d, want 200", code)
	}
	if code, _ := get(h, "/ready/ping"); code != 200 {
		t.Errorf("GET /ready/ping = %d, want 200", code)
	}
	if code, _ := get(h, "/healthz"); code != 404 {
		t.Errorf("GET /healthz = %d, want 404 with the names changed", code)
	}
}

func TestCacheSyncReadiness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, func(o *Options) {
			o.Cache.ByObject = []cache.ByObject{{Object: &kube.ConfigMap{}}}
		})
		// The informer's first list takes 3s.
		undo := srv.Delay(func(ri kubetest.RequestInfo) bool { return ri.Resource == "configmaps" }, 3*time.Second)
		defer undo()
		h := m.healthHandler()
		if code, body := get(h, "/readyz/cache-sync"); code != 500 {
			t.Errorf("before Start: GET /readyz/cache-sync = %d %q, want 500", code, body)
		}
		run := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		if code, body := get(h, "/readyz?verbose"); code != 500 || !strings.Contains(body, "[-]cache-sync failed") {
			t.Errorf("while syncing: GET /readyz = %d %q, want 500 naming cache-sync", code, body)
		}
		if code, _ := get(h, "/healthz"); code != 200 {
			t.Errorf("while syncing: GET /healthz = %d, want 200 (liveness does not wait for caches)", code)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if code, body := get(h, "/readyz"); code != 200 {
			t.Errorf("after sync: GET /readyz = %d %q, want 200", code, body)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
		if code, _ := get(h, "/readyz/cache-sync"); code != 500 {
			t.Errorf("after stop: GET /readyz/cache-sync = %d, want 500", code)
		}
	})
}

func TestLeaderElectionHealthCheck(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := electing(t, srv, "a", &ledger{}, nil)
		run := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		if code, body := get(m.healthHandler(), "/healthz?verbose"); code != 200 || !strings.Contains(body, "[+]leader-election ok") {
			t.Errorf("GET /healthz = %d %q, want 200 with leader-election ok", code, body)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}
