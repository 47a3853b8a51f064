// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// replicated is a kind of this test's own with a number in its spec.
type replicated struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
	Spec       struct {
		Replicas int32       `json:"replicas"`
		MaxSurge IntOrString `json:"maxSurge"`
	} `json:"spec"`
}

func (*replicated) GroupVersionKind() GroupVersionKind {
	return GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

// TestErrorsNeverQuoteObjects: an answer that cannot be decoded fails
// with an error that describes it (its shape, the field at fault) without
// quoting it: for a Secret, what would be quoted is its data. Every value
// below that must not leak holds "SECRET" or 987654321987654321987.
func TestErrorsNeverQuoteObjects(t *testing.T) {
	const obj = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"},`
	get := func(c *Client) error {
		var cm ConfigMap
		return c.Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &cm)
	}
	getReplicated := func(c *Client) error {
		var r replicated
		return c.Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &r)
	}
	list := func(c *Client) error {
		var l List[ConfigMap]
		return c.List(context.Background(), &l, ListOptions{})
	}
	listEach := func(c *Client) error {
		_, err := c.ListEach(context.Background(), configMapKind, ListOptions{}, newConfigMap, func(Object, int) error { return nil })
		return err
	}
	watch := func(c *Client) error {
		w, err := c.Watch(context.Background(), configMapKind, ListOptions{})
		if err != nil {
			return err
		}
		defer w.Stop()
		for {
			ev, err := w.Next()
			if err != nil {
				return err
			}
			var cm ConfigMap
			if err := ev.Decode(&cm); err != nil {
				return err
			}
		}
	}
	tests := []struct {
		name   string
		code   int
		body   string
		read   func(*Client) error
		want   string // the error says
		reason string // the error is a *StatusError with this reason
	}{
		{name: "a string where a map is", body: obj + `"data":"SECRET"}`, read: get, want: "data"},
		{name: "a number where a string is", body: obj + `"data":{"k":987654321987654321987}}`, read: get, want: "data"},
		{name: "a number too large", body: obj + `"spec":{"replicas":987654321987654321987}}`, read: getReplicated, want: "spec.replicas"},
		{name: "IntOrString of an object", body: obj + `"spec":{"maxSurge":{"k":"SECRET"}}}`, read: getReplicated, want: "IntOrString"},
		{name: "IntOrString of a fraction", body: obj + `"spec":{"maxSurge":987654321987654321987.5}}`, read: getReplicated, want: "IntOrString"},
		{name: "broken JSON", body: obj + `"data":{"k":"abc-SECRET\q"}}`, read: get, want: "invalid JSON"},
		{name: "not JSON", body: `SECRET`, read: get, want: "invalid JSON"},
		{name: "YAML", body: "apiVersion: v1\nkind: Secret\ndata:\n  k: SECRET\n", read: get, want: "not JSON"},
		{name: "list item", body: `{"items":[` + obj + `"data":{"k":["SECRET"]}}]}`, read: list, want: "item 0"},
		{name: "list, garbage after", body: `{"items":[]} "SECRET"`, read: listEach, want: "after the list"},
		{name: "list, items not an array", body: `{"items":"SECRET"}`, read: listEach, want: "not an array"},
		{name: "list, a field of the wrong type", body: `{"metadata":{"resourceVersion":["SECRET"]},"items":[]}`, read: list, want: "metadata"},
		{name: "watch event", body: `{"type":"ADDED","object":` + obj + `"data":{"k":["SECRET"]}}}` + "\n", read: watch, want: "ADDED"},
		{name: "watch bookmark", body: `{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":["SECRET"]}}}` + "\n", read: watch, want: "bookmark"},
		{name: "watch ERROR without a Status", body: `{"type":"ERROR","object":{"data":"SECRET"}}` + "\n", read: watch, want: "ERROR"},
		{name: "watch unknown type", body: `{"type":"SPLIT","object":{"data":"SECRET"}}` + "\n", read: watch, want: "SPLIT"},
		{name: "watch not an event", body: `{"data":"SECRET"}` + "\n", read: watch, want: "not an event"},
		{name: "watch markup line", body: "<p>SECRET</p>\n", read: watch, want: "not an event"},
		{name: "watch type not a word", body: `{"type":"SECRET, or any text","object":{"data":"SECRET"}}` + "\n", read: watch, want: "unknown event type"},
		{name: "watch broken line", body: `{"type":"ADDED","object":{"data":"SECRET"` + "\n", read: watch, want: "not an event"},
		{name: "error answer in JSON that is not a Status", code: 500, body: `{"data":"SECRET"}`, read: get, reason: ReasonInternalError},
		{name: "error answer in JSON that is a list", code: 502, body: `["SECRET"]`, read: get, reason: ReasonUnknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
				if code, h, b, ok := legacyDiscovery(r); ok {
					return code, h, b
				}
				return max(tt.code, 200), nil, tt.body
			}}
			err := tt.read(newFakeClient(t, f, ClientOptions{}))
			if err == nil || errors.Is(err, io.EOF) {
				t.Fatalf("read = %v, want an error", err)
			}
			t.Log(err)
			if s := err.Error(); strings.Contains(s, "SECRET") || strings.Contains(s, "987654321987654321987") {
				t.Errorf("read error %q quotes the answer", s)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("read error %q, want it to say %q", err, tt.want)
			}
			if se, ok := AsStatusError(err); tt.code != 0 && (!ok || se.Status.Reason != tt.reason) {
				t.Errorf("read error %v, want a StatusError with reason %q", err, tt.reason)
			}
		})
	}
}

// TestErrorAnswersInTextAreQuoted: an error answer in plain text (a proxy's,
// a load balancer's) is the server's own message, and worth showing.
func TestErrorAnswersInTextAreQuoted(t *testing.T) {
	f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
		if code, h, b, ok := legacyDiscovery(r); ok {
			return code, h, b
		}
		return 503, nil, "upstream connect error or disconnect/reset before headers"
	}}
	var cm ConfigMap
	err := newFakeClient(t, f, ClientOptions{}).Get(context.Background(), Key{Namespace: "ns", Name: "a"}, &cm)
	if !strings.Contains(err.Error(), "upstream connect error") {
		t.Errorf("Get = %v, want the proxy's message", err)
	}
}

// TestErrorsNeverQuoteHostPassword: a password in Host's user info (sent
// as basic auth) stays out of the errors of requests that fail, and of the
// client's debug log.
func TestErrorsNeverQuoteHostPassword(t *testing.T) {
	var log strings.Builder
	c, err := NewClient(&Config{Host: "http://admin:host-SECRET@127.0.0.1:1", QPS: -1},
		ClientOptions{Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Mapping(context.Background(), configMapKind)
	if err == nil || strings.Contains(err.Error(), "SECRET") {
		t.Errorf("Mapping through a refused connection = %v, want an error without the password", err)
	}
	if strings.Contains(log.String(), "SECRET") {
		t.Errorf("the debug log shows the password:\n%s", log.String())
	}
}
