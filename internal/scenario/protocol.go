// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// This file holds the scenarios of the wire's edges that kube.Client does
// not reach: request bodies in other media types, paths the server has no
// handler for, malformed parameters and unsupported field selectors.

// statusOf decodes an answer's Status (zero when it is not one).
func statusOf(r rawResponse) kube.Status {
	var st kube.Status
	_ = json.Unmarshal(r.body, &st)
	return st
}

// testUnknownPaths: a group the server does not serve has no handler at
// all (the mux's plain-text 404), nor has an unknown version or resource
// of a group served by CRDs alone; an unknown version or resource of a
// built-in group is a NotFound Status.
func testUnknownPaths(t *testing.T, f *fixture) {
	group := "nope-" + randomSuffix() + ".kubeloop.dev"
	for _, p := range []string{"/apis/" + group, "/apis/" + group + "/v1", "/apis/" + group + "/v1/namespaces/" + f.ns + "/things"} {
		r := f.send(t, "GET", p, "", "")
		if r.code != 404 || string(r.body) != "404 page not found\n" || r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s = %d %q %q, want 404 page not found as text/plain", p, r.code, r.header.Get("Content-Type"), r.body)
		}
	}
	// A group served by CRDs alone has no handler for what they do not
	// serve either: the apiextensions server hands the request to the mux.
	crdGroup := "only-crds-" + randomSuffix() + ".kubeloop.dev"
	crd := widgetCRDIn(crdGroup, "widgets", "Widget")
	f.mustCreate(t, crd)
	t.Cleanup(func() { _ = f.c.Delete(f.ctx, crd) })
	f.eventually(t, "CRD served", func() error {
		if r := f.send(t, "GET", "/apis/"+crdGroup+"/v1", "", ""); r.code != 200 {
			return fmt.Errorf("GET /apis/%s/v1 = %d", crdGroup, r.code)
		}
		return nil
	})
	for _, p := range []string{"/apis/" + crdGroup + "/v9", "/apis/" + crdGroup + "/v1/nothings", "/apis/" + crdGroup + "/v1/namespaces/" + f.ns + "/nothings", "/apis/" + crdGroup + "/v9/namespaces/" + f.ns + "/widgets"} {
		r := f.send(t, "GET", p, "", "")
		if r.code != 404 || string(r.body) != "404 page not found\n" || r.header.Get("Content-Type") != "text/plain; charset=utf-8" {
			t.Errorf("GET %s = %d %q %q, want 404 page not found as text/plain", p, r.code, r.header.Get("Content-Type"), r.body)
		}
	}
	for _, p := range []string{"/apis/apps/v9/deployments", "/apis/apps/v1/nothings", "/api/v1/nothings"} {
		r := f.send(t, "GET", p, "", "")
		if st := statusOf(r); r.code != 404 || st.Reason != kube.ReasonNotFound || st.Message != "the server could not find the requested resource" {
			t.Errorf("GET %s = %d %s, want a NotFound Status", p, r.code, r.body)
		}
	}
}

// testMalformedResourceVersion: a list checks resourceVersion itself (400);
// a get or a watch hands it to the storage, which fails (500, no reason).
func testMalformedResourceVersion(t *testing.T, f *fixture) {
	f.mustCreate(t, f.configMap("rv", nil, nil))
	base := "/api/v1/namespaces/" + f.ns + "/configmaps"
	detail := `resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax`
	for _, tc := range []struct {
		path, reason, msg string
		code              int
	}{
		{base + "?resourceVersion=abc", kube.ReasonBadRequest, "invalid resource version: " + detail, 400},
		{base + "/rv?resourceVersion=abc", "", detail, 500},
		{base + "?watch=1&resourceVersion=abc", "", detail, 500},
		{base + "?watch=1&resourceVersion=abc&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", "", detail, 500},
	} {
		r := f.send(t, "GET", tc.path, "", "")
		if st := statusOf(r); r.code != tc.code || st.Reason != tc.reason || st.Message != tc.msg {
			t.Errorf("GET %s = %d %q %q, want %d %q %q", tc.path, r.code, st.Reason, st.Message, tc.code, tc.reason, tc.msg)
		}
	}
}

