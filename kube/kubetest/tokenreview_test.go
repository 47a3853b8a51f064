// SPDX-License-Identifier: Apache-2.0

package kubetest

import "testing"

// TestSubjectReviews sends TokenReviews, SubjectAccessReviews and
// LocalSubjectAccessReviews and compares the answers with kube-apiserver
// 1.36.3's to the same reviews (status and code; kubetest allows what
// [Server.Deny] does not deny, where the real server's RBAC denies users
// without bindings). The kind of an Invalid error is empty, as the real
// handlers name the kind of the decoded review, whose TypeMeta is empty.
func TestSubjectReviews(t *testing.T) {
	srv, c := newTestServer(t, Options{Tokens: map[string]string{"tok": "admin", "bob-token": "bob"}, UIDs: map[string]string{"admin": "1"}})
	c.token = "tok"
	srv.Deny("bob", "get", "pods")
	const tr, sar, lsar = "/apis/authentication.k8s.io/v1/tokenreviews", "/apis/authorization.k8s.io/v1/subjectaccessreviews",
		"/apis/authorization.k8s.io/v1/namespaces/default/localsubjectaccessreviews"
	pods := func(ns string) string {
		return `"resourceAttributes":{"verb":"get","resource":"pods"` + ns + `}`
	}
	tests := []struct {
		path, body string
		code       int
		status     string // the answer's status, or its message for an error
	}{
		{tr, `{"spec":{"token":"tok"}}`, 201,
			`{"audiences":["https://kubernetes.default.svc"],"authenticated":true,"user":{"groups":["system:masters","system:authenticated"],"uid":"1","username":"admin"}}`},
		{tr, `{"spec":{"token":"bogus"}}`, 201, `{"error":"invalid bearer token","user":{}}`},
		{tr, `{"spec":{}}`, 400, `"token is required for TokenReview in authentication"`},
		{sar, `{"spec":{"user":"admin","groups":["system:masters"],` + pods(`,"namespace":"default"`) + `}}`, 201, `{"allowed":true}`},
		{sar, `{"spec":{"user":"bob",` + pods(`,"namespace":"default"`) + `}}`, 201, `{"allowed":false}`},
		{sar, `{"spec":{` + pods("") + `}}`, 422, `".authorization.k8s.io \"\" is invalid: spec.user: Invalid value: \"\": at least one of user or group must be specified"`},
		{lsar, `{"spec":{"user":"bob",` + pods(`,"namespace":"default"`) + `}}`, 201, `{"allowed":false}`},
		{lsar, `{"spec":{"user":"bob",` + pods(`,"namespace":"other"`) + `}}`, 422, `".authorization.k8s.io \"\" is invalid: spec.resourceAttributes.namespace: Invalid value: \"other\": must match metadata.namespace"`},
	}
	for _, tc := range tests {
		r := c.do("POST", tc.path, tc.body)
		got := r.json(t)
		st := got["status"]
		if r.code != 201 {
			st = got["message"]
		}
		if r.code != tc.code || string(mustJSON(st)) != tc.status {
			t.Errorf("POST %s %s = %d %s, want %d %s", tc.path, tc.body, r.code, mustJSON(st), tc.code, tc.status)
		}
	}
	got := c.mustDo(201, "POST", lsar, `{"spec":{"user":"bob",`+pods(`,"namespace":"default"`)+`}}`)
	if ns := field(got, "metadata.namespace"); ns != "default" || got["kind"] != "LocalSubjectAccessReview" {
		t.Errorf("local review = %v in namespace %v, want LocalSubjectAccessReview in default", got["kind"], ns)
	}
}
