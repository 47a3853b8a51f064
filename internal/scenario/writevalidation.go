// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"reflect"
	"testing"
)

// testWriteValidation checks writes the real server refuses or accepts by
// rules of their own kind: a Pod or a workload without containers (also
// in a dry run), a dry-run create that carries a resourceVersion, the
// path-segment names of RBAC's kinds, and the create of a name whose
// object is being deleted.
func testWriteValidation(t *testing.T, f *fixture) {
	t.Run("NoContainers", func(t *testing.T) { testNoContainers(t, f) })
	t.Run("DryRunResourceVersion", func(t *testing.T) { testDryRunResourceVersion(t, f) })
	t.Run("RBACNames", func(t *testing.T) { testRBACNames(t, f) })
	t.Run("NameBeingDeleted", func(t *testing.T) { testNameBeingDeleted(t, f) })
}

// statusCause is one cause of a Status.
type statusCause struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
	Field   string `json:"field"`
}

// expectInvalid checks a 422 answer's message and causes exactly.
func expectInvalid(t *testing.T, what string, r rawResponse, message string, causes ...statusCause) {
	t.Helper()
	expectStatus(t, what, r, 422, "Invalid", message)
	var st struct {
		Details struct {
			Causes []statusCause `json:"causes"`
		} `json:"details"`
	}
	if err := json.Unmarshal(r.body, &st); err != nil {
		t.Fatalf("%s: decode %q: %v", what, r.body, err)
	}
	if !reflect.DeepEqual(st.Details.Causes, causes) {
		t.Errorf("%s: causes %+v, want %+v", what, st.Details.Causes, causes)
	}
}

func testNoContainers(t *testing.T, f *fixture) {
	required := func(field string) statusCause {
		return statusCause{Reason: "FieldValueRequired", Message: "Required value", Field: field}
	}
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	for _, q := range []string{"", "?dryRun=All"} {
		r := f.send(t, "POST", pods+q, "application/json", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"empty"},"spec":{"containers":[]}}`)
		expectInvalid(t, "create a Pod without containers"+q, r, `Pod "empty" is invalid: spec.containers: Required value`,
			required("spec.containers"))
	}
	template := `{"metadata":{"labels":{"app":"x"}},"spec":{}}`
	r := f.send(t, "POST", "/apis/apps/v1/namespaces/"+f.ns+"/deployments?dryRun=All", "application/json",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"empty"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":`+template+`}}`)
	expectInvalid(t, "create a Deployment without containers", r,
		`Deployment.apps "empty" is invalid: spec.template.spec.containers: Required value`, required("spec.template.spec.containers"))
	r = f.send(t, "POST", "/apis/batch/v1/namespaces/"+f.ns+"/cronjobs", "application/json",
		`{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"empty"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never"}}}}}}`)
	expectInvalid(t, "create a CronJob without containers", r,
		`CronJob.batch "empty" is invalid: spec.jobTemplate.spec.template.spec.containers: Required value`,
		required("spec.jobTemplate.spec.template.spec.containers"))

	d := deployment(f.ns, "emptied", 1)
	f.mustCreate(t, d)
	r = f.send(t, "PATCH", "/apis/apps/v1/namespaces/"+f.ns+"/deployments/emptied", "application/merge-patch+json",
		`{"spec":{"template":{"spec":{"containers":null}}}}`)
	expectInvalid(t, "patch a Deployment's containers away", r,
		`Deployment.apps "emptied" is invalid: spec.template.spec.containers: Required value`, required("spec.template.spec.containers"))
}

