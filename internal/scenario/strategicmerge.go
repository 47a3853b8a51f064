// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// The scenarios of this file check strategic merge patches
// (application/strategic-merge-patch+json) as kubectl apply, edit and
// patch send them: lists merged by their merge keys in the real server's
// order, the directives ($patch, $setElementOrder, $retainKeys,
// $deleteFromPrimitiveList) carried out and never stored, and the
// answers to malformed ones. Objects set every field the real server
// would default where a patch reaches, and checks look at the patched
// parts only, exactly.

// smpDeployment is a Deployment with two containers (c1 with env and a
// port, c2), two volumes and an explicit strategy.
const smpDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{
"selector":{"matchLabels":{"app":"web"}},
"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}},
"template":{"metadata":{"labels":{"app":"web"}},"spec":{
"containers":[
 {"name":"c1","image":"nginx","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80,"protocol":"TCP"}]},
 {"name":"c2","image":"busybox"}],
"volumes":[{"name":"v1","emptyDir":{}},{"name":"v2","emptyDir":{}}]}}}}`

func testStrategicMerge(t *testing.T, f *fixture) {
	deploys := "/apis/apps/v1/namespaces/" + f.ns + "/deployments"
	if r := f.send(t, "POST", deploys, ctJSON, smpDeployment); r.code != 201 {
		t.Fatalf("create Deployment = %d %s", r.code, r.body)
	}
	web := deploys + "/web"
	spec := func(o map[string]any) map[string]any { return dig(o, "spec", "template", "spec").(map[string]any) }

	// The second kubectl apply of a changed image: the container merges by
	// name, keeping its env and ports; the directive is not stored.
	o := f.smp(t, web, `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"kind\":\"Deployment\"}\n"}},
"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c1"},{"name":"c2"}],"containers":[{"image":"nginx:2","name":"c1"}]}}}}`)
	c1 := spec(o)["containers"].([]any)[0].(map[string]any)
	if c1["image"] != "nginx:2" || !sameJSON(c1["env"], `[{"name":"A","value":"1"},{"name":"B","value":"2"}]`) ||
		!sameJSON(c1["ports"], `[{"containerPort":80,"protocol":"TCP"}]`) {
		t.Errorf("container c1 after kubectl apply's patch = %v, want image nginx:2 with env A, B and port 80", c1)
	}
	expectNames(t, "containers after kubectl apply's patch", spec(o)["containers"], "c1", "c2")

	// Through the client, as a controller patches.
	d := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "web"}}
	err := f.c.Patch(f.ctx, d, kube.Patch{Type: kube.StrategicMergePatch,
		Data: []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"c1","env":[{"name":"C","value":"3"},{"name":"A","value":"9"}]}]}}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	env, _ := d.Field("spec", "template", "spec", "containers")
	if e := env.([]any)[0].(map[string]any)["env"]; !sameJSON(e, `[{"name":"C","value":"3"},{"name":"A","value":"9"},{"name":"B","value":"2"}]`) {
		t.Errorf("env merged by name = %v, want C, A (changed), B in the real server's order", e)
	}

	// Order: a new container without $setElementOrder comes first; with
	// one, where it says.
	o = f.smp(t, web, `{"spec":{"template":{"spec":{"containers":[{"name":"c3","image":"x"}]}}}}`)
	expectNames(t, "a new container", spec(o)["containers"], "c3", "c1", "c2")
	o = f.smp(t, web, `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c1"},{"name":"c4"},{"name":"c2"},{"name":"c3"}],"containers":[{"name":"c4","image":"y"}]}}}}`)
	expectNames(t, "$setElementOrder with a new container", spec(o)["containers"], "c1", "c4", "c2", "c3")
	// kubectl apply removing a container, and deleting a port.
	o = f.smp(t, web, `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c1"},{"name":"c2"}],
"containers":[{"$patch":"delete","name":"c3"},{"$patch":"delete","name":"c4"},{"name":"c1","ports":[{"containerPort":80,"$patch":"delete"}]}]}}}}`)
	expectNames(t, "containers removed", spec(o)["containers"], "c1", "c2")
	if p, ok := spec(o)["containers"].([]any)[0].(map[string]any)["ports"]; ok {
		t.Errorf("ports after deleting the last one = %v, want none", p)
	}

	// $retainKeys: the strategy and a volume switch their kind.
	o = f.smp(t, web, `{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"},
"template":{"spec":{"volumes":[{"name":"v1","$retainKeys":["name","configMap"],"configMap":{"name":"cfg","defaultMode":420}}]}}}}`)
	if s := dig(o, "spec", "strategy"); !sameJSON(s, `{"type":"Recreate"}`) {
		t.Errorf("strategy after $retainKeys = %v, want Recreate alone", s)
	}
	if v := spec(o)["volumes"]; !sameJSON(v, `[{"name":"v1","configMap":{"name":"cfg","defaultMode":420}},{"name":"v2","emptyDir":{}}]`) {
		t.Errorf("volumes after $retainKeys = %v", v)
	}

	// A directive left in an added item is an unknown field, as there.
	r := f.send(t, "PATCH", web, ctSMP, `{"spec":{"template":{"spec":{"initContainers":[{"name":"i","image":"x"}],"containers":[{"name":"c5","image":"x","env":[{"name":"E","$patch":"delete"}]}]}}}}`)
	expectWarnings(t, "a directive in an added item", r, `unknown field "spec.template.spec.containers[0].env[0].$patch"`)
	if r.code != 200 || !sameJSON(spec(r.object(t))["containers"].([]any)[0].(map[string]any)["env"], `[{"name":"E"}]`) {
		t.Errorf("added container = %d %s, want env [{name: E}]", r.code, r.body)
	}
	f.checkNoDirectives(t, web)

	f.strategicMergeMaps(t)
	f.strategicMergeErrors(t, web)
}

