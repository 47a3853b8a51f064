// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

func TestAuthentication(t *testing.T) {
	_, c := newTestServer(t, Options{Tokens: map[string]string{"t-admin": "admin", "t-bob": "bob"}})
	for _, tc := range []struct {
		token, path string
		code        int
	}{
		{"", "/api/v1/namespaces", 401},
		{"wrong", "/api/v1/namespaces", 401},
		{"wrong", "/healthz", 401},
		{"", "/healthz", 200},
		{"", "/version", 200},
		{"", "/apis", 401},
		{"t-admin", "/api/v1/namespaces", 200},
		{"t-bob", "/api/v1/namespaces", 200},
	} {
		c.token = tc.token
		r := c.do("GET", tc.path, "")
		if r.code != tc.code {
			t.Errorf("GET %s with token %q = %d, want %d", tc.path, tc.token, r.code, tc.code)
		}
		if tc.code == 401 {
			want := `{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}`
			if string(r.body) != want {
				t.Errorf("401 body = %s, want %s", r.body, want)
			}
		}
	}
}

func TestDeny(t *testing.T) {
	s, c := newTestServer(t, Options{Tokens: map[string]string{"t-bob": "bob"}})
	c.token = "t-bob"
	s.Deny("bob", "list", "configmaps")
	s.Deny("bob", "*", "deployments.apps/status")
	r := c.do("GET", cmPath, "")
	want := `configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "default"`
	st := r.json(t)
	if r.code != 403 || st["reason"] != "Forbidden" || st["message"] != want || field(st, "details.kind") != "configmaps" {
		t.Errorf("denied list = %d %v, want 403 %q", r.code, st, want)
	}
	c.mustDo(201, "POST", cmPath, `{"metadata":{"name":"a"}}`)
	r = c.do("PUT", "/apis/apps/v1/namespaces/default/deployments/d/status", `{}`)
	want = `deployments.apps "d" is forbidden: User "bob" cannot update resource "deployments/status" in API group "apps" in the namespace "default"`
	if st := r.json(t); r.code != 403 || st["message"] != want || field(st, "details.group") != "apps" {
		t.Errorf("denied status update = %d %v, want %q", r.code, st, want)
	}
	s.Deny("*", "get", "namespaces")
	r = c.do("GET", "/api/v1/namespaces/default", "")
	want = `namespaces "default" is forbidden: User "bob" cannot get resource "namespaces" in API group "" in the namespace "default"`
	if st := r.json(t); r.code != 403 || st["message"] != want {
		t.Errorf("denied namespace get = %d %v, want %q", r.code, st["message"], want)
	}
	s.Allow("bob", "list", "configmaps")
	c.mustDo(200, "GET", cmPath, "")
	if cfg := s.ConfigFor("bob"); cfg.BearerToken != "t-bob" {
		t.Errorf("ConfigFor(bob).BearerToken = %q", cfg.BearerToken)
	}
}

func TestFailNext(t *testing.T) {
	s, c := newTestServer(t, Options{})
	tooMany := kube.NewStatusError(429, kube.ReasonTooManyRequests, "Too many requests, please try again later.")
	tooMany.RetryAfter = 1500 * time.Millisecond
	s.FailNext(2, func(ri RequestInfo) bool { return ri.Verb == "list" && ri.Resource == "configmaps" }, tooMany)
	c.mustDo(200, "GET", "/api/v1/namespaces/default/secrets", "")
	for range 2 {
		r := c.do("GET", cmPath, "")
		st := r.json(t)
		if r.code != 429 || r.header.Get("Retry-After") != "2" || field(st, "details.retryAfterSeconds") != float64(2) ||
			st["message"] != "Too many requests, please try again later." {
			t.Errorf("failed list = %d %v %v", r.code, r.header, st)
		}
	}
	c.mustDo(200, "GET", cmPath, "")
	if tooMany.Status.Details != nil {
		t.Errorf("FailNext changed the caller's error: %v", tooMany.Status.Details)
	}
	gone := kube.NewStatusError(410, kube.ReasonExpired, "too old")
	s.FailNext(1, nil, gone)
	if r := c.do("GET", "/version", ""); r.code != 410 {
		t.Errorf("any request after FailNext(nil) = %d, want 410", r.code)
	}
}

