// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// fakeServer answers requests from a function, in process, and records them.
type fakeServer struct {
	mu       sync.Mutex
	requests []*http.Request
	bodies   []string
	handle   func(r *http.Request) (int, http.Header, string)
}

func (f *fakeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	var body string
	if r.Body != nil {
		b, _ := io.ReadAll(r.Body)
		body = string(b)
	}
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.bodies = append(f.bodies, body)
	f.mu.Unlock()
	code, h, out := f.handle(r)
	if code == 0 {
		return nil, fmt.Errorf("read tcp: %w", io.ErrUnexpectedEOF)
	}
	if h == nil {
		h = http.Header{}
	}
	return &http.Response{StatusCode: code, Header: h, Body: io.NopCloser(strings.NewReader(out)), Request: r}, nil
}

func (f *fakeServer) count(method, pathPrefix string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, r := range f.requests {
		if r.Method == method && strings.HasPrefix(r.URL.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// legacyDiscovery answers discovery without the aggregated form.
func legacyDiscovery(r *http.Request) (int, http.Header, string, bool) {
	switch r.URL.Path {
	case "/api", "/apis":
		return 200, nil, `{"kind":"APIVersions","versions":["v1"]}`, true
	case "/api/v1":
		return 200, nil, `{"kind":"APIResourceList","groupVersion":"v1","resources":[
			{"name":"configmaps","namespaced":true,"kind":"ConfigMap"},
			{"name":"namespaces","namespaced":false,"kind":"Namespace"},
			{"name":"namespaces/status","namespaced":false,"kind":"Namespace"}]}`, true
	}
	return 0, nil, "", false
}

func newFakeClient(t *testing.T, f *fakeServer, opts ClientOptions) *Client {
	t.Helper()
	c, err := NewClient(&Config{Host: "https://fake.invalid", Transport: f, QPS: -1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestAggregatedDiscovery(t *testing.T) {
	apis := readCapture(t, "05-discovery-aggregated.txt")
	f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
		h := http.Header{"Content-Type": {"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"}}
		switch r.URL.Path {
		case "/api":
			return 200, h, `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","items":[{"metadata":{},"versions":[{"version":"v1","resources":[{"resource":"configmaps","scope":"Namespaced","responseKind":{"kind":"ConfigMap"}}]}]}]}`
		case "/apis":
			if !strings.Contains(r.Header.Get("Accept"), "as=APIGroupDiscoveryList") {
				t.Errorf("Accept = %q, want aggregated discovery", r.Header.Get("Accept"))
			}
			return 200, h, string(apis.body)
		}
		return 404, nil, "404 page not found"
	}}
	c := newFakeClient(t, f, ClientOptions{})
	ctx := context.Background()
	for _, tt := range []struct {
		gvk        GroupVersionKind
		resource   string
		namespaced bool
	}{
		{GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, "configmaps", true},
		{GroupVersionKind{Group: "coordination.k8s.io", Version: "v1", Kind: "Lease"}, "leases", true},
		{GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}, "apiservices", false},
		{GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, "deployments", true},
	} {
		m, err := c.Mapping(ctx, tt.gvk)
		if err != nil {
			t.Fatalf("Mapping(%v): %v", tt.gvk, err)
		}
		if m.Resource != tt.resource || m.Namespaced != tt.namespaced {
			t.Errorf("Mapping(%v) = %+v, want %s namespaced=%v", tt.gvk, m, tt.resource, tt.namespaced)
		}
	}
	if n := f.count("GET", "/api"); n != 2 {
		t.Errorf("discovery requests = %d, want 2 (/api and /apis, once)", n)
	}
	_, err := c.Mapping(ctx, GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
	var nk *NoKindMatchError
	if !errors.As(err, &nk) {
		t.Errorf("Mapping(unknown) = %v, want NoKindMatchError", err)
	}
}

func TestLegacyDiscoveryAndRefreshOnMiss(t *testing.T) {
	var crdInstalled bool
	var mu sync.Mutex
	f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
		if code, h, body, ok := legacyDiscovery(r); ok {
			return code, h, body
		}
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path == "/apis/example.com/v1" && crdInstalled {
			return 200, nil, `{"kind":"APIResourceList","groupVersion":"example.com/v1","resources":[{"name":"widgets","namespaced":false,"kind":"Widget"}]}`
		}
		return 404, nil, "404 page not found"
	}}
	c := newFakeClient(t, f, ClientOptions{})
	ctx := context.Background()
	widget := GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	if _, err := c.Mapping(ctx, widget); err == nil {
		t.Fatal("Mapping(Widget) before the CRD exists succeeded")
	}
	mu.Lock()
	crdInstalled = true
	mu.Unlock()
	m, err := c.Mapping(ctx, widget)
	if err != nil || m.Resource != "widgets" || m.Namespaced {
		t.Fatalf("Mapping(Widget) after install = %+v, %v", m, err)
	}
	if m, err := c.Mapping(ctx, GroupVersionKind{Version: "v1", Kind: "Namespace"}); err != nil || m.Resource != "namespaces" {
		t.Fatalf("Mapping(Namespace) = %+v, %v", m, err)
	}
}

func TestGetListWritePaths(t *testing.T) {
	f := &fakeServer{}
	f.handle = func(r *http.Request) (int, http.Header, string) {
		if code, h, body, ok := legacyDiscovery(r); ok {
			return code, h, body
		}
		switch r.Method + " " + r.URL.Path {
		case "GET /api/v1/namespaces/ns1/configmaps/a":
			return 200, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","resourceVersion":"7"},"data":{"x":"1"}}`
		case "GET /api/v1/configmaps":
			return 200, nil, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a","namespace":"ns1"}},{"metadata":{"name":"b","namespace":"ns2"}}]}`
		case "POST /api/v1/namespaces/ns1/configmaps", "PUT /api/v1/namespaces/ns1/configmaps/a", "PATCH /api/v1/namespaces/ns1/configmaps/a":
			return 200, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns1","resourceVersion":"8"}}`
		case "DELETE /api/v1/namespaces/ns1/configmaps/a":
			return 200, nil, `{"kind":"Status","apiVersion":"v1","status":"Success"}`
		case "GET /api/v1/namespaces/ns1/configmaps/meta":
			return 200, nil, `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"meta","namespace":"ns1"}}`
		}
		return 404, nil, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"not here"}`
	}
	c := newFakeClient(t, f, ClientOptions{DryRun: true, FieldManager: "tester"})
	ctx := context.Background()

	cm := ConfigMap{Data: map[string]string{"stale": "yes"}}
	if err := c.Get(ctx, Key{Namespace: "ns1", Name: "a"}, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["x"] != "1" || cm.Data["stale"] != "" || cm.ResourceVersion != "7" {
		t.Errorf("Get = %+v, want data {x:1} only and rv 7", cm)
	}

	var list List[ConfigMap]
	if err := c.List(ctx, &list, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 2 || list.ResourceVersion != "9" || list.Items[1].Kind != "ConfigMap" || list.Kind != "ConfigMapList" {
		t.Errorf("List = %+v, want 2 items at rv 9 with kinds stamped", list)
	}

	cm = ConfigMap{ObjectMeta: ObjectMeta{Name: "a", Namespace: "ns1"}}
	for name, call := range map[string]func() error{
		"create": func() error { return c.Create(ctx, &cm) },
		"update": func() error { return c.Update(ctx, &cm) },
		"patch":  func() error { return c.Patch(ctx, &cm, Patch{Type: MergePatch, Data: []byte(`{}`)}) },
		"apply":  func() error { return c.Apply(ctx, &cm, ApplyOptions{Force: true}) },
		"delete": func() error { return c.Delete(ctx, &cm) },
	} {
		if err := call(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for i, r := range f.requests {
		if r.Method == http.MethodGet {
			continue
		}
		if r.Method != http.MethodDelete && (r.URL.Query().Get("dryRun") != "All" || r.URL.Query().Get("fieldManager") != "tester") {
			t.Errorf("%s %s: query %q, want dryRun=All and fieldManager=tester", r.Method, r.URL.Path, r.URL.RawQuery)
		}
		if r.Method == http.MethodDelete && !strings.Contains(f.bodies[i], `"dryRun":["All"]`) {
			t.Errorf("DELETE body %s, want dryRun All", f.bodies[i])
		}
		if r.Method == http.MethodPatch && r.URL.Query().Get("force") == "true" && r.Header.Get("Content-Type") != string(ApplyPatch) {
			t.Errorf("apply Content-Type = %q", r.Header.Get("Content-Type"))
		}
	}

	meta := PartialObjectMetadata{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
	if err := c.Get(ctx, Key{Namespace: "ns1", Name: "meta"}, &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Kind != "ConfigMap" || meta.APIVersion != "v1" || meta.Name != "meta" {
		t.Errorf("metadata Get = %+v, want kind ConfigMap kept", meta)
	}
	last := f.requests[len(f.requests)-1]
	if !strings.Contains(last.Header.Get("Accept"), "as=PartialObjectMetadata;") {
		t.Errorf("metadata Get Accept = %q", last.Header.Get("Accept"))
	}

	err := c.Get(ctx, Key{Namespace: "ns1", Name: "missing"}, &cm)
	if !IsNotFound(err) || !strings.Contains(err.Error(), "get ConfigMap ns1/missing") {
		t.Errorf("Get(missing) = %v, want NotFound naming the object", err)
	}
	if err := c.Get(ctx, Key{Name: "a"}, &cm); err == nil || !strings.Contains(err.Error(), "namespaced") {
		t.Errorf("Get without namespace = %v, want an error about the namespace", err)
	}
}

func TestReadsRetryThrottlingAndConnectionErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var calls int
		f := &fakeServer{}
		f.handle = func(r *http.Request) (int, http.Header, string) {
			if code, h, body, ok := legacyDiscovery(r); ok {
				return code, h, body
			}
			calls++
			switch calls {
			case 1:
				return 0, nil, "" // connection dropped
			case 2:
				return 429, http.Header{"Retry-After": {"5"}}, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`
			}
			return 200, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`
		}
		c := newFakeClient(t, f, ClientOptions{})
		start := time.Now()
		var cm ConfigMap
		if err := c.Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &cm); err != nil {
			t.Fatal(err)
		}
		if calls != 3 {
			t.Errorf("GET attempts = %d, want 3", calls)
		}
		if waited := time.Since(start); waited < 5*time.Second || waited > 6*time.Second {
			t.Errorf("waited %v, want Retry-After (5s) plus a short connection backoff", waited)
		}
	})
}

// TestWritesAreNotRetried: a write answered 429 without saying when to
// come back is not sent again.
func TestWritesAreNotRetried(t *testing.T) {
	f := &fakeServer{}
	f.handle = func(r *http.Request) (int, http.Header, string) {
		if code, h, body, ok := legacyDiscovery(r); ok {
			return code, h, body
		}
		return 429, nil, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"TooManyRequests","code":429}`
	}
	c := newFakeClient(t, f, ClientOptions{})
	err := c.Create(context.Background(), &ConfigMap{ObjectMeta: ObjectMeta{Name: "a", Namespace: "ns"}})
	if !IsTooManyRequests(err) {
		t.Fatalf("Create = %v, want TooManyRequests", err)
	}
	if n := f.count("POST", "/api/v1"); n != 1 {
		t.Errorf("POST attempts = %d, want 1", n)
	}
}

