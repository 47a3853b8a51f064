// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/listopts"
)

const cmPath = "/api/v1/namespaces/default/configmaps"

// names returns the metadata.name of each item of a list.
func names(list map[string]any) []string {
	var out []string
	items, _ := list["items"].([]any)
	for _, it := range items {
		out = append(out, field(it.(map[string]any), "metadata.name").(string))
	}
	return out
}

func createCM(c *client, name string, labels string) map[string]any {
	c.t.Helper()
	body := `{"metadata":{"name":"` + name + `"`
	if labels != "" {
		body += `,"labels":` + labels
	}
	body += `},"data":{"k":"v"}}`
	return c.mustDo(201, "POST", cmPath, body)
}

func TestListExactRewindsHistory(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	b := createCM(c, "b", "")
	then := field(b, "metadata.resourceVersion").(string)
	c.mustDo(200, "DELETE", cmPath+"/a", "")
	c.mustDo(200, "PATCH", cmPath+"/b", `{"data":{"k":"changed"}}`, "Content-Type", "application/merge-patch+json")
	createCM(c, "c", "")

	got := c.mustDo(200, "GET", cmPath+"?resourceVersionMatch=Exact&resourceVersion="+then, "")
	if n := names(got); strings.Join(n, ",") != "a,b" {
		t.Errorf("Exact list at %s = %v, want [a b]", then, n)
	}
	if rv := field(got, "metadata.resourceVersion"); rv != then {
		t.Errorf("Exact list resourceVersion = %v, want %s", rv, then)
	}
	for _, it := range got["items"].([]any) {
		if d := field(it.(map[string]any), "data.k"); d != "v" {
			t.Errorf("Exact list item %v data.k = %v, want the old value v", field(it.(map[string]any), "metadata.name"), d)
		}
	}
	now := c.mustDo(200, "GET", cmPath, "")
	if n := names(now); strings.Join(n, ",") != "b,c" {
		t.Errorf("list = %v, want [b c]", n)
	}
}

func TestListExactCompactedMatchesCapture(t *testing.T) {
	s, c := newTestServer(t, Options{})
	old := field(createCM(c, "a", ""), "metadata.resourceVersion").(string)
	createCM(c, "b", "")
	s.Compact()
	want := wireCaptures(t, "27-list-exact-compacted.txt")[0]
	got := c.do("GET", cmPath+"?resourceVersion="+old+"&resourceVersionMatch=Exact", "")
	if got.code != want.code {
		t.Fatalf("Exact list after compaction = %d %s, want %d", got.code, got.body, want.code)
	}
	sameShape(t, "27", got.body, want.body)
}

func TestListHistoryWindow(t *testing.T) {
	_, c := newTestServer(t, Options{HistorySize: 3})
	first := field(createCM(c, "a", ""), "metadata.resourceVersion").(string)
	for i := range 5 {
		createCM(c, fmt.Sprint("x", i), "")
	}
	if r := c.do("GET", cmPath+"?resourceVersionMatch=Exact&resourceVersion="+first, ""); r.code != 410 {
		t.Errorf("Exact list beyond the history window = %d %s, want 410", r.code, r.body)
	}
}

func TestListResourceVersionTooLarge(t *testing.T) {
	s, c := newTestServer(t, Options{})
	cur, _ := strconv.Atoi(s.CurrentResourceVersion())
	for _, q := range []string{"?resourceVersion=%d", "?resourceVersion=%d&resourceVersionMatch=NotOlderThan",
		"?resourceVersion=%d&resourceVersionMatch=Exact"} {
		r := c.do("GET", cmPath+fmt.Sprintf(q, cur+10), "")
		st := r.json(t)
		wantMsg := fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", cur+10, cur)
		if r.code != 504 || st["reason"] != "Timeout" || st["message"] != wantMsg {
			t.Errorf("GET %s = %d %v %q, want 504 Timeout %q", q, r.code, st["reason"], st["message"], wantMsg)
		}
	}
	for _, q := range []string{"", "?resourceVersion=0", "?resourceVersion=" + s.CurrentResourceVersion()} {
		got := c.mustDo(200, "GET", cmPath+q, "")
		if rv := field(got, "metadata.resourceVersion"); rv != s.CurrentResourceVersion() {
			t.Errorf("GET %s resourceVersion = %v, want the current %s", q, rv, s.CurrentResourceVersion())
		}
	}
}

