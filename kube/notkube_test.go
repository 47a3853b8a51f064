// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// wrongServer answers every path as a web server that is not a Kubernetes
// API server does: a plain 404 (a kubeconfig with the wrong port, a proxy
// path that is wrong).
func wrongServer(t *testing.T) *httptest.Server {
	s := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(s.Close)
	return s
}

// TestWrongServerIsNotNotFound: every call to a server that answers plain
// 404s fails with a NotKubernetesError naming the server and the path,
// which IsNotFound does not report and IgnoreNotFound does not hide.
func TestWrongServerIsNotNotFound(t *testing.T) {
	s := wrongServer(t)
	c, err := NewClient(&Config{Host: s.URL + "/wrong/prefix"}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	cm := &ConfigMap{ObjectMeta: ObjectMeta{Namespace: "ns", Name: "a"}}
	var list List[ConfigMap]
	for name, call := range map[string]func() error{
		"Get":     func() error { return c.Get(ctx, cm.Key(), cm) },
		"List":    func() error { return c.List(ctx, &list, ListOptions{Namespace: "ns"}) },
		"Create":  func() error { return c.Create(ctx, cm) },
		"Delete":  func() error { return c.Delete(ctx, cm) },
		"Mapping": func() error { _, err := c.Mapping(ctx, cm.GroupVersionKind()); return err },
		"Watch": func() error {
			w, err := c.Watch(ctx, cm.GroupVersionKind(), ListOptions{})
			if err == nil {
				w.Stop()
			}
			return err
		},
	} {
		err := call()
		if IsNotFound(err) || IgnoreNotFound(err) == nil {
			t.Errorf("%s on a server that answers plain 404s = %v: NotFound, want an error of its own", name, err)
		}
		var nk *NotKubernetesError
		if !errors.As(err, &nk) || !IsNotKubernetes(err) {
			t.Fatalf("%s = %v, want a NotKubernetesError", name, err)
		}
		want := "the server at " + s.URL + "/wrong/prefix answered 404 to /api: not a Kubernetes API server (or the wrong path): 404 page not found"
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%s = %q, want it to say %q", name, err, want)
		}
	}
}

// TestPlainNotFoundFromKubernetes: a Kubernetes API server (its /api and
// /apis answered discovery) answers a plain 404 from its mux for a
// resource it does not serve, as for a custom resource whose CRD was
// deleted: that is NotFound, naming the path, in one request.
func TestPlainNotFoundFromKubernetes(t *testing.T) {
	f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
		if code, h, body, ok := legacyDiscovery(r); ok {
			return code, h, body
		}
		return 404, nil, "404 page not found"
	}}
	c := newFakeClient(t, f, ClientOptions{})
	if _, err := c.Mapping(t.Context(), (&ConfigMap{}).GroupVersionKind()); err != nil {
		t.Fatal(err)
	}
	n := len(f.requests)
	err := c.Get(t.Context(), Key{Namespace: "ns", Name: "a"}, &ConfigMap{})
	if !IsNotFound(err) || IsNotKubernetes(err) {
		t.Errorf("Get = %v: IsNotFound %v, IsNotKubernetes %v, want NotFound", err, IsNotFound(err), IsNotKubernetes(err))
	}
	if err == nil || !strings.Contains(err.Error(), "404 to /api/v1/namespaces/ns/configmaps/a: the resource is not served") {
		t.Errorf("Get = %v, want it to name the path", err)
	}
	if got := len(f.requests) - n; got != 1 {
		t.Errorf("the Get took %d requests, want 1", got)
	}
}

// TestStatusNotFound: a 404 with a Status is NotFound, in one request.
func TestStatusNotFound(t *testing.T) {
	f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
		if code, h, body, ok := legacyDiscovery(r); ok {
			return code, h, body
		}
		return 404, nil, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"configmaps \"a\" not found"}`
	}}
	c := newFakeClient(t, f, ClientOptions{})
	if err := c.Get(t.Context(), Key{Namespace: "ns", Name: "a"}, &ConfigMap{}); !IsNotFound(err) {
		t.Fatalf("Get = %v, want NotFound", err)
	}
	n := len(f.requests)
	if err := c.Get(t.Context(), Key{Namespace: "ns", Name: "a"}, &ConfigMap{}); !IsNotFound(err) {
		t.Fatalf("Get = %v, want NotFound", err)
	}
	if got := len(f.requests) - n; got != 1 {
		t.Errorf("a Get answered a NotFound Status took %d requests, want 1", got)
	}
}