// testFieldSelectors: the fields a kind selects on, core Events' source
// (source.component, else reportingComponent), and the two messages for a
// field a kind does not support.
func testFieldSelectors(t *testing.T, f *fixture) {
	event := func(name string, fields map[string]any) *kube.Unstructured {
		ev := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: name}}
		ev.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "Event"})
		ev.Content = map[string]any{
			"involvedObject": map[string]any{"kind": "ConfigMap", "namespace": f.ns, "name": "x", "apiVersion": "v1"},
			"reason":         "Tested", "message": "a scenario event", "type": "Normal",
		}
		for k, v := range fields {
			ev.Content[k] = v
		}
		return ev
	}
	f.mustCreate(t, event("by-source", map[string]any{"source": map[string]any{"component": "scn-component"}}))
	f.mustCreate(t, event("by-reporter", map[string]any{"reportingComponent": "scn-reporter", "reportingInstance": "i-1"}))
	f.mustCreate(t, event("other", map[string]any{"source": map[string]any{"component": "someone-else"}}))
	for sel, want := range map[string]string{
		"source=scn-component":      "[by-source]",
		"source=scn-reporter":       "[by-reporter]",
		"source!=someone-else":      "[by-reporter by-source]",
		"reportingComponent=":       "[by-source other]",
		"involvedObject.name=x":     "[by-reporter by-source other]",
		"metadata.name=by-reporter": "[by-reporter]",
	} {
		var list kube.List[kube.Unstructured]
		list.SetGroupVersionKind(kube.GroupVersionKind{Version: "v1", Kind: "EventList"})
		fs, err := kube.ParseFieldSelector(sel)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, FieldSelector: fs}); err != nil {
			t.Fatalf("list events with %s: %v", sel, err)
		}
		if got := unstructuredNames(list.Items); got != want {
			t.Errorf("events with %s = %s, want %s", sel, got, want)
		}
	}

	generic := func(field string) string {
		return `"` + field + `" is not a known field selector: only "metadata.name", "metadata.namespace"`
	}
	for _, tc := range []struct{ path, msg string }{
		{"/api/v1/namespaces/" + f.ns + "/configmaps?fieldSelector=" + url.QueryEscape("spec.x=1"), generic("spec.x")},
		{"/apis/apps/v1/namespaces/" + f.ns + "/deployments?fieldSelector=" + url.QueryEscape("spec.x=1"), generic("spec.x")},
		{"/api/v1/namespaces/" + f.ns + "/pods?fieldSelector=" + url.QueryEscape("spec.x=1"), "field label not supported: spec.x"},
		{"/api/v1/namespaces/" + f.ns + "/events?fieldSelector=" + url.QueryEscape("spec.x=1"), "field label not supported: spec.x"},
		{"/api/v1/namespaces?fieldSelector=" + url.QueryEscape("metadata.namespace=x"), "field label not supported: metadata.namespace"},
	} {
		r := f.send(t, "GET", tc.path, "", "")
		if st := statusOf(r); r.code != 400 || st.Reason != kube.ReasonBadRequest || st.Message != tc.msg {
			t.Errorf("GET %s = %d %q %q, want 400 BadRequest %q", tc.path, r.code, st.Reason, st.Message, tc.msg)
		}
	}
	r := f.send(t, "GET", "/api/v1/namespaces/default/services?fieldSelector="+url.QueryEscape("spec.type=ClusterIP"), "", "")
	if r.code != 200 || !bytes.Contains(r.body, []byte(`"name":"kubernetes"`)) {
		t.Errorf("services of type ClusterIP in default = %d %s, want service/kubernetes", r.code, r.body)
	}
}

func unstructuredNames(items []kube.Unstructured) string {
	var out []string
	for _, it := range items {
		out = append(out, it.Name)
	}
	return "[" + strings.Join(out, " ") + "]"
}

// fieldAt reads a dotted path from decoded JSON; numeric segments index
// lists.
func fieldAt(v any, path string) any {
	for seg := range strings.SplitSeq(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			v = t[seg]
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i >= len(t) {
				return nil
			}
			v = t[i]
		default:
			return nil
		}
	}
	return v
}
