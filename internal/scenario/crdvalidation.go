// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// The scenarios of this file check custom resources against their CRD's
// structural schema as kube-apiserver 1.36 does: validation (422 with the
// real field paths and words), defaulting, pruning of unknown fields,
// fieldValidation, the status subresource, ratcheting, and the refusal of
// schemas that are not structural.

// gadgetSchema uses most of what structural schemas can say.
const gadgetSchema = `{"type":"object","properties":{
"spec":{"type":"object","required":["size"],"properties":{
"size":{"type":"integer","format":"int32","minimum":0,"maximum":10,"default":1},
"replicas":{"type":"integer","default":3},
"name":{"type":"string","maxLength":5,"minLength":2,"pattern":"^[a-z]+$","nullable":true},
"mode":{"type":"string","enum":["fast","slow"]},
"port":{"x-kubernetes-int-or-string":true},
"ratio":{"type":"number","exclusiveMinimum":true,"minimum":0,"exclusiveMaximum":true,"maximum":1,"multipleOf":0.25},
"tags":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set","maxItems":3,"minItems":1},
"labels":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":2},
"extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
"template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
"when":{"type":"string","format":"date-time"},
"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
 "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"value":{"type":"string","default":"v"}}}},
"choice":{"type":"string","anyOf":[{"maxLength":3},{"pattern":"^x"}]},
"flag":{"type":"boolean"},
"need":{"type":"object","required":["x"],"properties":{"x":{"type":"string"}}},
"obj":{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"object","default":{},"properties":{"c":{"type":"integer","default":7}}}}}
}},
"status":{"type":"object","properties":{"phase":{"type":"string","enum":["A","B"]},"count":{"type":"integer","minimum":0}}}}}`

// schemaCRD is a fresh CRD of a scenario: a schema of its own and a
// status subresource, under names no earlier run used.
type schemaCRD struct {
	kind, plural, crd   string
	collection          string // the namespaced collection path
	gvk                 kube.GroupVersionKind
	crdPath, apiVersion string
}

// installSchemaCRD creates a CRD with schema (its openAPIV3Schema) under
// fresh names and waits until it is served.
func (f *fixture) installSchemaCRD(t *testing.T, kind, plural, schema string) schemaCRD {
	t.Helper()
	suffix := randomSuffix()
	c := schemaCRD{kind: kind + suffix, plural: plural + suffix, apiVersion: widgetGroup + "/v1"}
	c.crd = c.plural + "." + widgetGroup
	c.crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + c.crd
	c.collection = "/apis/" + widgetGroup + "/v1/namespaces/" + f.ns + "/" + c.plural
	c.gvk = kube.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: c.kind}
	body := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":%q},
"spec":{"group":%q,"scope":"Namespaced","names":{"plural":%q,"kind":%q},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":%s}}]}}`,
		c.crd, widgetGroup, c.plural, c.kind, schema)
	if r := f.send(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", ctJSON, body); r.code != 201 {
		t.Fatalf("create CRD %s = %d %s", c.crd, r.code, r.body)
	}
	t.Cleanup(func() {
		crd := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
			ObjectMeta: kube.ObjectMeta{Name: c.crd}}
		_ = f.c.Delete(f.ctx, crd)
	})
	f.eventually(t, "CRD served", func() error {
		if r := f.send(t, "GET", c.collection, "", ""); r.code != 200 {
			return fmt.Errorf("list = %d", r.code)
		}
		return nil
	})
	return c
}

// gadgets is a fresh Gadget CRD of a scenario.
type gadgets struct {
	schemaCRD
	f *fixture
}

// installGadgets creates a CRD with gadgetSchema (and a status
// subresource) under fresh names and waits until it is served.
func (f *fixture) installGadgets(t *testing.T) *gadgets {
	t.Helper()
	return &gadgets{schemaCRD: f.installSchemaCRD(t, "Gadget", "gadgets", gadgetSchema), f: f}
}

