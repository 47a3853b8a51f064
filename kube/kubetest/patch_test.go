// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const (
	ctMerge = "application/merge-patch+json"
	ctJSON  = "application/json-patch+json"
	ctSMP   = "application/strategic-merge-patch+json"
	ctApply = "application/apply-patch+yaml"
)

func TestJSONPatchOperations(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	got := c.mustDo(200, "PATCH", cmPath+"/a", `[
		{"op":"add","path":"/data/x","value":"1"},
		{"op":"copy","from":"/data/x","path":"/data/y"},
		{"op":"move","from":"/data/k","path":"/data/z"},
		{"op":"remove","path":"/data/x"},
		{"op":"replace","path":"/data/y","value":"2"},
		{"op":"test","path":"/data/z","value":"v"}]`, "Content-Type", ctJSON)
	if want := map[string]any{"y": "2", "z": "v"}; !reflect.DeepEqual(got["data"], want) {
		t.Errorf("data after the patch = %v, want %v", got["data"], want)
	}
	// All or nothing: a failing operation leaves the object as it was.
	r := c.do("PATCH", cmPath+"/a", `[{"op":"remove","path":"/data/y"},{"op":"remove","path":"/data/missing"}]`, "Content-Type", ctJSON)
	if r.code != 422 {
		t.Errorf("patch with a failing op = %d %s, want 422", r.code, r.body)
	}
	if d := c.mustDo(200, "GET", cmPath+"/a", "")["data"]; !reflect.DeepEqual(d, map[string]any{"y": "2", "z": "v"}) {
		t.Errorf("data after a failed patch = %v", d)
	}
	if r := c.do("PATCH", cmPath+"/a", `{"op":"add"}`, "Content-Type", ctJSON); r.code != 400 {
		t.Errorf("malformed JSON patch = %d, want 400", r.code)
	}
	// A patch that sets a stale resourceVersion is a conflict.
	if r := c.do("PATCH", cmPath+"/a", `{"metadata":{"resourceVersion":"1"},"data":{"q":"1"}}`, "Content-Type", ctMerge); r.code != 409 {
		t.Errorf("merge patch with a stale resourceVersion = %d, want 409", r.code)
	}
}

// TestJSONPatchLimits checks kube-apiserver's bounds on a JSON patch:
// more than 10,000 operations answer 413 RequestEntityTooLarge, and copy
// operations that copy more than 3 MiB of JSON in all answer the 422 of
// any patch that cannot be applied; the object is left as it was.
func TestJSONPatchLimits(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	ops := func(n int, op string) string {
		return "[" + strings.TrimSuffix(strings.Repeat(op+",", n), ",") + "]"
	}
	const test = `{"op":"test","path":"/kind","value":"ConfigMap"}`
	c.mustDo(200, "PATCH", cmPath+"/a", ops(10000, test), "Content-Type", ctJSON)
	r := c.do("PATCH", cmPath+"/a", ops(10001, test), "Content-Type", ctJSON)
	wantMsg := "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
	if st := r.json(t); r.code != 413 || st["reason"] != "RequestEntityTooLarge" || st["message"] != wantMsg || st["details"] != nil {
		t.Errorf("patch of 10001 operations = %d %s, want 413 RequestEntityTooLarge %q", r.code, r.body, wantMsg)
	}

	// Four copies of a 1 MB value copy 4 MB, each alone within the limit.
	c.mustDo(201, "POST", cmPath, fmt.Sprintf(`{"metadata":{"name":"big"},"data":{"k":%q}}`, strings.Repeat("x", 1_000_000)))
	copies := `[{"op":"copy","from":"/data/k","path":"/data/k1"},{"op":"copy","from":"/data/k","path":"/data/k2"},
		{"op":"copy","from":"/data/k","path":"/data/k3"},{"op":"copy","from":"/data/k","path":"/data/k4"}]`
	r = c.do("PATCH", cmPath+"/big", copies, "Content-Type", ctJSON)
	wantMsg = "the server rejected our request due to an error in our request"
	if st := r.json(t); r.code != 422 || st["reason"] != "Invalid" || st["message"] != wantMsg {
		t.Errorf("patch copying 4 MB = %d %.300s, want 422 Invalid %q", r.code, r.body, wantMsg)
	}
	if d := c.mustDo(200, "GET", cmPath+"/big", "")["data"].(map[string]any); len(d) != 1 {
		t.Errorf("data after a refused patch has %d keys, want 1", len(d))
	}
}

