// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/discovery"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
)

// byName indexes a list of discovery entries by a key field.
func byName(list any, key string) map[string]map[string]any {
	out := map[string]map[string]any{}
	items, _ := list.([]any)
	for _, it := range items {
		m := it.(map[string]any)
		out[m[key].(string)] = m
	}
	return out
}

func decodeJSON(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %q: %v", b, err)
	}
	return m
}

// TestDiscoveryMatchesCapture checks that what the fake serves is
// described as the real server describes it: every resource it lists
// appears in the capture with the same fields, hashes included.
func TestDiscoveryMatchesCapture(t *testing.T) {
	_, c := newTestServer(t, Options{Minor: 36}) // testdata/wire was captured from 1.36.3

	t.Run("api", func(t *testing.T) {
		want := wireCaptures(t, "01-discovery-api.txt")[0]
		got := c.do("GET", "/api", "")
		g, w := got.json(t), decodeJSON(t, want.body)
		if !reflect.DeepEqual(g["versions"], w["versions"]) || g["kind"] != w["kind"] {
			t.Errorf("/api = %s, want like %s", got.body, want.body)
		}
	})

	for _, tc := range []struct{ file, path string }{
		{"02-discovery-api-v1.txt", "/api/v1"},
		{"04-discovery-coordination.txt", "/apis/coordination.k8s.io/v1"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			want := decodeJSON(t, wireCaptures(t, tc.file)[0].body)
			got := c.mustDo(200, "GET", tc.path, "")
			if got["kind"] != want["kind"] || got["apiVersion"] != want["apiVersion"] || got["groupVersion"] != want["groupVersion"] {
				t.Errorf("GET %s header fields = %v %v %v, want %v %v %v", tc.path, got["kind"], got["apiVersion"], got["groupVersion"],
					want["kind"], want["apiVersion"], want["groupVersion"])
			}
			wantRes := byName(want["resources"], "name")
			for name, r := range byName(got["resources"], "name") {
				if !reflect.DeepEqual(r, wantRes[name]) {
					t.Errorf("GET %s resource %s = %v, want %v", tc.path, name, r, wantRes[name])
				}
			}
			// The subresources served are listed too.
			for _, name := range map[string][]string{"/api/v1": {"namespaces/finalize", "namespaces/status"}}[tc.path] {
				if byName(got["resources"], "name")[name] == nil {
					t.Errorf("GET %s lists no %s", tc.path, name)
				}
			}
		})
	}

	t.Run("apis", func(t *testing.T) {
		want := decodeJSON(t, wireCaptures(t, "03-discovery-apis.txt")[0].body)
		got := c.mustDo(200, "GET", "/apis", "")
		wantGroups := byName(want["groups"], "name")
		for name, g := range byName(got["groups"], "name") {
			if !reflect.DeepEqual(g, wantGroups[name]) {
				t.Errorf("group %s = %v, want %v", name, g, wantGroups[name])
			}
		}
		group := c.mustDo(200, "GET", "/apis/apps", "")
		if group["kind"] != "APIGroup" || group["name"] != "apps" || field(group, "preferredVersion.version") != "v1" {
			t.Errorf("GET /apis/apps = %v", group)
		}
	})

	t.Run("aggregated", func(t *testing.T) {
		capture := wireCaptures(t, "05-discovery-aggregated.txt")[0]
		accept := "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
		got := c.do("GET", "/apis", "", "Accept", accept)
		if ct := got.header.Get("Content-Type"); ct != capture.header.Get("content-type") {
			t.Errorf("Content-Type = %q, want %q", ct, capture.header.Get("content-type"))
		}
		if got.header.Get("Etag") == "" || got.header.Get("Vary") != "Accept" {
			t.Errorf("headers = %v, want an ETag and Vary: Accept", got.header)
		}
		g, w := got.json(t), decodeJSON(t, capture.body)
		if g["kind"] != w["kind"] || g["apiVersion"] != w["apiVersion"] {
			t.Errorf("aggregated kind %v %v, want %v %v", g["kind"], g["apiVersion"], w["kind"], w["apiVersion"])
		}
		wantGroups := map[string]map[string]any{}
		for _, it := range w["items"].([]any) {
			wantGroups[field(it.(map[string]any), "metadata.name").(string)] = it.(map[string]any)
		}
		for _, it := range g["items"].([]any) {
			grp := it.(map[string]any)
			name := field(grp, "metadata.name").(string)
			wv := wantGroups[name]["versions"].([]any)[0].(map[string]any)
			gv := grp["versions"].([]any)[0].(map[string]any)
			wantRes := byName(wv["resources"], "resource")
			for rname, r := range byName(gv["resources"], "resource") {
				// The fake serves only the status subresource: each of its
				// subresources must be described as in the capture.
				wr := maps.Clone(wantRes[rname])
				wantSubs := byName(wr["subresources"], "subresource")
				for sname, sub := range byName(r["subresources"], "subresource") {
					if !reflect.DeepEqual(sub, wantSubs[sname]) {
						t.Errorf("aggregated %s/%s/%s = %v, want %v", name, rname, sname, sub, wantSubs[sname])
					}
				}
				r = maps.Clone(r)
				delete(r, "subresources")
				delete(wr, "subresources")
				if !reflect.DeepEqual(r, wr) {
					t.Errorf("aggregated %s/%s = %v, want %v", name, rname, r, wr)
				}
			}
		}
		again := c.do("GET", "/apis", "", "Accept", accept, "If-None-Match", got.header.Get("Etag"))
		if again.code != 304 {
			t.Errorf("GET with the ETag = %d, want 304", again.code)
		}
		core := c.mustDo(200, "GET", "/api", "", "Accept", accept)
		items := core["items"].([]any)
		if len(items) != 1 || field(items[0].(map[string]any), "versions") == nil {
			t.Errorf("aggregated /api = %v", core)
		}
	})

	t.Run("version and health", func(t *testing.T) {
		v := c.mustDo(200, "GET", "/version", "")
		if v["gitVersion"] != "v1.36.3" || v["major"] != "1" || v["minor"] != "36" {
			t.Errorf("/version = %v", v)
		}
		for _, p := range []string{"/healthz", "/livez", "/readyz"} {
			if r := c.do("GET", p, ""); r.code != 200 || string(r.body) != "ok" {
				t.Errorf("GET %s = %d %q, want 200 ok", p, r.code, r.body)
			}
		}
		// An unknown group has no handler: the real server's mux answers.
		for _, p := range []string{"/apis/nope.example.com", "/apis/nope.example.com/v1", "/apis/nope.example.com/v1/things"} {
			if r := c.do("GET", p, ""); r.code != 404 || string(r.body) != "404 page not found\n" ||
				r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
				t.Errorf("GET %s = %d %q %q, want 404 page not found as text", p, r.code, r.header.Get("Content-Type"), r.body)
			}
		}
		if r := c.do("GET", "/apis/apps/v9", ""); r.code != 404 || r.json(t)["message"] != "the server could not find the requested resource" {
			t.Errorf("unknown version = %d %s", r.code, r.body)
		}
		if r := c.do("GET", "/api/v1/namespaces/default/widgets", ""); r.code != 404 {
			t.Errorf("unknown resource = %d %s", r.code, r.body)
		}
	})
}

