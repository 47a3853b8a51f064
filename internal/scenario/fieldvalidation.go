// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"strings"
	"testing"
)

// The scenarios of this file check the decoding of built-in kinds against
// their schema, as kube-apiserver 1.36 answers: type errors with the Go
// decoder's words, unknown and duplicate fields per ?fieldValidation=
// (Warn by default), and the errors of patches and apply.

const ctJSON, ctMerge, ctJSONPatch, ctSMP, ctApply = "application/json", "application/merge-patch+json",
	"application/json-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"

func (f *fixture) configMapsPath() string { return "/api/v1/namespaces/" + f.ns + "/configmaps" }

func testFieldValidation(t *testing.T, f *fixture) {
	cms := f.configMapsPath()
	r := f.send(t, "POST", cms, ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"typed"},"data":{"n":1}}`)
	expectStatus(t, "ConfigMap with a number in data", r, 400, "BadRequest",
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string`)

	// Warn is the default: the object is stored without the unknown
	// fields, and every one is named in a Warning header.
	r = f.send(t, "POST", cms, ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warned","foo":1},"data":{"a":"b"},"foo":1,"bar":{"x":1}}`)
	if r.code != 201 {
		t.Fatalf("ConfigMap with unknown fields = %d %s, want 201", r.code, r.body)
	}
	expectWarnings(t, "unknown fields, default validation", r,
		`unknown field "metadata.foo"`, `unknown field "foo"`, `unknown field "bar"`)
	if o := r.object(t); o["foo"] != nil || o["bar"] != nil {
		t.Errorf("stored ConfigMap keeps unknown fields: %v", o)
	}

	r = f.send(t, "POST", cms+"?fieldValidation=Warn", ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"b","a":"c"},"foo":"x"}`)
	expectWarnings(t, "duplicate and unknown fields, Warn", r, `duplicate field "data.a"`, `unknown field "foo"`)
	if d, _ := r.object(t)["data"].(map[string]any); d["a"] != "c" {
		t.Errorf("duplicate field: stored data %v, want the last value", d)
	}

	r = f.send(t, "POST", cms+"?fieldValidation=Strict", ctJSON,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"strict","foo":1},"data":{"a":"b","a":"c"},"foo":1,"data":{"z":"1"}}`)
	expectStatus(t, "unknown and duplicate fields, Strict", r, 400, "BadRequest",
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "metadata.foo", duplicate field "data.a", unknown field "foo", duplicate field "data"`)

	r = f.send(t, "POST", cms+"?fieldValidation=Ignore", ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ignored"},"foo":1}`)
	if r.code != 201 || len(r.warnings()) != 0 {
		t.Errorf("unknown field, Ignore = %d with warnings %q, want 201 and none", r.code, r.warnings())
	}

	r = f.send(t, "POST", cms+"?fieldValidation=Foo", ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"foo"}}`)
	expectStatus(t, "fieldValidation=Foo on create", r, 422, "Invalid",
		`CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Foo": supported values: "", "Ignore", "Strict", "Warn"`)
	r = f.send(t, "PATCH", cms+"/warned?fieldValidation=Foo", ctMerge, `{}`)
	expectStatus(t, "fieldValidation=Foo on patch", r, 422, "Invalid",
		`PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Foo": supported values: "", "Ignore", "Strict", "Warn"`)

	r = f.send(t, "PUT", cms+"/warned", ctJSON, `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"warned"},"data":{"n":true}}`)
	expectStatus(t, "update with a bool in data", r, 400, "BadRequest",
		`ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal bool into Go struct field ConfigMap.data of type string`)
}