// strategicMergeMaps: sets of scalars (finalizers), $patch on maps, nulls.
func (f *fixture) strategicMergeMaps(t *testing.T) {
	cms := f.configMapsPath()
	if r := f.send(t, "POST", cms, ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"smp","labels":{"a":"1","b":"2"},
"finalizers":["example.com/a","example.com/b","example.com/c"]},"data":{"a":"1","b":"2"}}`); r.code != 201 {
		t.Fatalf("create ConfigMap = %d %s", r.code, r.body)
	}
	cm := cms + "/smp"
	defer f.send(t, "PATCH", cm, ctMerge, `{"metadata":{"finalizers":null}}`)
	finalizers := func(o map[string]any) any { return dig(o, "metadata", "finalizers") }

	o := f.smp(t, cm, `{"metadata":{"finalizers":["example.com/d","example.com/b"]}}`)
	if fz := finalizers(o); !sameJSON(fz, `["example.com/d","example.com/a","example.com/b","example.com/c"]`) {
		t.Errorf("finalizers merged as a set = %v", fz)
	}
	o = f.smp(t, cm, `{"metadata":{"$deleteFromPrimitiveList/finalizers":["example.com/a"],"$setElementOrder/finalizers":["example.com/c","example.com/b","example.com/d"]}}`)
	if fz := finalizers(o); !sameJSON(fz, `["example.com/c","example.com/b","example.com/d"]`) {
		t.Errorf("finalizers after $deleteFromPrimitiveList and $setElementOrder = %v", fz)
	}
	o = f.smp(t, cm, `{"metadata":{"labels":{"$patch":"replace","x":"y"}},"data":{"a":null,"c":"3"}}`)
	if l, d := dig(o, "metadata", "labels"), o["data"]; !sameJSON(l, `{"x":"y"}`) || !sameJSON(d, `{"b":"2","c":"3"}`) {
		t.Errorf("labels after $patch replace = %v, data after a null = %v", l, d)
	}
	o = f.smp(t, cm, `{"data":{"$patch":"delete"}}`)
	if d, ok := o["data"]; ok {
		t.Errorf("data after $patch delete = %v, want none", d)
	}
	f.checkNoDirectives(t, cm)
}

// strategicMergeErrors: malformed directives get the real server's codes
// and words; a custom resource refuses strategic merge patches.
func (f *fixture) strategicMergeErrors(t *testing.T, web string) {
	for _, tc := range []struct {
		what, body      string
		code            int
		reason, message string
	}{
		{"an item without its merge key", `{"spec":{"template":{"spec":{"containers":[{"image":"z"}]}}}}`,
			500, "", "map: map[image:z] does not contain declared merge key: name"},
		{"an unknown $patch", `{"spec":{"template":{"spec":{"containers":[{"name":"c1","$patch":"zap"}]}}}}`,
			500, "", "unknown patch type: zap in map: map[$patch:zap name:c1]"},
		{"$patch merge in a list", `{"spec":{"template":{"spec":{"containers":[{"name":"c1","$patch":"merge"}]}}}}`,
			500, "", "merging lists cannot yet be specified in the patch"},
		{"$patch merge of a map", `{"spec":{"selector":{"$patch":"merge"}}}`,
			500, "", "unknown patch type: merge in map: map[$patch:merge]"},
		{"a $setElementOrder that contradicts its list", `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c2"}],"containers":[{"name":"c1","image":"n"}]}}}}`,
			500, "", "The order in patch list:\n[map[image:n name:c1]]\n doesn't match $setElementOrder list:\n[map[name:c2]]\n"},
		{"a $setElementOrder of a field that is none", `{"spec":{"template":{"spec":{"$setElementOrder/foos":[{"name":"a"}]}}}}`,
			500, "", `unable to find api field in struct PodSpec for the json field "foos"`},
		{"a malformed $setElementOrder key", `{"spec":{"template":{"spec":{"$setElementOrderX/containers":[]}}}}`,
			400, "BadRequest", "invalid patch format of setElementOrder list"},
		{"$retainKeys without a patched key", `{"spec":{"strategy":{"$retainKeys":["rollingUpdate"],"type":"Recreate"}}}`,
			400, "BadRequest", "invalid patch format of retainKeys"},
		{"a malformed $deleteFromPrimitiveList key", `{"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}}`,
			400, "BadRequest", "invalid patch format of primitive list"},
		{"$patch replace of the whole object", `{"$patch":"replace"}`,
			400, "BadRequest", "the name of the object (web based on URL) was undeterminable: name must be provided"},
		{"a body that is not an object", `[1]`,
			400, "BadRequest", "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{"Strict, with an unknown field", `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c5"},{"name":"c1"},{"name":"c2"}],"containers":[{"name":"c1","bogus":1}]}}}}`,
			422, "Invalid", ` "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[]]]]": strict decoding error: unknown field "spec.template.spec.containers[1].bogus"`},
	} {
		path := web
		if tc.code == 422 {
			path += "?fieldValidation=Strict"
		}
		expectStatus(t, tc.what, f.send(t, "PATCH", path, ctSMP, tc.body), tc.code, tc.reason, tc.message)
	}
	// null is an empty patch.
	if r := f.send(t, "PATCH", web, ctSMP, `null`); r.code != 200 {
		t.Errorf("null strategic merge patch = %d %s, want 200", r.code, r.body)
	}
	f.checkNoDirectives(t, web)

	gvk := f.installWidgets(t)
	widgets := "/apis/" + gvk.Group + "/" + gvk.Version + "/namespaces/" + f.ns + "/widgets" + strings.TrimPrefix(gvk.Kind, "Widget")
	if r := f.send(t, "POST", widgets, ctJSON, `{"apiVersion":"`+gvk.Group+`/v1","kind":"`+gvk.Kind+`","metadata":{"name":"w"},"spec":{"size":1}}`); r.code != 201 {
		t.Fatalf("create widget = %d %s", r.code, r.body)
	}
	expectStatus(t, "strategic merge patch of a custom resource", f.send(t, "PATCH", widgets+"/w", ctSMP, `{"spec":{"size":2}}`),
		415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml")
}

// smp sends a strategic merge patch that must succeed and returns the
// object it answers.
func (f *fixture) smp(t *testing.T, path, body string) map[string]any {
	t.Helper()
	r := f.send(t, "PATCH", path, ctSMP, body)
	if r.code != 200 {
		t.Fatalf("strategic merge patch %s = %d %s", body, r.code, r.body)
	}
	return r.object(t)
}

// checkNoDirectives checks that the stored object has no directive key.
func (f *fixture) checkNoDirectives(t *testing.T, path string) {
	t.Helper()
	r := f.send(t, "GET", path, "", "")
	if r.code != 200 || strings.Contains(string(r.body), `"$`) {
		t.Errorf("GET %s = %d %s, want no directive stored", path, r.code, r.body)
	}
}

// dig returns the value at a path of object fields; nil when absent.
func dig(o map[string]any, path ...string) any {
	var cur any = o
	for _, p := range path {
		m, _ := cur.(map[string]any)
		cur = m[p]
	}
	return cur
}

// sameJSON says v (decoded) is the JSON text want.
func sameJSON(v any, want string) bool {
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		panic("scenario: bad JSON in a test: " + want)
	}
	return reflect.DeepEqual(v, w)
}

// expectNames checks the names of a list's objects.
func expectNames(t *testing.T, what string, list any, want ...string) {
	t.Helper()
	items, _ := list.([]any)
	got := make([]string, len(items))
	for i, v := range items {
		m, _ := v.(map[string]any)
		got[i], _ = m["name"].(string)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: %v, want %v", what, got, want)
	}
}
