// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"strings"
	"testing"
)

// testAccessReview: a SelfSubjectAccessReview (kubectl auth can-i) is
// answered 201 with the review as sent, the sender's managedFields and
// whether the sender may do what it asks; any user may ask. A review
// without attributes is invalid; the collection only takes POST.
func testAccessReview(t *testing.T, f *fixture) {
	if f.env.DeniedConfig == nil {
		t.Fatal("the environment has no denied user: this scenario cannot run")
	}
	const path = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"
	review := `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview",` +
		`"spec":{"resourceAttributes":{"namespace":"` + f.ns + `","verb":"create","resource":"configmaps"}}}`
	for _, tc := range []struct {
		user    string
		send    func() rawResponse
		allowed bool
	}{
		{"admin", func() rawResponse { return f.send(t, "POST", path, "application/json", review) }, true},
		{"denied", func() rawResponse {
			return f.sendAs(t, f.env.DeniedConfig, "POST", path, "application/json", review)
		}, false},
	} {
		r := tc.send()
		if r.code != 201 {
			t.Fatalf("review as %s = %d %s, want 201", tc.user, r.code, r.body)
		}
		var got struct {
			Kind     string
			Metadata struct {
				ManagedFields []struct {
					Manager, Operation, APIVersion string
					FieldsV1                       json.RawMessage
				}
			}
			Spec   struct{ ResourceAttributes map[string]string }
			Status map[string]any
		}
		if err := json.Unmarshal(r.body, &got); err != nil {
			t.Fatal(err)
		}
		attrs := got.Spec.ResourceAttributes
		if got.Kind != "SelfSubjectAccessReview" || attrs["namespace"] != f.ns || attrs["verb"] != "create" || attrs["resource"] != "configmaps" {
			t.Errorf("review as %s answered %s, want the review as sent", tc.user, r.body)
		}
		if len(got.Status) != 1 || got.Status["allowed"] != tc.allowed {
			t.Errorf("review as %s: status %v, want only allowed: %v", tc.user, got.Status, tc.allowed)
		}
		const fields = `{"f:spec":{"f:resourceAttributes":{".":{},"f:namespace":{},"f:resource":{},"f:verb":{}}}}`
		if mf := got.Metadata.ManagedFields; len(mf) != 1 || mf[0].Operation != "Update" ||
			mf[0].APIVersion != "authorization.k8s.io/v1" || string(mf[0].FieldsV1) != fields {
			t.Errorf("review as %s: managedFields %+v, want one Update owning %s", tc.user, mf, fields)
		}
	}

	r := f.send(t, "POST", path, "application/json", `{"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","spec":{}}`)
	// 1.37 names the spec, older minors spec.resourceAttributes.
	unionPath := "spec.resourceAttributes"
	if f.minor(t) >= minorNewest {
		unionPath = "spec"
	}
	expectStatus(t, "review without attributes", r, 422, "Invalid",
		`.authorization.k8s.io "" is invalid: `+unionPath+`: Invalid value: null: `+
			`exactly one of nonResourceAttributes or resourceAttributes must be specified`)
	// An access review has no name: metadata must be empty.
	r = f.send(t, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "application/json",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{"name":"x"},`+
			`"spec":{"user":"denied","nonResourceAttributes":{"path":"/metrics","verb":"get"}}}`)
	const named = `.authorization.k8s.io "" is invalid: metadata: Invalid value: {"name":"x","managedFields":[{"manager":"kubeloop","operation":"Update","apiVersion":"authorization.k8s.io/v1","time":"`
	if msg, reason := r.status(t); r.code != 422 || reason != "Invalid" || !strings.HasPrefix(msg, named) ||
		!strings.HasSuffix(msg, `","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:nonResourceAttributes":{".":{},"f:path":{},"f:verb":{}},"f:user":{}}}}]}: must be empty`) {
		t.Errorf("SubjectAccessReview with a name = %d %s %q, want 422 Invalid: metadata must be empty", r.code, reason, msg)
	}
	r = f.send(t, "GET", path, "", "")
	expectStatus(t, "GET of the reviews", r, 405, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}