func TestCompareKubeVersions(t *testing.T) {
	in := []string{"v1alpha1", "foo", "v2", "v1beta2", "v1", "v1beta1", "v10", "bar"}
	want := []string{"v10", "v2", "v1", "v1beta2", "v1beta1", "v1alpha1", "bar", "foo"}
	got := append([]string(nil), in...)
	sortVersions(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("sorted %v = %v, want %v", in, got, want)
	}
}

func sortVersions(v []string) { slices.SortFunc(v, kinds.CompareVersions) }

// TestAggregatedDiscoveryFollowsCRDs: the aggregated /apis (kept between
// requests) changes with each CRD created, changed or deleted, its ETag
// with it, and /api stays as it was.
func TestAggregatedDiscoveryFollowsCRDs(t *testing.T) {
	_, c := newTestServer(t, Options{})
	get := func(path string, headers ...string) response {
		t.Helper()
		return c.do("GET", path, "", append([]string{"Accept", discovery.AggregatedType}, headers...)...)
	}
	// shortNames returns the short names of widgets in example.com/v1,
	// nil when /apis does not list the group.
	shortNames := func(r response) []any {
		t.Helper()
		for _, g := range r.json(t)["items"].([]any) {
			if field(g.(map[string]any), "metadata.name") != "example.com" {
				continue
			}
			for _, v := range g.(map[string]any)["versions"].([]any) {
				if v.(map[string]any)["version"] != "v1" {
					continue
				}
				for _, res := range v.(map[string]any)["resources"].([]any) {
					if res.(map[string]any)["resource"] == "widgets" {
						names, _ := res.(map[string]any)["shortNames"].([]any)
						return append([]any{}, names...)
					}
				}
			}
			t.Fatalf("/apis lists example.com without widgets in v1: %v", g)
		}
		return nil
	}
	api, before := get("/api"), get("/apis")
	if r := get("/apis", "If-None-Match", before.header.Get("Etag")); r.code != 304 {
		t.Errorf("/apis again with its ETag = %d, want 304", r.code)
	}
	if shortNames(before) != nil {
		t.Fatalf("/apis lists example.com before its CRD")
	}

	c.mustDo(201, "POST", crdPath, widgetCRD)
	created := get("/apis")
	if got := shortNames(created); !reflect.DeepEqual(got, []any{"wd"}) {
		t.Errorf("widgets' short names after the CRD's create = %v, want [wd]", got)
	}
	if created.header.Get("Etag") == before.header.Get("Etag") {
		t.Errorf("/apis kept its ETag %s after a CRD was created", before.header.Get("Etag"))
	}
	if r := get("/apis", "If-None-Match", before.header.Get("Etag")); r.code != 200 {
		t.Errorf("/apis with the ETag it had before the CRD = %d, want 200", r.code)
	}

	c.mustDo(200, "PATCH", crdPath+"/widgets.example.com", `{"spec":{"names":{"shortNames":["wdg"]}}}`, "Content-Type", ctMerge)
	if got := shortNames(get("/apis")); !reflect.DeepEqual(got, []any{"wdg"}) {
		t.Errorf("widgets' short names after the CRD's patch = %v, want [wdg]", got)
	}

	c.mustDo(200, "DELETE", crdPath+"/widgets.example.com", "")
	after := get("/apis")
	if shortNames(after) != nil {
		t.Errorf("/apis still lists example.com after its CRD was deleted")
	}
	if !bytes.Equal(after.body, before.body) {
		t.Errorf("/apis after the CRD went differs from before it came")
	}
	if got := get("/api"); !bytes.Equal(got.body, api.body) || got.code != 200 {
		t.Errorf("/api changed with a CRD: %d %s, want %s", got.code, got.body, api.body)
	}
}
