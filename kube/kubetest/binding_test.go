// SPDX-License-Identifier: Apache-2.0

package kubetest

import "testing"

// TestBinding binds a pod as kube-apiserver 1.36.3 binds it (answers
// captured from the real server with the same requests): the node name,
// the Binding's annotations and the PodScheduled condition in one write
// that leaves managedFields and generation alone; then the 409 of a pod
// already bound, the 404 of a missing one and the 500s of a bad target.
func TestBinding(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const pods, col = "/api/v1/namespaces/default/pods", "/api/v1/namespaces/default/bindings"
	created := c.mustDo(201, "POST", pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)
	w := openWatch(t, c, pods+"?watch=1&resourceVersion="+field(created, "metadata.resourceVersion").(string))
	got := c.mustDo(201, "POST", col, `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p","annotations":{"x":"y"}},"target":{"kind":"Node","name":"n1"}}`)
	if got["kind"] != "Status" || got["status"] != "Success" || got["code"] != float64(201) {
		t.Errorf("POST binding = %v, want a 201 Success Status", got)
	}
	ev := w.next()
	pod := ev["object"].(map[string]any)
	if ev["type"] != "MODIFIED" || field(pod, "spec.nodeName") != "n1" || field(pod, "metadata.annotations.x") != "y" {
		t.Errorf("after binding: %v nodeName %v annotations %v, want MODIFIED n1 x=y", ev["type"], field(pod, "spec.nodeName"), field(pod, "metadata.annotations"))
	}
	conds, _ := field(pod, "status.conditions").([]any)
	if len(conds) != 1 || field(conds[0].(map[string]any), "type") != "PodScheduled" || field(conds[0].(map[string]any), "status") != "True" {
		t.Errorf("conditions = %v, want PodScheduled True", conds)
	}
	if g := field(pod, "metadata.generation"); g != float64(1) {
		t.Errorf("generation = %v, want 1", g)
	}
	if got, want := string(mustJSON(field(pod, "metadata.managedFields"))), string(mustJSON(field(created, "metadata.managedFields"))); got != want {
		t.Errorf("managedFields = %s, want unchanged %s", got, want)
	}
	for _, tc := range []struct {
		body string
		code int
		msg  string
	}{
		{`{"metadata":{"name":"p"},"target":{"kind":"Node","name":"n2"}}`, 409, `Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "n1"`},
		{`{"metadata":{"name":"nope"},"target":{"kind":"Node","name":"n2"}}`, 404, `pods "nope" not found`},
		{`{"metadata":{"name":"p"},"target":{"kind":"Pod","name":"n2"}}`, 500, `target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`},
		{`{"metadata":{"name":"p"},"target":{}}`, 500, `target.name: Required value`},
	} {
		r := c.do("POST", col, `{"apiVersion":"v1","kind":"Binding",`+tc.body[1:])
		if m := r.json(t)["message"]; r.code != tc.code || m != tc.msg {
			t.Errorf("POST binding %s = %d %v, want %d %s", tc.body, r.code, m, tc.code, tc.msg)
		}
	}
}

// TestPodBindingSubresource binds through pods/NAME/binding, where
// client-go's Pods().Bind posts (it answered 404), with the real server's
// 400 for a Binding of another name and 405 for a GET.
func TestPodBindingSubresource(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const pods = "/api/v1/namespaces/default/pods"
	c.mustDo(201, "POST", pods, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox"}]}}`)
	r := c.do("POST", pods+"/p/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"other"},"target":{"kind":"Node","name":"n1"}}`)
	if m := r.json(t)["message"]; r.code != 400 || m != "name in URL does not match name in Binding object" {
		t.Errorf("a Binding of another name = %d %v", r.code, m)
	}
	if r := c.do("GET", pods+"/p/binding", ""); r.code != 405 {
		t.Errorf("GET pods/p/binding = %d, want 405", r.code)
	}
	c.mustDo(201, "POST", pods+"/p/binding", `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n1"}}`)
	if got := c.mustDo(200, "GET", pods+"/p", ""); field(got, "spec.nodeName") != "n1" {
		t.Errorf("nodeName after the binding = %v", field(got, "spec.nodeName"))
	}
}
