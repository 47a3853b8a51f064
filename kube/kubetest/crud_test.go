// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"strings"
	"testing"
)

// TestCreateMatchesCapture replays the creates of the captures and compares
// the answers with the real server's.
func TestCreateMatchesCapture(t *testing.T) {
	_, c := newTestServer(t, Options{})
	for _, tc := range []struct {
		file string
		path string
		body string
	}{
		{"06-create-configmap.txt", "/api/v1/namespaces/default/configmaps",
			`{"metadata":{"name":"created","generateName":""},"data":{"a":"b"}}`},
		{"07-create-conflict-exists.txt", "/api/v1/namespaces/default/configmaps",
			`{"metadata":{"name":"created"},"data":{"a":"b"}}`},
		{"14-invalid-name.txt", "/api/v1/namespaces/default/configmaps",
			`{"metadata":{"name":"Bad_Name"},"data":{}}`},
		{"24-create-lease.txt", "/apis/coordination.k8s.io/v1/namespaces/default/leases",
			`{"apiVersion":"coordination.k8s.io/v1","kind":"Lease","metadata":{"name":"demo-leader"},"spec":{"holderIdentity":"pod-a_1234","leaseDurationSeconds":15,"acquireTime":"2026-11-21T04:50:00.000000Z","renewTime":"2026-11-21T04:50:00.000000Z","leaseTransitions":0}}`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			want := wireCaptures(t, tc.file)[0]
			got := c.do(http.MethodPost, tc.path, tc.body)
			if got.code != want.code {
				t.Fatalf("POST %s = %d %s, want %d", tc.path, got.code, got.body, want.code)
			}
			if ct := got.header.Get("Content-Type"); ct != want.header.Get("content-type") {
				t.Errorf("Content-Type = %q, want %q", ct, want.header.Get("content-type"))
			}
			sameShape(t, tc.file, got.body, want.body)
		})
	}
}

// TestGenerateNameInvalid checks that generateName is validated and the
// error names the generated name (capture 26).
func TestGenerateNameInvalid(t *testing.T) {
	_, c := newTestServer(t, Options{})
	want := wireCaptures(t, "26-create-event.txt")[0]
	got := c.do(http.MethodPost, "/apis/events.k8s.io/v1/namespaces/default/events",
		`{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"generateName":"cm1."},"eventTime":"2026-11-21T04:50:00.000000Z","reportingController":"kubeloop.example/demo","reportingInstance":"demo-1","action":"Reconcile","reason":"Synced","note":"configmap synced","type":"Normal","regarding":{"apiVersion":"v1","kind":"ConfigMap","namespace":"default","name":"cm1"}}`)
	if got.code != want.code {
		t.Fatalf("POST event = %d %s, want %d", got.code, got.body, want.code)
	}
	st := got.json(t)
	name, _ := field(st, "details.name").(string)
	if !strings.HasPrefix(name, "cm1.") || len(name) != len("cm1.")+5 {
		t.Fatalf("details.name = %q, want cm1. and 5 characters", name)
	}
	for _, ch := range name[4:] {
		if !strings.ContainsRune("bcdfghjklmnpqrstvwxz2456789", ch) {
			t.Errorf("generated suffix %q has %q, not from the server's alphabet", name[4:], ch)
		}
	}
	// The generated name differs between runs: put the captured one in.
	fixed := strings.ReplaceAll(string(got.body), name, "cm1.n79w7")
	sameShape(t, "26", []byte(fixed), want.body)
}

func TestGetNotFoundMatchesCapture(t *testing.T) {
	_, c := newTestServer(t, Options{})
	want := wireCaptures(t, "08-get-notfound.txt")[0]
	got := c.do(http.MethodGet, "/api/v1/namespaces/default/configmaps/nope", "")
	if got.code != want.code {
		t.Fatalf("GET = %d, want %d", got.code, want.code)
	}
	sameShape(t, "08", got.body, want.body)
}

func TestUpdateStaleMatchesCapture(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"cm1"},"data":{"k":"v1"}}`)
	want := wireCaptures(t, "13-update-stale-rv.txt")[0]
	got := c.do(http.MethodPut, "/api/v1/namespaces/default/configmaps/cm1", `{"metadata":{"name":"cm1","resourceVersion":"1"},"data":{"k":"x"}}`)
	if got.code != want.code {
		t.Fatalf("PUT = %d %s, want %d", got.code, got.body, want.code)
	}
	sameShape(t, "13", got.body, want.body)
}

func TestDeleteMatchesCapture(t *testing.T) {
	_, c := newTestServer(t, Options{})
	created := c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"cm5"}}`)
	want := wireCaptures(t, "20-delete.txt")[0]
	got := c.do(http.MethodDelete, "/api/v1/namespaces/default/configmaps/cm5", "")
	if got.code != want.code {
		t.Fatalf("DELETE = %d %s, want %d", got.code, got.body, want.code)
	}
	sameShape(t, "20", got.body, want.body)
	if uid := field(got.json(t), "details.uid"); uid != field(created, "metadata.uid") {
		t.Errorf("details.uid = %v, want the object's %v", uid, field(created, "metadata.uid"))
	}
	c.mustDo(404, "GET", "/api/v1/namespaces/default/configmaps/cm5", "")
}

// TestUpdateWithoutName: a PUT or patch that leaves the object without a
// name is refused with the real server's words.
func TestUpdateWithoutName(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	const want = "the name of the object (a based on URL) was undeterminable: name must be provided"
	for _, r := range []response{
		c.do("PUT", cmPath+"/a", `{"metadata":{}}`, "Content-Type", "application/json"),
		c.do("PATCH", cmPath+"/a", `{"metadata":{"name":null}}`, "Content-Type", ctMerge),
	} {
		if st := r.json(t); r.code != 400 || st["message"] != want {
			t.Errorf("write without a name = %d %s, want 400 %q", r.code, r.body, want)
		}
	}
}
