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
	srv.Deny("bob", "get", "/metrics")
	srv.Deny("carol", "*", "*")
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
		{sar, `{"spec":{"user":"bob","nonResourceAttributes":{"path":"/metrics","verb":"get"}}}`, 201, `{"allowed":false}`},
		{sar, `{"spec":{"user":"admin","groups":["system:masters"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}}}`, 201, `{"allowed":true}`},
		{sar, `{"spec":{"user":"carol","groups":["system:authenticated"],"nonResourceAttributes":{"path":"/version","verb":"get"}}}`, 201, `{"allowed":true}`},
		{sar, `{"spec":{"user":"carol","nonResourceAttributes":{"path":"/version","verb":"get"}}}`, 201, `{"allowed":false}`},
		{sar, `{"spec":{"user":"carol","groups":["system:authenticated"],"nonResourceAttributes":{"path":"/metrics","verb":"get"}}}`, 201, `{"allowed":false}`},
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

// TestComponentStatuses reads ComponentStatuses as kube-apiserver 1.36.3
// in the harness answers them: three components, the deprecation
// warning, a 404 for another name.
func TestComponentStatuses(t *testing.T) {
	_, c := newTestServer(t, Options{})
	r := c.do("GET", "/api/v1/componentstatuses", "")
	const want = `{"kind":"ComponentStatusList","apiVersion":"v1","metadata":{},"items":[{"metadata":{"name":"controller-manager"},"conditions":[{"type":"Healthy","status":"False","message":"Get \"https://127.0.0.1:10257/healthz\": dial tcp 127.0.0.1:10257: connect: connection refused"}]},{"metadata":{"name":"scheduler"},"conditions":[{"type":"Healthy","status":"False","message":"Get \"https://127.0.0.1:10259/healthz\": dial tcp 127.0.0.1:10259: connect: connection refused"}]},{"metadata":{"name":"etcd-0"},"conditions":[{"type":"Healthy","status":"True","message":"ok"}]}]}`
	if r.code != 200 || string(mustJSON(r.json(t))) != string(mustJSON(decodeJSON(t, []byte(want)))) {
		t.Errorf("GET componentstatuses = %d %s, want 200 %s", r.code, r.body, want)
	}
	if w := r.header.Get("Warning"); w != `299 - "v1 ComponentStatus is deprecated in v1.19+"` {
		t.Errorf("Warning = %q, want the deprecation", w)
	}
	got := c.mustDo(200, "GET", "/api/v1/componentstatuses/etcd-0", "")
	if got["kind"] != "ComponentStatus" || field(got, "metadata.name") != "etcd-0" {
		t.Errorf("GET componentstatuses/etcd-0 = %v", got)
	}
	c.mustDo(404, "GET", "/api/v1/componentstatuses/nope", "")
	c.mustDo(405, "POST", "/api/v1/componentstatuses", `{}`)
}

// TestServiceAccountTokenAuthenticates: a token a TokenRequest issued
// authenticates as its service account while the account exists, and no
// longer once it is deleted, even on a server without Options.Tokens.
func TestServiceAccountTokenAuthenticates(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const sas = "/api/v1/namespaces/default/serviceaccounts"
	c.mustDo(201, "POST", sas, `{"metadata":{"name":"robot"}}`)
	tr := c.mustDo(201, "POST", sas+"/robot/token", `{}`)
	token, _ := field(tr, "status.token").(string)
	whoami := func() (int, any) {
		r := c.do("POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", `{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`,
			"Authorization", "Bearer "+token)
		return r.code, field(r.json(t), "status.userInfo.username")
	}
	if code, user := whoami(); code != 201 || user != "system:serviceaccount:default:robot" {
		t.Errorf("whoami with the token = %d %v, want the service account", code, user)
	}
	c.mustDo(200, "DELETE", sas+"/robot", "")
	if code, user := whoami(); user == "system:serviceaccount:default:robot" {
		t.Errorf("whoami after the service account is deleted = %d %v, want another user", code, user)
	}
}