func TestListOptionsValidation(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for _, tc := range []struct {
		query, field, msg string
	}{
		{"?resourceVersionMatch=Exact", "resourceVersionMatch", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"},
		{"?resourceVersionMatch=Exact&resourceVersion=0", "resourceVersionMatch", `resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`},
		{"?sendInitialEvents=true", "sendInitialEvents", "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"},
		{"?watch=1&sendInitialEvents=true", "resourceVersionMatch", "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
		{"?watch=1&resourceVersion=5&resourceVersionMatch=NotOlderThan", "resourceVersionMatch", "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
	} {
		r := c.do("GET", cmPath+tc.query, "")
		st := r.json(t)
		wantMsg := `ListOptions.meta.k8s.io "" is invalid: ` + tc.msg
		if r.code != 422 || st["reason"] != "Invalid" || st["message"] != wantMsg {
			t.Errorf("GET %s = %d %v %q, want 422 Invalid %q", tc.query, r.code, st["reason"], st["message"], wantMsg)
			continue
		}
		if d := field(st, "details.kind"); d != "ListOptions" || field(st, "details.group") != "meta.k8s.io" {
			t.Errorf("GET %s details = %v", tc.query, st["details"])
		}
		causes, _ := field(st, "details.causes").([]any)
		if len(causes) != 1 || field(causes[0].(map[string]any), "field") != tc.field {
			t.Errorf("GET %s causes = %v, want one on %s", tc.query, causes, tc.field)
		}
	}
}

func TestListContinueExpired(t *testing.T) {
	s, c := newTestServer(t, Options{})
	for _, n := range []string{"a", "b", "c"} {
		createCM(c, n, "")
	}
	page := c.mustDo(200, "GET", cmPath+"?limit=1", "")
	token := field(page, "metadata.continue").(string)
	createCM(c, "d", "")
	s.Compact()
	r := c.do("GET", cmPath+"?limit=1&continue="+url.QueryEscape(token), "")
	st := r.json(t)
	if r.code != 410 || st["reason"] != "Expired" || st["message"] != listopts.MsgContinueExpired {
		t.Fatalf("continue after compaction = %d %v %q, want 410 Expired %q", r.code, st["reason"], st["message"], listopts.MsgContinueExpired)
	}
	fresh, _ := field(st, "metadata.continue").(string)
	checkContinueToken(t, fresh, "-1", "/a\x00")
	// The token in the answer continues at the latest version, d included.
	rest := c.mustDo(200, "GET", cmPath+"?continue="+url.QueryEscape(fresh), "")
	if n := strings.Join(names(rest), ","); n != "b,c,d" {
		t.Errorf("list with the inconsistent token = %s, want b,c,d", n)
	}
}

func TestListPagesAreConsistent(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for _, n := range []string{"a", "b", "c", "d"} {
		createCM(c, n, "")
	}
	first := c.mustDo(200, "GET", cmPath+"?limit=2", "")
	if rem := field(first, "metadata.remainingItemCount"); rem != float64(2) {
		t.Errorf("remainingItemCount = %v, want 2", rem)
	}
	c.mustDo(200, "DELETE", cmPath+"/c", "")
	createCM(c, "e", "")
	second := c.mustDo(200, "GET", cmPath+"?limit=2&continue="+url.QueryEscape(field(first, "metadata.continue").(string)), "")
	if n := strings.Join(names(second), ","); n != "c,d" {
		t.Errorf("second page = %s, want c,d as of the first page", n)
	}
	if field(second, "metadata.resourceVersion") != field(first, "metadata.resourceVersion") {
		t.Errorf("second page resourceVersion %v, want the first page's %v", field(second, "metadata.resourceVersion"), field(first, "metadata.resourceVersion"))
	}
	if field(second, "metadata.continue") != nil || field(second, "metadata.remainingItemCount") != nil {
		t.Errorf("last page metadata = %v, want no continue and no remainingItemCount", second["metadata"])
	}
}

func TestListSelectors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"a-b"}}`)
	c.mustDo(201, "POST", "/api/v1/namespaces/a-b/configmaps", `{"metadata":{"name":"z","labels":{"app":"x"}}}`)
	createCM(c, "y", `{"app":"x"}`)
	createCM(c, "x", `{"app":"other"}`)
	all := c.mustDo(200, "GET", "/api/v1/configmaps?labelSelector=app%3Dx", "")
	var keys []string
	for _, it := range all["items"].([]any) {
		m := it.(map[string]any)
		keys = append(keys, field(m, "metadata.namespace").(string)+"/"+field(m, "metadata.name").(string))
	}
	// Sorted by etcd key: "a-b/z" before "default/y".
	if strings.Join(keys, ",") != "a-b/z,default/y" {
		t.Errorf("list across namespaces = %v, want [a-b/z default/y]", keys)
	}
	paged := c.mustDo(200, "GET", "/api/v1/configmaps?labelSelector=app%3Dx&limit=1", "")
	if field(paged, "metadata.continue") == nil || field(paged, "metadata.remainingItemCount") != nil {
		t.Errorf("paged list with a selector metadata = %v, want a continue token and no remainingItemCount", paged["metadata"])
	}
	for _, tc := range []struct {
		query, msg string
	}{
		{"?fieldSelector=spec.foo%3Dbar", `"spec.foo" is not a known field selector: only "metadata.name", "metadata.namespace"`},
		{"?labelSelector=a+b", ""},
	} {
		r := c.do("GET", cmPath+tc.query, "")
		st := r.json(t)
		if r.code != 400 || st["reason"] != "BadRequest" || (tc.msg != "" && st["message"] != tc.msg) {
			t.Errorf("GET %s = %d %v %q, want 400 BadRequest %q", tc.query, r.code, st["reason"], st["message"], tc.msg)
		}
	}
	c.mustDo(201, "POST", "/api/v1/namespaces/default/secrets", `{"metadata":{"name":"s1"},"type":"Opaque"}`)
	c.mustDo(201, "POST", "/api/v1/namespaces/default/secrets", `{"metadata":{"name":"s2"},"type":"kubernetes.io/tls","data":{"tls.crt":"","tls.key":""}}`)
	got := c.mustDo(200, "GET", "/api/v1/namespaces/default/secrets?fieldSelector=type%3DOpaque", "")
	if n := strings.Join(names(got), ","); n != "s1" {
		t.Errorf("secrets with type=Opaque = %s, want s1", n)
	}
	got = c.mustDo(200, "GET", "/api/v1/namespaces?fieldSelector=metadata.name%21%3Ddefault,status.phase%3DActive", "")
	if n := strings.Join(names(got), ","); n != "a-b,kube-node-lease,kube-public,kube-system" {
		t.Errorf("namespaces not default = %s", n)
	}
}

func TestPartialObjectMetadataGet(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", `{"app":"x"}`)
	got := c.mustDo(200, "GET", cmPath+"/a", "", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")
	if got["kind"] != "PartialObjectMetadata" || got["apiVersion"] != "meta.k8s.io/v1" || got["data"] != nil ||
		field(got, "metadata.labels.app") != "x" {
		t.Errorf("GET as PartialObjectMetadata = %v", got)
	}
	if r := c.do("GET", cmPath+"/a", "", "Accept", "application/vnd.kubernetes.protobuf;as=Table;g=meta.k8s.io;v=v1"); r.code != 406 {
		t.Errorf("GET accepting only a protobuf Table = %d, want 406", r.code)
	}
	if r := c.do("GET", cmPath, "", "Accept", "application/json;as=Table;g=meta.k8s.io;v=v1,application/json"); r.code != 200 {
		t.Errorf("GET with a fallback to JSON = %d, want 200", r.code)
	}
}