// object is a Gadget named name with the given spec (JSON).
func (g *gadgets) object(name, spec string) string {
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q},"spec":%s}`, g.apiVersion, g.kind, name, spec)
}

// invalid is the real server's message for a Gadget refused with errs.
func (g *gadgets) invalid(name string, errs ...string) string {
	agg := strings.Join(errs, ", ")
	if len(errs) > 1 {
		agg = "[" + agg + "]"
	}
	return fmt.Sprintf("%s.%s %q is invalid: %s", g.kind, widgetGroup, name, agg)
}

func testCustomResourceValidation(t *testing.T, f *fixture) {
	g := f.installGadgets(t)
	w := crdWording{f.minor(t)}
	for _, tc := range []struct {
		spec string
		errs []string
	}{
		{`{"size":-1}`, []string{"spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0"}},
		{`{"size":"x"}`, []string{`spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"`}},
		{`{"size":1.5}`, w.notInt32("spec.size")},
		{`{"mode":"medium"}`, []string{`spec.mode: Unsupported value: "medium": supported values: "fast", "slow"`}},
		{`{"name":"toolongname"}`, []string{"spec.name: Too long: may not be more than 5 bytes"}},
		{`{"name":"a"}`, []string{`spec.name: Invalid value: "a": spec.name in body should be at least 2 chars long`}},
		{`{"name":"AB"}`, []string{`spec.name: Invalid value: "AB": spec.name in body should match '^[a-z]+$'`}},
		{`{"tags":["a","b","c","d"]}`, []string{"spec.tags: Too many: 4: must have at most 3 items"}},
		{`{"tags":[]}`, []string{"spec.tags: Invalid value: 0: spec.tags in body should have at least 1 items"}},
		{`{"tags":["a","a"]}`, []string{`spec.tags[1]: Duplicate value: "a"`}},
		{`{"tags":[null]}`, []string{`spec.tags[0]: Invalid value: "null": spec.tags[0] in body must be of type string: "null"`}},
		{`{"items":[{"name":"x"},{"name":"x"}]}`, []string{w.duplicate("spec.items[1]", `map[string]interface {}{"name":"x"}`, `{"name":"x"}`)}},
		{`{"choice":"abcd"}`, []string{`<nil>: Invalid value: "": "spec.choice" must validate at least one schema (anyOf)`,
			"spec.choice: Too long: may not be more than 3 bytes"}},
		{`{"when":"yesterday"}`, []string{`spec.when: Invalid value: "yesterday": spec.when in body must be of type date-time: "yesterday"`}},
		{`{"port":true}`, []string{`spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"`}},
		{`{"template":{"metadata":{"name":"x"}}}`, []string{w.embeddedRequired("spec.template.apiVersion"), w.embeddedRequired("spec.template.kind")}},
		{`{"template":{"apiVersion":"v1","kind":"Bad_Kind","metadata":{"name":"ok"}}}`, []string{
			`spec.template.kind: Invalid value: "Bad_Kind": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')`}},
		{`{"template":{"apiVersion":"v1","kind":"K","metadata":{"name":"a/b"}}}`, []string{
			`spec.template.metadata.name: Invalid value: "a/b": may not contain '/'`}},
		{`{"ratio":1}`, []string{"spec.ratio: Invalid value: 0: factor MultipleOf declared for spec.ratio must be positive: 0",
			"spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1"}},
		{`{"ratio":0.3}`, []string{"spec.ratio: Invalid value: 0.3: spec.ratio in body should be a multiple of 0.25"}},
		{`{"labels":{"a":"1","b":"2","c":"3"}}`, []string{"spec.labels: Too many: 3: must have at most 2 items"}},
		{`{"flag":"yes"}`, []string{`spec.flag: Invalid value: "string": spec.flag in body must be of type boolean: "string"`}},
		{`{"need":{}}`, []string{"spec.need.x: Required value"}},
	} {
		r := f.send(t, "POST", g.collection, ctJSON, g.object("bad", tc.spec))
		expectStatus(t, "Gadget "+tc.spec, r, 422, "Invalid", g.invalid("bad", tc.errs...))
	}
	// Several properties in error: the real server's order is Go's map
	// order, so compare the causes as a set.
	r := f.send(t, "POST", g.collection, ctJSON, g.object("bad", `{"size":11,"mode":"x","name":"TOOLONGNAME"}`))
	var st struct {
		Details struct {
			Causes []struct{ Field, Message string }
		}
	}
	_ = json.Unmarshal(r.body, &st)
	var got []string
	for _, c := range st.Details.Causes {
		got = append(got, c.Field+": "+c.Message)
	}
	want := []string{`spec.mode: Unsupported value: "x": supported values: "fast", "slow"`,
		"spec.name: Too long: may not be more than 5 bytes",
		"spec.size: Invalid value: 11: spec.size in body should be less than or equal to 10"}
	if r.code != 422 || !sameSet(got, want) {
		t.Errorf("Gadget with three errors = %d causes %q, want 422 %q", r.code, got, want)
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		if seen[x] == 0 {
			return false
		}
		seen[x]--
	}
	return true
}