func TestDelay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		undo := s.Delay(func(ri RequestInfo) bool { return ri.Verb == "get" }, 5*time.Second)
		start := time.Now()
		c.mustDo(404, "GET", cmPath+"/x", "")
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("delayed GET took %v, want 5s", d)
		}
		start = time.Now()
		c.mustDo(200, "GET", cmPath, "")
		if d := time.Since(start); d != 0 {
			t.Errorf("list took %v, want no delay", d)
		}
		// A client that gives up stops waiting.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", "https://kubetest.invalid"+cmPath+"/x", nil)
		if _, err := c.http.Do(req); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("delayed GET with a 1s deadline: %v, want deadline exceeded", err)
		}
		undo()
		start = time.Now()
		c.mustDo(404, "GET", cmPath+"/x", "")
		if d := time.Since(start); d != 0 {
			t.Errorf("GET after undo took %v", d)
		}
	})
}

func TestCounts(t *testing.T) {
	s, c := newTestServer(t, Options{})
	c.mustDo(200, "GET", cmPath, "")
	c.mustDo(200, "GET", cmPath, "")
	c.mustDo(201, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", `{"metadata":{"name":"l"}}`)
	c.mustDo(200, "GET", "/apis", "")
	want := map[string]int{"list configmaps": 2, "create leases.coordination.k8s.io": 1, "get /apis": 1}
	got := s.Counts()
	for k, n := range want {
		if got[k] != n {
			t.Errorf("Counts()[%q] = %d, want %d (all: %v)", k, got[k], n, got)
		}
	}
	if n := s.Count("list", "configmaps"); n != 2 {
		t.Errorf("Count(list, configmaps) = %d, want 2", n)
	}
	s.ResetCounts()
	if n := len(s.Counts()); n != 0 {
		t.Errorf("%d counts after ResetCounts", n)
	}
}

func TestRequestInfo(t *testing.T) {
	for _, tc := range []struct {
		method, url string
		want        RequestInfo
	}{
		{"GET", "/api/v1/namespaces/default/configmaps?watch=true", RequestInfo{Verb: "watch", Version: "v1", Resource: "configmaps", Namespace: "default"}},
		{"GET", "/api/v1/watch/namespaces/default/configmaps/a", RequestInfo{Verb: "watch", Version: "v1", Resource: "configmaps", Namespace: "default", Name: "a"}},
		{"PUT", "/apis/apps/v1/namespaces/ns/deployments/d/status", RequestInfo{Verb: "update", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "status", Namespace: "ns", Name: "d"}},
		{"GET", "/api/v1/namespaces/ns", RequestInfo{Verb: "get", Version: "v1", Resource: "namespaces", Namespace: "ns", Name: "ns"}},
		{"DELETE", "/api/v1/namespaces/ns/pods", RequestInfo{Verb: "deletecollection", Version: "v1", Resource: "pods", Namespace: "ns"}},
		{"GET", "/apis/apps/v1", RequestInfo{Verb: "get"}},
	} {
		req, _ := http.NewRequest(tc.method, "http://x"+tc.url, nil)
		got := parseRequestInfo(req)
		tc.want.Path = req.URL.Path
		tc.want.IsResourceRequest = tc.want.Resource != ""
		if got != tc.want {
			t.Errorf("parseRequestInfo(%s %s) = %+v, want %+v", tc.method, tc.url, got, tc.want)
		}
	}
}

// A matcher may call the server's own methods: matchers run without the
// server's lock held, so one that counts requests or adds a rule does not
// deadlock the server.
func TestFaultMatcherCallsServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		undo := s.Delay(func(ri RequestInfo) bool { return s.Count("list", "configmaps") >= 1 }, time.Second)
		defer undo()
		s.FailNext(1, func(ri RequestInfo) bool {
			if ri.Verb != "list" || s.Count("list", "configmaps") < 2 {
				return false
			}
			s.FailNext(1, nil, kube.NewStatusError(410, kube.ReasonExpired, "again"))
			return true
		}, kube.NewStatusError(503, kube.ReasonServiceUnavailable, "busy"))
		c.mustDo(200, "GET", cmPath, "")
		start := time.Now()
		c.mustDo(503, "GET", cmPath, "")
		if d := time.Since(start); d != time.Second {
			t.Errorf("second list took %v, want the 1s delay", d)
		}
		c.mustDo(410, "GET", cmPath, "")
		c.mustDo(200, "GET", cmPath, "")
	})
}
