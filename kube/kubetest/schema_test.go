// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// TestSchemaShapes checks the lookup merges and server-side apply build
// on: list types, map keys, patch strategies and struct or map, from the
// captured schemas and from a CRD's.
func TestSchemaShapes(t *testing.T) {
	reg := newRegistry()
	deploy := reg.Lookup("apps", "v1", "deployments").Schema
	cm := reg.Lookup("", "v1", "configmaps").Schema
	pod := reg.Lookup("", "v1", "pods").Schema
	crd := schema.CompileCRD(jsonRoundTrip(t, captureSchema))
	for _, tc := range []struct {
		what string
		s    *schema.Schema
		want schema.FieldShape
	}{
		{"deployment containers", deploy.Lookup("spec", "template", "spec", "containers"),
			schema.FieldShape{Known: true, Type: "array", ListType: "map", MapKeys: []string{"name"}, PatchStrategy: "merge", MergeKey: "name"}},
		{"pod container ports", pod.Lookup("spec", "containers", "ports"),
			schema.FieldShape{Known: true, Type: "array", ListType: "map", MapKeys: []string{"containerPort", "protocol"},
				PatchStrategy: "merge", MergeKey: "containerPort"}},
		{"pod container args", pod.Lookup("spec", "containers", "args"),
			schema.FieldShape{Known: true, Type: "array", ListType: "atomic"}},
		{"configmap data", cm.Field("data"), schema.FieldShape{Known: true, Type: "object", Map: true, MapType: "granular"}},
		{"configmap metadata", cm.Field("metadata"), schema.FieldShape{Known: true, Type: "object", Struct: true, MapType: "granular"}},
		{"finalizers", cm.Lookup("metadata", "finalizers"),
			schema.FieldShape{Known: true, Type: "array", ListType: "set", PatchStrategy: "merge"}},
		{"owner references", cm.Lookup("metadata", "ownerReferences"),
			schema.FieldShape{Known: true, Type: "array", ListType: "map", MapKeys: []string{"uid"}, PatchStrategy: "merge", MergeKey: "uid"}},
		{"custom resource conditions", crd.Lookup("status", "conditions"),
			schema.FieldShape{Known: true, Type: "array", ListType: "map", MapKeys: []string{"type"}}},
		{"custom resource set", crd.Lookup("spec", "tags"), schema.FieldShape{Known: true, Type: "array", ListType: "set"}},
		{"custom resource metadata is ObjectMeta", crd.Lookup("metadata", "ownerReferences"),
			schema.FieldShape{Known: true, Type: "array", ListType: "map", MapKeys: []string{"uid"}, PatchStrategy: "merge", MergeKey: "uid"}},
		{"custom resource int-or-string", crd.Lookup("spec", "port"), schema.FieldShape{Known: true, IntOrString: true}},
		{"preserved unknown fields", crd.Lookup("spec", "extra"),
			schema.FieldShape{Known: true, Type: "object", MapType: "granular", PreserveUnknown: true}},
		{"inside preserved unknown fields", crd.Lookup("spec", "extra", "anything"), schema.FieldShape{}},
		{"unknown field", cm.Lookup("nope", "deeper"), schema.FieldShape{}},
	} {
		if got := tc.s.Shape(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Shape() = %+v, want %+v", tc.what, got, tc.want)
		}
	}
	if item := deploy.Lookup("spec", "template", "spec", "containers").Items(); !item.Shape().Struct || item.Field("image").Shape().Type != "string" {
		t.Errorf("container items = %+v, want a struct with a string image", item.Shape())
	}
}

// TestBuiltinSchemasCaptured checks that every built-in kind has its
// captured schema.
func TestBuiltinSchemasCaptured(t *testing.T) {
	for _, r := range builtins() {
		if schema.Builtin(r.Group, r.Version, r.Kind) == nil {
			t.Errorf("no captured schema for %s/%s %s", r.Group, r.Version, r.Kind)
		}
	}
}

// TestDeploymentStrategyIsTyped: a Deployment's strategy (published as an
// allOf wrapper with a patch strategy beside it) has its type's schema:
// unknown fields in it are dropped with a warning, and a string is a type
// error, as in kube-apiserver.
func TestDeploymentStrategyIsTyped(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const deployPath = "/apis/apps/v1/namespaces/default/deployments"
	must(t, c, 201, "POST", deployPath, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
"spec":{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"a"}]}}}}`)
	r := c.do("PATCH", deployPath+"/d", `{"spec":{"strategy":{"bogus":1,"type":"Recreate","rollingUpdate":null}}}`, "Content-Type", ctMerge)
	if w := r.header.Values("Warning"); r.code != 200 || len(w) != 1 || !strings.Contains(w[0], `unknown field \"spec.strategy.bogus\"`) ||
		!reflect.DeepEqual(field(r.json(t), "spec.strategy"), obj{"type": "Recreate"}) {
		t.Errorf("unknown field in strategy = %d %s, warnings %q", r.code, r.body, w)
	}
	r = c.do("PATCH", deployPath+"/d", `{"spec":{"strategy":"x"}}`, "Content-Type", ctMerge)
	if r.code != 422 || !strings.Contains(string(r.body), "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.strategy of type v1.DeploymentStrategy") {
		t.Errorf("a string for strategy = %d %s, want 422 cannot unmarshal", r.code, r.body)
	}
	if sh := schema.Builtin("apps", "v1", "Deployment").Lookup("spec", "strategy").Shape(); !sh.Struct || sh.PatchStrategy != "retainKeys" {
		t.Errorf("spec.strategy shape = %+v, want a struct with patch strategy retainKeys", sh)
	}
}