func testCustomResourceDefaultsAndPruning(t *testing.T, f *fixture) {
	g := f.installGadgets(t)
	r := f.send(t, "POST", g.collection, ctJSON, g.object("d",
		`{"obj":{"a":"x"},"items":[{"name":"i"}],"name":null,"mode":null,"extra":{"z":{"q":1},"n":null}}`))
	if r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	wantSpec := map[string]any{"size": float64(1), "replicas": float64(3), "name": nil,
		"obj":   map[string]any{"a": "x", "b": map[string]any{"c": float64(7)}},
		"items": []any{map[string]any{"name": "i", "value": "v"}}, "extra": map[string]any{"z": map[string]any{"q": float64(1)}, "n": nil}}
	if spec := r.object(t)["spec"]; !reflect.DeepEqual(spec, wantSpec) {
		t.Errorf("created spec = %v, want defaults set and the null without a default dropped: %v", spec, wantSpec)
	}

	r = f.send(t, "POST", g.collection, ctJSON, fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"u","junkmeta":1},
"spec":{"size":1,"foo":1,"obj":{"zz":1},"items":[{"name":"a","bad":1}],"extra":{"ok":1},
"template":{"apiVersion":"v1","kind":"X","metadata":{"name":"t","junk":1},"anything":1}},"toplevel":1}`, g.apiVersion, g.kind))
	if r.code != 201 {
		t.Fatalf("create with unknown fields = %d %s", r.code, r.body)
	}
	expectWarnings(t, "Gadget with unknown fields", r, `unknown field "metadata.junkmeta"`, `unknown field "spec.foo"`,
		`unknown field "spec.items[0].bad"`, `unknown field "spec.obj.zz"`, `unknown field "toplevel"`,
		`unknown field "spec.template.metadata.junk"`)
	o := r.object(t)
	spec, _ := o["spec"].(map[string]any)
	if o["toplevel"] != nil || spec["foo"] != nil || spec["extra"].(map[string]any)["ok"] == nil ||
		spec["template"].(map[string]any)["anything"] == nil {
		t.Errorf("stored Gadget = %v, want unknown fields pruned and x-kubernetes-preserve-unknown-fields kept", o)
	}

	r = f.send(t, "POST", g.collection+"?fieldValidation=Strict", ctJSON, fmt.Sprintf(
		`{"apiVersion":%q,"kind":%q,"metadata":{"name":"s","junkmeta":1},"spec":{"size":1,"foo":1},"toplevel":1}`, g.apiVersion, g.kind))
	expectStatus(t, "Gadget with unknown fields, Strict", r, 400, "BadRequest", fmt.Sprintf(
		`%s in version "v1" cannot be handled as a %s: strict decoding error: unknown field "metadata.junkmeta", unknown field "spec.foo", unknown field "toplevel"`,
		g.kind, g.kind))
	r = f.send(t, "POST", g.collection+"?fieldValidation=Strict", ctJSON, g.object("s", `{"size":1,"foo":1,"size":2}`))
	expectStatus(t, "Gadget with a duplicate field, Strict", r, 400, "BadRequest", fmt.Sprintf(
		`%s in version "v1" cannot be handled as a %s: strict decoding error: duplicate field "spec.size", unknown field "spec.foo"`, g.kind, g.kind))

	// Patches are pruned and defaulted like creates.
	r = f.send(t, "PATCH", g.collection+"/d", ctMerge, `{"spec":{"size":null,"foo":1}}`)
	expectWarnings(t, "merge patch with an unknown field", r, `unknown field "spec.foo"`)
	if spec, _ := r.object(t)["spec"].(map[string]any); spec["size"] != float64(1) || spec["foo"] != nil {
		t.Errorf("patched spec = %v, want size defaulted again and foo pruned", spec)
	}
	r = f.send(t, "PATCH", g.collection+"/d?fieldValidation=Strict", ctMerge, `{"spec":{"foo":1}}`)
	msg, _ := r.status(t)
	if r.code != 422 || !strings.HasPrefix(msg, ` "" is invalid: patch: Invalid value: "{\"apiVersion\":`) ||
		!strings.HasSuffix(msg, `": strict decoding error: unknown field "spec.foo"`) {
		t.Errorf("merge patch with an unknown field, Strict = %d %q, want 422 on patch", r.code, msg)
	}

	// The status subresource validates the status only.
	r = f.send(t, "PATCH", g.collection+"/d/status", ctMerge, `{"status":{"phase":"Z"}}`)
	expectStatus(t, "status with a phase out of its enum", r, 422, "Invalid",
		g.invalid("d", `status.phase: Unsupported value: "Z": supported values: "A", "B"`))
	// Its messages name paths from the status, its fields from the object.
	r = f.send(t, "PATCH", g.collection+"/d/status", ctMerge, `{"status":{"count":-1}}`)
	expectStatus(t, "status with a negative count", r, 422, "Invalid",
		g.invalid("d", "status.count: Invalid value: -1: count in body should be greater than or equal to 0"))
	r = f.send(t, "PATCH", g.collection+"/d/status", ctMerge, `{"status":{"phase":"A","junk":1},"spec":{"size":-1}}`)
	expectWarnings(t, "status patch with an unknown field", r, `unknown field "status.junk"`)
	if r.code != 200 {
		t.Errorf("status patch that also sets an invalid spec = %d %s, want 200 (the spec is not written)", r.code, r.body)
	}

	// An apply configuration must fit the schema.
	r = f.send(t, "PATCH", g.collection+"/a?fieldManager=scenario", ctApply, g.object("a", `{"size":1,"foo":2}`))
	expectStatus(t, "apply with an unknown field", r, 500, "", fmt.Sprintf(
		"failed to create typed patch object (/a; %s/v1, Kind=%s): .spec.foo: field not declared in schema", widgetGroup, g.kind))
	r = f.send(t, "PATCH", g.collection+"/a?fieldManager=scenario", ctApply, g.object("a", `{"size":-1}`))
	expectStatus(t, "apply of an invalid object", r, 422, "Invalid",
		g.invalid("a", "spec.size: Invalid value: -1: spec.size in body should be greater than or equal to 0"))
}

