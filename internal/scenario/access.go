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
	// 1.37 names the spec, older minors spec.resourceAttributes; 1.33
	// quotes the null.
	unionPath, null := "spec.resourceAttributes", "null"
	if f.minor(t) >= minorNewest {
		unionPath = "spec"
	}
	if goSyntaxValues(f.minor(t)) {
		null = `"null"`
	}
	expectStatus(t, "review without attributes", r, 422, "Invalid",
		`.authorization.k8s.io "" is invalid: `+unionPath+`: Invalid value: `+null+`: `+
			`exactly one of nonResourceAttributes or resourceAttributes must be specified`)
	// An access review has no name: metadata must be empty.
	r = f.send(t, "POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "application/json",
		`{"apiVersion":"authorization.k8s.io/v1","kind":"SubjectAccessReview","metadata":{"name":"x"},`+
			`"spec":{"user":"denied","nonResourceAttributes":{"path":"/metrics","verb":"get"}}}`)
	// The metadata is printed as JSON, or on 1.33 in Go syntax; the
	// entry's time (and 1.33's pointer) differ on every answer.
	named := `.authorization.k8s.io "" is invalid: metadata: Invalid value: {"name":"x","managedFields":[{"manager":"kubeloop","operation":"Update","apiVersion":"authorization.k8s.io/v1","time":"`
	namedEnd := `","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:nonResourceAttributes":{".":{},"f:path":{},"f:verb":{}},"f:user":{}}}}]}: must be empty`
	if goSyntaxValues(f.minor(t)) {
		named = `.authorization.k8s.io "" is invalid: metadata: Invalid value: v1.ObjectMeta{Name:"x", GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, ` +
			`CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), ` +
			`Labels:map[string]string(nil), Annotations:map[string]string(nil), OwnerReferences:[]v1.OwnerReference(nil), Finalizers:[]string(nil), ` +
			`ManagedFields:[]v1.ManagedFieldsEntry{v1.ManagedFieldsEntry{Manager:"kubeloop", Operation:"Update", APIVersion:"authorization.k8s.io/v1", Time:time.Date(`
		namedEnd = `, time.UTC), FieldsType:"FieldsV1", FieldsV1:(*v1.FieldsV1)` + pointerMask + `, Subresource:""}}}: must be empty`
	}
	if msg, reason := r.status(t); r.code != 422 || reason != "Invalid" || !strings.HasPrefix(msg, named) ||
		!strings.HasSuffix(maskPointers(msg), namedEnd) {
		t.Errorf("SubjectAccessReview with a name = %d %s %q, want 422 Invalid: metadata must be empty", r.code, reason, msg)
	}
	r = f.send(t, "GET", path, "", "")
	expectStatus(t, "GET of the reviews", r, 405, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
}