// TestWritesRetryPriorityAndFairness: a write that Priority and Fairness
// turned away (429 with Retry-After, before running it) is sent again
// after the time the server gave, as client-go does; the caller sees
// only the success.
func TestWritesRetryPriorityAndFairness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeServer{}
		f.handle = func(r *http.Request) (int, http.Header, string) {
			if code, h, body, ok := legacyDiscovery(r); ok {
				return code, h, body
			}
			if f.count("POST", "/api/v1") <= 2 {
				return 429, http.Header{"Retry-After": {"2"}, "X-Kubernetes-Pf-Flowschema-Uid": {"fs"}},
					`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"Too many requests, please try again later.","reason":"TooManyRequests","details":{"retryAfterSeconds":2},"code":429}`
			}
			return 201, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"7"}}`
		}
		c := newFakeClient(t, f, ClientOptions{})
		start := time.Now()
		cm := &ConfigMap{ObjectMeta: ObjectMeta{Name: "a", Namespace: "ns"}}
		if err := c.Create(context.Background(), cm); err != nil {
			t.Fatalf("Create = %v, want success after two 429s", err)
		}
		if n := f.count("POST", "/api/v1"); n != 3 {
			t.Errorf("POST attempts = %d, want 3", n)
		}
		if got := time.Since(start); got != 4*time.Second {
			t.Errorf("Create took %v, want the 2s the server asked twice", got)
		}
		if cm.ResourceVersion != "7" {
			t.Errorf("resourceVersion = %q, want the answer's 7", cm.ResourceVersion)
		}
	})
}

// TestNoClientRateLimitByDefault: a Config that sets no QPS (or a
// negative one) gives a client that never waits on its own, as
// controller-runtime's since v0.21; 100 requests take no time.
func TestNoClientRateLimitByDefault(t *testing.T) {
	for _, qps := range []float64{0, -1} {
		synctest.Test(t, func(t *testing.T) {
			f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
				if code, h, body, ok := legacyDiscovery(r); ok {
					return code, h, body
				}
				return 200, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`
			}}
			c, err := NewClient(&Config{Host: "https://fake.invalid", Transport: f, QPS: qps}, ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			for range 100 {
				var cm ConfigMap
				if err := c.Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &cm); err != nil {
					t.Fatal(err)
				}
			}
			if got := time.Since(start); got != 0 {
				t.Errorf("QPS %v: 100 requests took %v, want no wait", qps, got)
			}
		})
	}
}

func TestClientRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
			if code, h, body, ok := legacyDiscovery(r); ok {
				return code, h, body
			}
			return 200, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`
		}}
		c, err := NewClient(&Config{Host: "https://fake.invalid", Transport: f, QPS: 10, Burst: 5}, ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		// Discovery takes 2 requests (/api answers the legacy form, then
		// /api/v1), then 24 gets: 26 requests, 5 from the burst and 21 at
		// 10 per second.
		for range 24 {
			var cm ConfigMap
			if err := c.Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &cm); err != nil {
				t.Fatal(err)
			}
		}
		if got := time.Since(start); got < 2100*time.Millisecond-time.Millisecond || got > 2100*time.Millisecond+time.Millisecond {
			t.Errorf("26 requests at 10 qps burst 5 took %v, want 2.1s", got)
		}
	})
}

func TestRetryOnConflict(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		conflict := NewStatusError(409, ReasonConflict, "stale")
		tries := 0
		err := RetryOnConflict(context.Background(), func() error {
			tries++
			if tries < 3 {
				return conflict
			}
			return nil
		})
		if err != nil || tries != 3 {
			t.Errorf("RetryOnConflict = %v after %d tries, want nil after 3", err, tries)
		}
		tries = 0
		err = RetryOnConflict(context.Background(), func() error { tries++; return conflict })
		if !IsConflict(err) || tries != 5 {
			t.Errorf("RetryOnConflict = %v after %d tries, want the conflict after 5", err, tries)
		}
		other := errors.New("boom")
		if err := RetryOnConflict(context.Background(), func() error { return other }); err != other {
			t.Errorf("RetryOnConflict = %v, want %v at once", err, other)
		}
	})
}

func TestNewClientBadHostKeepsSecrets(t *testing.T) {
	for _, host := range []string{"https://user:s3cret@exa mple.com", "ftp://user:s3cret@example.com", ""} {
		_, err := NewClient(&Config{Host: host}, ClientOptions{})
		if err == nil {
			t.Errorf("NewClient(%q) succeeded, want an error", host)
			continue
		}
		if strings.Contains(err.Error(), "s3cret") {
			t.Errorf("NewClient(%q) error %q shows the password", host, err)
		}
	}
}