func testCustomResourceRatcheting(t *testing.T, f *fixture) {
	g := f.installGadgets(t)
	if r := f.send(t, "POST", g.collection, ctJSON, g.object("r", `{"size":5,"tags":["a"]}`)); r.code != 201 {
		t.Fatalf("create = %d %s", r.code, r.body)
	}
	// Tighten the schema and add a default.
	crd := &kube.Unstructured{}
	crd.SetGroupVersionKind(kube.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
	if err := f.c.Get(f.ctx, kube.Key{Name: g.crd}, crd); err != nil {
		t.Fatal(err)
	}
	versions, _ := crd.Field("spec", "versions")
	v0 := versions.([]any)[0].(map[string]any)
	props := v0["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)
	props["size"].(map[string]any)["maximum"] = 3
	props["color"] = map[string]any{"type": "string", "default": "red"}
	if err := f.c.Update(f.ctx, crd); err != nil {
		t.Fatal(err)
	}
	// An object stored before the default reads with it.
	f.eventually(t, "default applied on read", func() error {
		r := f.send(t, "GET", g.collection+"/r", "", "")
		if spec, _ := r.object(t)["spec"].(map[string]any); spec["color"] != "red" {
			return fmt.Errorf("spec %v has no color", spec)
		}
		return nil
	})
	// A value that became invalid may stay while other fields change...
	if r := f.send(t, "PATCH", g.collection+"/r", ctMerge, `{"spec":{"mode":"fast"}}`); r.code != 200 {
		t.Errorf("patch of another field of an object the new schema refuses = %d %s, want 200 (ratcheting)", r.code, r.body)
	}
	// ...but not change to another invalid value.
	r := f.send(t, "PATCH", g.collection+"/r", ctMerge, `{"spec":{"size":4}}`)
	expectStatus(t, "patch to a new invalid value", r, 422, "Invalid",
		g.invalid("r", "spec.size: Invalid value: 4: spec.size in body should be less than or equal to 3"))
}

func testNonStructuralCRD(t *testing.T, f *fixture) {
	for _, tc := range []struct{ schema, extra, errs string }{
		{`{"type":"object","properties":{"spec":{"properties":{"a":{"type":"string"}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields"},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"string"}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"array","uniqueItems":true,"items":{"type":"string"}}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic"},
		{`{"properties":{"spec":{"type":"object"}}}`, "",
			"spec.validation.openAPIV3Schema.type: Required value: must not be empty at the root"},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"array"}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].properties[a].items: Required value: must be specified"},
		{`{"type":"object","properties":{"metadata":{"type":"object","properties":{"labels":{"type":"object"}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"}}}}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].properties[l].items.properties[k].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"},
		{`{"type":"string"}`, `,"subresources":{"status":{}}`,
			`[spec.validation.openAPIV3Schema.type: Invalid value: "string": only "object" is allowed as the type at the root of the schema if the status subresource is enabled, spec.validation.openAPIV3Schema.type: Invalid value: "string": must be object at the root]`},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, "",
			"spec.validation.openAPIV3Schema.additionalProperties: Forbidden: must not be used at the root"},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"string","pattern":"(["}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].properties[a].pattern: Invalid value: \"([\": must be a valid regular expression, but isn't: error parsing regexp: missing closing ]: `[`"},
		{`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"$ref":"#/x"}}}}}`, "",
			"spec.validation.openAPIV3Schema.properties[spec].properties[a].$ref: Forbidden: $ref is not supported"},
	} {
		suffix := randomSuffix()
		name := "ns" + suffix + "s." + widgetGroup
		body := fmt.Sprintf(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":%q},
"spec":{"group":%q,"scope":"Namespaced","names":{"plural":"ns%ss","kind":"Ns%s"},
"versions":[{"name":"v1","served":true,"storage":true%s,"schema":{"openAPIV3Schema":%s}}]}}`,
			name, widgetGroup, suffix, suffix, tc.extra, tc.schema)
		r := f.send(t, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", ctJSON, body)
		if r.code == 201 {
			crd := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
				ObjectMeta: kube.ObjectMeta{Name: name}}
			_ = f.c.Delete(f.ctx, crd)
		}
		expectStatus(t, "CRD with schema "+tc.schema, r, 422, "Invalid",
			fmt.Sprintf("CustomResourceDefinition.apiextensions.k8s.io %q is invalid: %s", name, tc.errs))
	}
}
