// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// testPodBinding binds a pod through its binding subresource (POST
// pods/NAME/binding, as a scheduler does): the Binding must carry the
// pod's name, the pod gets its node, a pod already bound conflicts, a
// missing one is a 404 and the subresource answers POST only.
func testPodBinding(t *testing.T, f *fixture) {
	p := pod(f.ns, "bound")
	f.mustCreate(t, p)
	path := "/api/v1/namespaces/" + f.ns + "/pods/bound/binding"
	binding := func(name string) string {
		return `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"` + name + `"},"target":{"kind":"Node","name":"n1"}}`
	}
	const mismatch = "name in URL does not match name in Binding object"
	expectStatus(t, "bind with another name", f.send(t, "POST", path, "application/json", binding("other")), 400, "BadRequest", mismatch)
	expectStatus(t, "bind without a name", f.send(t, "POST", path, "application/json",
		`{"apiVersion":"v1","kind":"Binding","target":{"kind":"Node","name":"n1"}}`), 400, "BadRequest", mismatch)
	expectStatus(t, "GET the binding", f.send(t, "GET", path, "", ""), 405, "MethodNotAllowed",
		"the server does not allow this method on the requested resource")
	r := f.send(t, "POST", path, "application/json", binding("bound"))
	if r.code != 201 {
		t.Fatalf("bind = %d %s, want 201", r.code, r.body)
	}
	if st := r.object(t); st["kind"] != "Status" || st["status"] != "Success" {
		t.Errorf("bind answered %v, want a Success Status", st)
	}
	if err := f.c.Get(f.ctx, p.Key(), p); err != nil {
		t.Fatal(err)
	}
	if node, _ := kube.NestedString(p.Content, "spec", "nodeName"); node != "n1" {
		t.Errorf("spec.nodeName after binding = %q, want n1", node)
	}
	expectStatus(t, "bind a bound pod", f.send(t, "POST", path, "application/json", binding("bound")), 409, "Conflict",
		`Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "n1"`)
	expectStatus(t, "bind a missing pod", f.send(t, "POST", "/api/v1/namespaces/"+f.ns+"/pods/missing/binding", "application/json",
		binding("missing")), 404, "NotFound", `pods "missing" not found`)
}
