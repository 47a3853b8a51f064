// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// listEachServer answers GET /api/v1/configmaps with body.
func listEachServer(t *testing.T, body string) *Client {
	f := &fakeServer{}
	f.handle = func(r *http.Request) (int, http.Header, string) {
		if code, h, b, ok := legacyDiscovery(r); ok {
			return code, h, b
		}
		if r.URL.Path == "/api/v1/configmaps" {
			return 200, nil, body
		}
		return 404, nil, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"NotFound","code":404,"message":"not here"}`
	}
	return newFakeClient(t, f, ClientOptions{})
}

var configMapKind = GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

func newConfigMap() Object { return new(ConfigMap) }

// TestListEach: items come one at a time, with the kind stamped and the
// size of their JSON; the list's metadata comes back.
func TestListEach(t *testing.T) {
	item := `{"metadata":{"name":"a","namespace":"ns1"},"data":{"x":"1"}}`
	c := listEachServer(t, `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"next"},"items":[`+item+`, {"metadata":{"name":"b","namespace":"ns2"}}]}`)
	var got []string
	meta, err := c.ListEach(context.Background(), configMapKind, ListOptions{}, newConfigMap, func(o Object, n int) error {
		cm := o.(*ConfigMap)
		if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" {
			t.Errorf("item %s has kind %q %q, want v1 ConfigMap", cm.Name, cm.APIVersion, cm.Kind)
		}
		if cm.Name == "a" && (n < len(item) || n > len(item)+2 || cm.Data["x"] != "1") {
			t.Errorf("item a: %d bytes, data %v; want about %d bytes and x=1", n, cm.Data, len(item))
		}
		got = append(got, cm.Namespace+"/"+cm.Name)
		return nil
	})
	if err != nil || meta.ResourceVersion != "9" || meta.Continue != "next" || strings.Join(got, ",") != "ns1/a,ns2/b" {
		t.Errorf("ListEach = %v, %+v, items %v; want rv 9, continue next, ns1/a and ns2/b", err, meta, got)
	}
}

// TestListEachErrors: a broken answer names what is wrong; an error of
// each comes back as it is, and ends the read.
func TestListEachErrors(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"not an object", `[1]`, "want {"},
		{"items not an array", `{"items":{}}`, "not an array"},
		{"bad item", `{"items":[{"metadata":{"name":"a"}},{"data":{"x":1}}]}`, "item 1"},
		{"cut", `{"metadata":{"resourceVersion":"9"},"items":[{"metadata":{"name":"a"}},{"meta`, "unexpected EOF"},
		{"garbage after", `{"items":[{"metadata":{"name":"a"}}]} trailing`, "after the list"},
	}
	for _, tt := range tests {
		c := listEachServer(t, tt.body)
		_, err := c.ListEach(context.Background(), configMapKind, ListOptions{}, newConfigMap, func(Object, int) error { return nil })
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "list ConfigMap") {
			t.Errorf("%s: ListEach = %v, want an error of listing ConfigMap saying %q", tt.name, err, tt.want)
		}
	}

	stop := errors.New("stop")
	c := listEachServer(t, `{"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}}]}`)
	calls := 0
	_, err := c.ListEach(context.Background(), configMapKind, ListOptions{}, newConfigMap, func(Object, int) error { calls++; return stop })
	if err != stop || calls != 1 {
		t.Errorf("ListEach with a failing each = %v after %d calls, want the error itself after 1", err, calls)
	}

	c = listEachServer(t, `{"items":null}`)
	if _, err := c.ListEach(context.Background(), configMapKind, ListOptions{}, newConfigMap, func(Object, int) error { calls++; return nil }); err != nil || calls != 1 {
		t.Errorf("ListEach of null items = %v, %d more calls; want nil and none", err, calls-1)
	}
	if _, err := c.ListEach(context.Background(), configMapKind, ListOptions{Namespace: "missing"}, newConfigMap, func(Object, int) error { return nil }); !IsNotFound(err) {
		t.Errorf("ListEach of a 404 = %v, want NotFound", err)
	}
}
