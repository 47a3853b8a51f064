// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"
	"testing"
)

// pods/eviction answers as kube-apiserver 1.36 does (captured through
// the harness): 201 with a Success Status, the pod gone; a dry run keeps
// the pod; the errors of a wrong name, a missing pod, a stale
// precondition and a GET.
func TestEviction(t *testing.T) {
	_, c := newTestServer(t, Options{})
	pods := "/api/v1/namespaces/default/pods"
	c.mustDo(201, "POST", pods, `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`)
	evict := func(name, query, body string) response {
		return c.do("POST", pods+"/"+name+"/eviction"+query, body, "Content-Type", "application/json")
	}
	for _, tc := range []struct {
		name, query, body string
		code              int
		want              string
	}{
		{"p", "?dryRun=All", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}`, 201,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`},
		{"p", "", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"q"}}`, 400, `"message":"name in URL does not match name in Eviction object","reason":"BadRequest"`},
		{"p", "", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"},"deleteOptions":{"preconditions":{"resourceVersion":"1"}}}`, 409,
			`the ResourceVersion in the precondition (1) does not match the ResourceVersion in record`},
		{"nope", "", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"nope"}}`, 404, `"message":"pods \"nope\" not found","reason":"NotFound"`},
		{"p", "", `{"apiVersion":"policy/v1","kind":"Eviction","metadata":{"name":"p"}}`, 201,
			`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","code":201}`},
	} {
		if r := evict(tc.name, tc.query, tc.body); r.code != tc.code || !strings.Contains(string(r.body), tc.want) {
			t.Errorf("evict %s%s %s = %d %s, want %d with %s", tc.name, tc.query, tc.body, r.code, r.body, tc.code, tc.want)
		}
		if tc.query != "" {
			c.mustDo(200, "GET", pods+"/p", "")
		}
	}
	c.mustDo(404, "GET", pods+"/p", "")
	if r := c.do("GET", pods+"/p/eviction", ""); r.code != 405 {
		t.Errorf("GET eviction = %d %s, want 405", r.code, r.body)
	}
}
