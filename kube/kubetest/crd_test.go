// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"
	"testing"
	"testing/synctest"
)

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

const widgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"widgets","singular":"widget","kind":"Widget","shortNames":["wd"]},
 "versions":[
  {"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
   "selectableFields":[{"jsonPath":".spec.color"}],
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
  {"name":"v1beta1","served":true,"storage":false,
   "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`

const widgets = "/apis/example.com/v1/namespaces/default/widgets"

func TestCustomResourceDefinition(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		created := c.mustDo(201, "POST", crdPath, widgetCRD)
		if field(created, "metadata.finalizers") != nil ||
			field(created, "metadata.generation") != float64(1) || field(created, "spec.names.listKind") != "WidgetList" {
			t.Errorf("created CRD = %v", created)
		}
		crd := c.mustDo(200, "GET", crdPath+"/widgets.example.com", "")
		conds := map[string]any{}
		for _, cond := range field(crd, "status.conditions").([]any) {
			m := cond.(map[string]any)
			conds[m["type"].(string)] = m["status"]
		}
		if conds["Established"] != "True" || conds["NamesAccepted"] != "True" || field(crd, "status.acceptedNames.kind") != "Widget" {
			t.Errorf("CRD status = %v, want Established and NamesAccepted", crd["status"])
		}

		group := c.mustDo(200, "GET", "/apis/example.com", "")
		if field(group, "preferredVersion.version") != "v1" || len(group["versions"].([]any)) != 2 {
			t.Errorf("GET /apis/example.com = %v", group)
		}
		list := c.mustDo(200, "GET", "/apis/example.com/v1", "")
		var res []string
		for _, r := range list["resources"].([]any) {
			res = append(res, r.(map[string]any)["name"].(string))
		}
		if strings.Join(res, ",") != "widgets,widgets/status" {
			t.Errorf("resources of example.com/v1 = %v", res)
		}

		w := c.mustDo(201, "POST", widgets, `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"red"},"status":{"ok":true}}`)
		if field(w, "metadata.generation") != float64(1) || w["status"] != nil {
			t.Errorf("created widget = %v, want generation 1 and no status", w)
		}
		beta := c.mustDo(200, "GET", "/apis/example.com/v1beta1/namespaces/default/widgets/w", "")
		if beta["apiVersion"] != "example.com/v1beta1" || field(beta, "spec.color") != "red" {
			t.Errorf("widget read as v1beta1 = %v", beta)
		}
		items := c.mustDo(200, "GET", widgets, "")["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["kind"] != "Widget" {
			t.Errorf("widget list items = %v, want items with kind", items)
		}
		r := c.do("PUT", widgets+"/w", `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"color":"blue"}}`)
		want := `widgets.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`
		if st := r.json(t); r.code != 422 || st["message"] != want {
			t.Errorf("PUT of a custom resource without resourceVersion = %d %q, want 422 %q", r.code, st["message"], want)
		}
		if r := c.do("PATCH", widgets+"/w", `{}`, "Content-Type", ctSMP); r.code != 415 {
			t.Errorf("strategic merge patch of a custom resource = %d, want 415", r.code)
		}
		w = c.mustDo(200, "PATCH", widgets+"/w", `{"spec":{"color":"blue"}}`, "Content-Type", ctMerge)
		if field(w, "metadata.generation") != float64(2) {
			t.Errorf("generation after a spec change = %v, want 2", field(w, "metadata.generation"))
		}
		w = c.mustDo(200, "PATCH", widgets+"/w/status", `{"status":{"ok":true}}`, "Content-Type", ctMerge)
		if field(w, "metadata.generation") != float64(2) || field(w, "status.ok") != true {
			t.Errorf("after a status patch = %v", w)
		}
		sel := c.mustDo(200, "GET", widgets+"?fieldSelector=spec.color%3Dblue", "")
		if n := names(sel); len(n) != 1 {
			t.Errorf("selectable field spec.color=blue = %v", n)
		}

		watch := openWatch(t, c, widgets+"?watch=1&resourceVersion="+s.CurrentResourceVersion())
		del := c.mustDo(200, "DELETE", crdPath+"/widgets.example.com", "")
		if field(del, "metadata.deletionTimestamp") == nil {
			t.Errorf("DELETE CRD = %v, want it marked deleting", del)
		}
		lines, ended := watch.pending()
		if len(lines) != 1 || !strings.Contains(lines[0], `"DELETED"`) || !ended {
			t.Errorf("watch of the widgets after the CRD went: %q ended %v, want DELETED w and the end", lines, ended)
		}
		c.mustDo(404, "GET", crdPath+"/widgets.example.com", "")
		c.mustDo(404, "GET", widgets, "")
		c.mustDo(404, "GET", "/apis/example.com", "")
		apis := c.mustDo(200, "GET", "/apis", "")
		for _, g := range apis["groups"].([]any) {
			if g.(map[string]any)["name"] == "example.com" {
				t.Errorf("/apis still lists example.com")
			}
		}
	})
}

func TestCustomResourceClusterScoped(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(201, "POST", crdPath, `{"metadata":{"name":"gadgets.example.com"},"spec":{"group":"example.com","scope":"Cluster",
		"names":{"plural":"gadgets","kind":"Gadget"},"versions":[{"name":"v1","served":true,"storage":true}]}}`)
	g := c.mustDo(201, "POST", "/apis/example.com/v1/gadgets", `{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"g"}}`)
	if field(g, "metadata.namespace") != nil {
		t.Errorf("cluster-scoped object has namespace %v", field(g, "metadata.namespace"))
	}
	if r := c.do("GET", "/apis/example.com/v1/namespaces/default/gadgets/g", ""); r.code != 404 {
		t.Errorf("namespaced path to a cluster-scoped resource = %d, want 404", r.code)
	}
	r := c.do("POST", crdPath, `{"metadata":{"name":"wrong"},"spec":{"group":"example.com","scope":"Cluster",
		"names":{"plural":"things","kind":"Thing"},"versions":[{"name":"v1","served":true,"storage":true}]}}`)
	want := `CustomResourceDefinition.apiextensions.k8s.io "wrong" is invalid: metadata.name: Invalid value: "wrong": must be spec.names.plural+"."+spec.group`
	if st := r.json(t); r.code != 422 || st["message"] != want {
		t.Errorf("CRD with a wrong name = %d %q, want 422 %q", r.code, st["message"], want)
	}
}