func testBuiltinTypeErrors(t *testing.T, f *fixture) {
	pods := "/api/v1/namespaces/" + f.ns + "/pods"
	pod := func(meta, spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"` + meta + `},"spec":` + spec + `}`
	}
	// 1.33's build names no embedded struct in a field's path (Go's
	// encoding/json of its release); newer ones name ProbeHandler.
	embedded := "ProbeHandler."
	if f.minor(t) <= minorOldest {
		embedded = ""
	}
	for _, tc := range []struct{ what, body, err string }{
		{"image as a number", pod("", `{"containers":[{"name":"a","image":5}]}`),
			"json: cannot unmarshal number into Go struct field Container.spec.containers.image of type string"},
		{"containerPort as a string", pod("", `{"containers":[{"name":"a","image":"x","ports":[{"containerPort":"abc"}]}]}`),
			"json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"},
		{"containerPort with a fraction", pod("", `{"containers":[{"name":"a","image":"x","ports":[{"containerPort":1.5}]}]}`),
			"json: cannot unmarshal number 1.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"},
		{"a quantity that is not one", pod("", `{"containers":[{"name":"a","image":"x","resources":{"limits":{"cpu":"abc"}}}]}`),
			"quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"},
		{"a number for a time", pod(`,"creationTimestamp":5`, `{"containers":[{"name":"a","image":"x"}]}`),
			"json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"},
		{"a time that is not one", pod(`,"creationTimestamp":"yesterday"`, `{"containers":[{"name":"a","image":"x"}]}`),
			`parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`},
		{"a number as a label", pod(`,"labels":{"a":1}`, `{"containers":[{"name":"a","image":"x"}]}`),
			"json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"},
		{"a number for a named string type", pod("", `{"restartPolicy":5,"containers":[{"name":"a","image":"x"}]}`),
			"json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy"},
		{"a bool in an embedded struct", pod("", `{"containers":[{"name":"a","image":"x","livenessProbe":{"httpGet":{"port":true}}}]}`),
			"json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe." + embedded + "httpGet.port of type int32"},
		{"an object for a list", pod("", `{"containers":{"name":"a"}}`),
			"json: cannot unmarshal object into Go struct field PodSpec.spec.containers of type []v1.Container"},
		{"a string for a struct", pod("", `"x"`),
			"json: cannot unmarshal string into Go struct field Pod.spec of type v1.PodSpec"},
		{"an int64 overflow", pod("", `{"terminationGracePeriodSeconds":99999999999999999999,"containers":[{"name":"a","image":"x"}]}`),
			"json: cannot unmarshal number 99999999999999999999 into Go struct field PodSpec.spec.terminationGracePeriodSeconds of type int64"},
	} {
		r := f.send(t, "POST", pods, ctJSON, tc.body)
		expectStatus(t, "Pod with "+tc.what, r, 400, "BadRequest", `Pod in version "v1" cannot be handled as a Pod: `+tc.err)
	}
	r := f.send(t, "POST", "/api/v1/namespaces/"+f.ns+"/secrets", ctJSON, `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"a":"!!!"}}`)
	expectStatus(t, "Secret with data that is not base64", r, 400, "BadRequest",
		`Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 0`)

	cms := f.configMapsPath()
	f.mustCreate(t, f.configMap("patched", nil, map[string]string{"a": "b"}))
	// A JSON or merge patch's result that does not decode is a 422 on
	// "patch" quoting the patched object (whose encoding differs between
	// the servers in field order, so only its ends are compared).
	for _, tc := range []struct{ ct, body, err string }{
		{ctMerge, `{"data":{"n":1}}`, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
		{ctJSONPatch, `[{"op":"add","path":"/data/n","value":1}]`, "json: cannot unmarshal number into Go struct field ConfigMap.data of type string"},
		{ctMerge + "?fieldValidation=Strict", `{"foo":1}`, `strict decoding error: unknown field "foo"`},
	} {
		ct, query, _ := strings.Cut(tc.ct, "?")
		if query != "" {
			query = "?" + query
		}
		r := f.send(t, "PATCH", cms+"/patched"+query, ct, tc.body)
		msg, reason := r.status(t)
		if r.code != 422 || reason != "Invalid" || !strings.HasPrefix(msg, ` "" is invalid: patch: Invalid value: "{\"apiVersion\":\"v1\",`) ||
			!strings.HasSuffix(msg, `}": `+tc.err) {
			t.Errorf("%s %s = %d %s %q, want 422 Invalid on patch ending %q", ct, tc.body, r.code, reason, msg, tc.err)
		}
	}
	r = f.send(t, "PATCH", cms+"/patched", ctMerge, `{"foo":1,"foo":2}`)
	expectWarnings(t, "merge patch with a duplicate unknown field", r, `duplicate field "foo"`, `unknown field "foo"`)
	r = f.send(t, "PATCH", cms+"/patched", ctSMP, `{"data":{"n":1}}`)
	expectStatus(t, "strategic merge patch with a number in data", r, 422, "Invalid",
		` "" is invalid: patch: Invalid value: "map[data:map[n:1]]": cannot convert int64 to string`)
	r = f.send(t, "PATCH", cms+"/patched?fieldValidation=Strict", ctSMP, `{"foo":1}`)
	expectStatus(t, "strategic merge patch with an unknown field, Strict", r, 422, "Invalid",
		` "" is invalid: patch: Invalid value: "map[foo:1]": strict decoding error: unknown field "foo"`)

	// An apply configuration that does not fit the schema is a 500,
	// whatever fieldValidation says.
	for _, tc := range []struct{ query, body, err string }{
		{"", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"patched"},"data":{"n":1}}`,
			".data.n: expected string, got &value.valueUnstructured{Value:1}"},
		{"&fieldValidation=Ignore", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"patched"},"foo":1}`,
			".foo: field not declared in schema"},
		{"", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"patched"},"data":"str"}`,
			".data: expected map, got &{str}"},
	} {
		r := f.send(t, "PATCH", cms+"/patched?fieldManager=scenario"+tc.query, ctApply, tc.body)
		expectStatus(t, "apply "+tc.body, r, 500, "",
			"failed to create typed patch object (/patched; /v1, Kind=ConfigMap): "+tc.err)
	}
	// (With several errors the real server lists them in Go's map order.)
	r = f.send(t, "PATCH", "/apis/apps/v1/namespaces/"+f.ns+"/deployments/d?fieldManager=scenario", ctApply,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":"x"}}`)
	expectStatus(t, "apply with a string for a number", r, 500, "",
		"failed to create typed patch object (/d; apps/v1, Kind=Deployment): .spec.replicas: expected numeric (int or float), got string")
	r = f.send(t, "PATCH", "/apis/apps/v1/namespaces/"+f.ns+"/deployments/d?fieldManager=scenario", ctApply,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"paused":1.5}}`)
	expectStatus(t, "apply with a number for a bool", r, 500, "",
		"failed to create typed patch object (/d; apps/v1, Kind=Deployment): .spec.paused: expected boolean, got &{1.5}")
}