func TestPatchContentTypes(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	got := c.mustDo(200, "PATCH", cmPath+"/a", `{"data":{"s":"1"}}`, "Content-Type", ctSMP)
	if field(got, "data.s") != "1" {
		t.Errorf("strategic merge patch = %v", got)
	}
	r := c.do("PATCH", cmPath+"/a", `{}`, "Content-Type", "application/json")
	want := "415: Unsupported Media Type" // the route refuses it, before the handler
	if st := r.json(t); r.code != 415 || st["reason"] != "UnsupportedMediaType" || st["message"] != want {
		t.Errorf("PATCH as application/json = %d %v %q, want 415 %q", r.code, st["reason"], st["message"], want)
	}
	if r := c.do("PATCH", cmPath+"/missing", `{}`, "Content-Type", ctMerge); r.code != 404 {
		t.Errorf("patch of a missing object = %d, want 404", r.code)
	}
}

func TestApply(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const p = cmPath + "/ap"
	created := c.mustDo(201, "PATCH", p+"?fieldManager=alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap","labels":{"team":"a"}},"data":{"x":"1","y":"2"}}`, "Content-Type", ctApply)
	if field(created, "data.y") != "2" {
		t.Fatalf("apply create = %v", created)
	}
	// bob takes z with an update; alice applies again without y: y goes,
	// z stays (bob owns it).
	c.mustDo(200, "PATCH", p+"?fieldManager=bob", `{"data":{"z":"3"}}`, "Content-Type", ctMerge)
	got := c.mustDo(200, "PATCH", p+"?fieldManager=alice", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ap\n  labels:\n    team: a\ndata:\n  x: \"1\"\n", "Content-Type", ctApply)
	if want := map[string]any{"x": "1", "z": "3"}; !reflect.DeepEqual(got["data"], want) {
		t.Errorf("data after the second apply = %v, want %v", got["data"], want)
	}
	// alice changing bob's z is a conflict...
	r := c.do("PATCH", p+"?fieldManager=alice", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"x":"1","z":"4"}}`, "Content-Type", ctApply)
	st := r.json(t)
	wantMsg := `Apply failed with 1 conflict: conflict with "bob" using v1: .data.z`
	if r.code != 409 || st["reason"] != "Conflict" || st["message"] != wantMsg {
		t.Fatalf("conflicting apply = %d %v %q, want 409 Conflict %q", r.code, st["reason"], st["message"], wantMsg)
	}
	causes := field(st, "details.causes").([]any)
	if cause := causes[0].(map[string]any); cause["reason"] != "FieldManagerConflict" || cause["field"] != ".data.z" ||
		cause["message"] != `conflict with "bob" using v1` {
		t.Errorf("cause = %v", cause)
	}
	// ...unless forced, which takes it over.
	got = c.mustDo(200, "PATCH", p+"?fieldManager=alice&force=true", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"x":"1","z":"4"}}`, "Content-Type", ctApply)
	if field(got, "data.z") != "4" {
		t.Errorf("forced apply = %v", got["data"])
	}
	for _, e := range field(got, "metadata.managedFields").([]any) {
		m := e.(map[string]any)
		if m["manager"] == "bob" {
			t.Errorf("bob still manages %v after a forced apply", m["fieldsV1"])
		}
		if m["manager"] == "alice" && m["operation"] != "Apply" {
			t.Errorf("alice's entry = %v, want operation Apply", m)
		}
	}
	// The same value as another manager's is shared, not a conflict.
	c.mustDo(200, "PATCH", p+"?fieldManager=carol", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"},"data":{"x":"1"}}`, "Content-Type", ctApply)

	if r := c.do("PATCH", p, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ap"}}`, "Content-Type", ctApply); r.code != 422 ||
		r.json(t)["message"] != `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch` {
		t.Errorf("apply without fieldManager = %d %s", r.code, r.body)
	}
}

func TestApplyStatus(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const p = "/apis/apps/v1/namespaces/default/deployments/d"
	c.mustDo(201, "PATCH", p+"?fieldManager=m", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}},"status":{"replicas":9}}`, "Content-Type", ctApply)
	got := c.mustDo(200, "PATCH", p+"/status?fieldManager=ctl", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"status":{"readyReplicas":1}}`, "Content-Type", ctApply)
	if field(got, "status.readyReplicas") != float64(1) || field(got, "spec.replicas") != float64(1) {
		t.Errorf("apply to status = %v", got)
	}
}