func testDryRunResourceVersion(t *testing.T, f *fixture) {
	cms := "/api/v1/namespaces/" + f.ns + "/configmaps"
	body := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"versioned","resourceVersion":"5"}}`
	r := f.send(t, "POST", cms+"?dryRun=All", "application/json", body)
	if r.code != 201 {
		t.Fatalf("dry-run create with a resourceVersion = %d %s, want 201", r.code, r.body)
	}
	meta, _ := r.object(t)["metadata"].(map[string]any)
	if meta["resourceVersion"] != "5" || meta["uid"] == nil {
		t.Errorf("dry-run create answered metadata %v, want the resourceVersion sent (5) and a uid", meta)
	}
	if g := f.send(t, "GET", cms+"/versioned", "", ""); g.code != 404 {
		t.Errorf("GET after the dry run = %d, want 404", g.code)
	}
	r = f.send(t, "POST", cms, "application/json", body)
	expectStatus(t, "create with a resourceVersion", r, 500, "", "resourceVersion should not be set on objects to be created")
}

func testRBACNames(t *testing.T, f *fixture) {
	rbac := "/apis/rbac.authorization.k8s.io/v1"
	roles := rbac + "/namespaces/" + f.ns + "/roles"
	for _, name := range []string{"system:foo", "Foo_Bar", "a..b"} {
		r := f.send(t, "POST", roles, "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"`+name+`"}}`)
		if r.code != 201 {
			t.Errorf("create Role %q = %d %s, want 201 (a path segment name)", name, r.code, r.body)
		}
	}
	for _, c := range []struct{ path, kind, name, detail string }{
		{roles, "Role", "a/b", "may not contain '/'"},
		{roles, "Role", "..", "may not be '..'"},
		{rbac + "/namespaces/" + f.ns + "/rolebindings", "RoleBinding", "50%", "may not contain '%'"},
		{rbac + "/clusterroles?dryRun=All", "ClusterRole", "a/b", "may not contain '/'"},
	} {
		r := f.send(t, "POST", c.path, "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"`+c.kind+
			`","metadata":{"name":"`+c.name+`"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"x"}}`)
		detail := `Invalid value: "` + c.name + `": ` + c.detail
		expectInvalid(t, "create "+c.kind+" "+c.name, r, c.kind+`.rbac.authorization.k8s.io "`+c.name+`" is invalid: metadata.name: `+detail,
			statusCause{Reason: "FieldValueInvalid", Message: detail, Field: "metadata.name"})
	}
	for _, c := range []struct{ plural, kind string }{{"clusterroles", "ClusterRole"}, {"clusterrolebindings", "ClusterRoleBinding"}} {
		r := f.send(t, "POST", rbac+"/"+c.plural+"?dryRun=All", "application/json", `{"apiVersion":"rbac.authorization.k8s.io/v1","kind":"`+c.kind+
			`","metadata":{"name":"system:kubeloop:`+f.ns+`"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"x"}}`)
		if r.code != 201 {
			t.Errorf("dry-run create %s system:kubeloop:... = %d %s, want 201", c.kind, r.code, r.body)
		}
	}
}

// testNameBeingDeleted creates an object named like one a finalizer
// holds: the AlreadyExists message says it is being deleted.
func testNameBeingDeleted(t *testing.T, f *fixture) {
	cms := "/api/v1/namespaces/" + f.ns + "/configmaps"
	if r := f.send(t, "POST", cms, "application/json", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`); r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	t.Cleanup(func() {
		f.send(t, "PATCH", cms+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	})
	if r := f.send(t, "DELETE", cms+"/held", "", ""); r.code != 200 {
		t.Fatalf("delete = %d %s", r.code, r.body)
	}
	r := f.send(t, "POST", cms, "application/json", `{"metadata":{"name":"held"}}`)
	expectStatus(t, "create a ConfigMap named like one being deleted", r, 409, "AlreadyExists",
		`object is being deleted: configmaps "held" already exists`)

	// A namespace held Terminating by the same finalizer.
	ns := f.ns + "-held"
	if r := f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`); r.code != 201 {
		t.Fatalf("create namespace = %d %s", r.code, r.body)
	}
	inner := "/api/v1/namespaces/" + ns + "/configmaps"
	if r := f.send(t, "POST", inner, "application/json", `{"metadata":{"name":"held","finalizers":["example.com/hold"]}}`); r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	t.Cleanup(func() {
		f.send(t, "PATCH", inner+"/held", "application/merge-patch+json", `{"metadata":{"finalizers":null}}`)
	})
	if r := f.send(t, "DELETE", "/api/v1/namespaces/"+ns, "", ""); r.code != 200 {
		t.Fatalf("delete namespace = %d %s", r.code, r.body)
	}
	r = f.send(t, "POST", "/api/v1/namespaces", "application/json", `{"metadata":{"name":"`+ns+`"}}`)
	expectStatus(t, "create a namespace named like a terminating one", r, 409, "AlreadyExists",
		`object is being deleted: namespaces "`+ns+`" already exists`)
}
