// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
)

// The scenarios of this file check managedFields as kube-apiserver 1.36
// keeps them for writes other than apply: what creates, updates and
// patches take ownership of (per entry, taken from other managers), the
// managedFields a write sets (honoured when they decode, [] and [{}]
// clear them, invalid ones are ignored), the untracked object an apply
// then finds ("before-first-apply"), and kubectl's move from client-side
// to server-side apply.

// mfEntryUntimed is mfEntry for an entry without a time.
func mfEntryUntimed(manager, operation, apiVersion, fieldsV1 string) string {
	return `{"apiVersion":"` + apiVersion + `","fieldsType":"FieldsV1","fieldsV1":` + fieldsV1 +
		`,"manager":"` + manager + `","operation":"` + operation + `"}`
}

// write sends obj (with metadata.managedFields as mf: "" leaves them
// out) as a PUT to path by manager, and returns the answer.
func (f *fixture) put(t *testing.T, path, manager string, obj map[string]any, mf string) rawResponse {
	t.Helper()
	meta, _ := obj["metadata"].(map[string]any)
	delete(meta, "managedFields")
	if mf != "" {
		var v any
		if err := json.Unmarshal([]byte(mf), &v); err != nil {
			t.Fatalf("bad managedFields %s: %v", mf, err)
		}
		meta["managedFields"] = v
	}
	body, _ := json.Marshal(obj)
	return f.send(t, "PUT", path+"?"+url.Values{"fieldManager": {manager}}.Encode(), ctJSON, string(body))
}

func mustOK(t *testing.T, what string, r rawResponse) map[string]any {
	t.Helper()
	if r.code != 200 && r.code != 201 {
		t.Fatalf("%s = %d %s", what, r.code, r.body)
	}
	return r.object(t)
}

func resourceVersion(o map[string]any) string {
	rv, _ := field(o, "metadata", "resourceVersion").(string)
	return rv
}

func testManagedFieldsWrites(t *testing.T, f *fixture) {
	coll := f.configMapsPath()
	path := coll + "/m"
	mustOK(t, "create", f.send(t, "POST", coll+"?fieldManager=creator", ctJSON,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m","labels":{"l":"1"}},"data":{"x":"1"}}`))

	// An update takes what it changes and adds.
	o := f.get(t, path)
	o["data"] = map[string]any{"x": "2", "y": "1"}
	o = mustOK(t, "update by editor", f.put(t, path, "editor", o, ""))
	creator := mfEntry("creator", "Update", "v1", "", `{"f:data":{},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}`)
	editor := mfEntry("editor", "Update", "v1", "", `{"f:data":{"f:x":{},"f:y":{}}}`)
	expectManagedFields(t, "update by editor", o, "["+creator+","+editor+"]")

	// A write that sets managedFields replaces them; times are kept, or
	// absent.
	o["data"] = map[string]any{"x": "2", "y": "3"}
	claimed := `[{"manager":"claimed","operation":"Update","apiVersion":"v1","time":"2020-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{}}}},
{"manager":"applier","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{"f:l":{}}}}},
{"manager":"empty","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{}},
{"manager":"old","operation":"Update","apiVersion":"v9","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:y":{}}}}]`
	o = mustOK(t, "update setting managedFields", f.put(t, path, "editor", o, claimed))
	if tm := field(o, "metadata", "managedFields", "1", "time"); tm != "2020-01-01T00:00:00Z" {
		t.Errorf("the time of a written entry = %v, want it kept: %s", tm, managedFieldsJSON(t, o))
	}
	want := "[" + mfEntryUntimed("applier", "Apply", "v1", `{"f:metadata":{"f:labels":{"f:l":{}}}}`) + "," +
		mfEntry("claimed", "Update", "v1", "", `{"f:data":{"f:x":{}}}`) + "," +
		mfEntry("editor", "Update", "v1", "", `{"f:data":{"f:y":{}}}`) + "]"
	o = f.get(t, path)
	expectManagedFields(t, "update setting managedFields", o, want)

	// Invalid entries are ignored: the stored ones stay.
	o["data"] = map[string]any{"x": "2", "y": "4"}
	o = mustOK(t, "update with invalid managedFields", f.put(t, path, "editor", o,
		`[{"manager":"bad","operation":"Update","apiVersion":"v1","fieldsV1":{"f:data":{"f:x":{}}}}]`))
	expectManagedFields(t, "update with invalid managedFields", o, want)

	// [{}] clears them (a write of its own), and updates then track nothing.
	rv := resourceVersion(o)
	o = mustOK(t, "update clearing managedFields", f.put(t, path, "editor", o, `[{}]`))
	expectManagedFields(t, "update clearing managedFields", o, `[]`)
	if resourceVersion(o) == rv {
		t.Errorf("clearing managedFields did not write the object (resourceVersion %s)", rv)
	}
	o["data"] = map[string]any{"x": "5", "y": "4"}
	o = mustOK(t, "update after clearing", f.put(t, path, "editor", o, ""))
	expectManagedFields(t, "update after clearing", o, `[]`)

	// An apply then finds the fields owned by "before-first-apply".
	cm := func(data string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m"},"data":` + data + `}`
	}
	r := f.apply(t, path, "applier2", cm(`{"x":"6"}`), false)
	expectStatus(t, "apply after clearing", r, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "before-first-apply" using v1: .data.x`)
	o = f.mustApply(t, path, "applier2", cm(`{"x":"5","z":"1"}`), false)
	expectManagedFields(t, "apply after clearing", o, "["+mfEntry("applier2", "Apply", "v1", "", `{"f:data":{"f:x":{},"f:z":{}}}`)+","+
		mfEntry("before-first-apply", "Update", "v1", "", `{"f:data":{".":{},"f:x":{},"f:y":{}},"f:metadata":{"f:labels":{".":{},"f:l":{}}}}`)+"]")

	// Patches: a merge patch with [] clears them, a JSON patch sets them.
	o = mustOK(t, "merge patch clearing", f.send(t, "PATCH", path+"?fieldManager=editor", "application/merge-patch+json",
		`{"metadata":{"managedFields":[]}}`))
	expectManagedFields(t, "merge patch clearing", o, `[]`)
	o = mustOK(t, "json patch setting", f.send(t, "PATCH", path+"?fieldManager=editor", "application/json-patch+json",
		`[{"op":"add","path":"/metadata/managedFields","value":[{"manager":"json","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{}}}}]}]`))
	expectManagedFields(t, "json patch setting", o, "["+mfEntryUntimed("json", "Apply", "v1", `{"f:data":{"f:x":{}}}`)+"]")

	// A create's managedFields start from the ones it sends: the creator
	// takes every field the object has.
	o = mustOK(t, "create with managedFields", f.send(t, "POST", coll+"?fieldManager=creator", ctJSON,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"m2","managedFields":[
{"manager":"other","operation":"Update","apiVersion":"v1","time":"2020-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:x":{},"f:gone":{}}}}]},
"data":{"x":"1","z":"2"}}`))
	expectManagedFields(t, "create with managedFields", o, "["+mfEntry("creator", "Update", "v1", "", `{"f:data":{".":{},"f:x":{},"f:z":{}}}`)+","+
		mfEntry("other", "Update", "v1", "", `{"f:data":{"f:gone":{}}}`)+"]")
}

// testManagedFieldsCap checks that beyond ten Update entries the oldest
// two are merged into one "ancient-changes" entry.
func testManagedFieldsCap(t *testing.T, f *fixture) {
	path := f.configMapsPath() + "/capped"
	f.mustApply(t, path, "applier", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"capped"},"data":{"a":"1"}}`, false)
	var o map[string]any
	for i := range 11 {
		// Managers in the order of their names and times, so that the
		// oldest are the first by name whatever second each write falls in.
		o = mustOK(t, "update", f.send(t, "PATCH", fmt.Sprintf("%s?fieldManager=m%02d", path, i), ctMerge,
			fmt.Sprintf(`{"data":{"k%02d":"v"}}`, i)))
	}
	want := []string{mfEntry("applier", "Apply", "v1", "", `{"f:data":{"f:a":{}}}`),
		mfEntry("ancient-changes", "Update", "v1", "", `{"f:data":{"f:k00":{},"f:k01":{}}}`)}
	for i := 2; i < 11; i++ {
		want = append(want, mfEntry(fmt.Sprintf("m%02d", i), "Update", "v1", "", fmt.Sprintf(`{"f:data":{"f:k%02d":{}}}`, i)))
	}
	expectManagedFields(t, "eleven updaters", o, "["+strings.Join(want, ",")+"]")
}

// unionFieldsV1 merges two fieldsV1 trees, as kubectl's managedFields
// upgrade unions two entries.
func unionFieldsV1(a, b map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		am, aok := out[k].(map[string]any)
		bm, bok := v.(map[string]any)
		if aok && bok {
			out[k] = unionFieldsV1(am, bm)
		} else {
			out[k] = v
		}
	}
	return out
}

// testKubectlMigration does what kubectl 1.36 does when `kubectl apply`
// (client-side) is followed by `kubectl apply --server-side`: the server
// lets the manager "kubectl" take the fields its last-applied annotation
// set, keeps that annotation up to date, and after kubectl moved the
// client-side manager's fields into its Apply entry, the next apply
// removes what the configuration no longer has.
func testKubectlMigration(t *testing.T, f *fixture) {
	coll := f.configMapsPath()
	path := coll + "/kc"
	lastApplied := `{"apiVersion":"v1","data":{"a":"1","b":"2"},"kind":"ConfigMap","metadata":{"annotations":{},"name":"kc","namespace":"` + f.ns + `"}}` + "\n"
	created, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "kc", "annotations": map[string]any{lastAppliedKey: lastApplied}},
		"data":     map[string]any{"a": "1", "b": "2"}})
	o := mustOK(t, "client-side apply", f.send(t, "POST", coll+"?fieldManager=kubectl-client-side-apply", ctJSON, string(created)))
	csa := mfEntry("kubectl-client-side-apply", "Update", "v1", "",
		`{"f:data":{".":{},"f:a":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)
	expectManagedFields(t, "client-side apply", o, "["+csa+"]")

	config := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kc","namespace":"` + f.ns + `"},"data":{"a":"3","c":"4"}}`
	r := f.apply(t, path, "someone", config, false)
	expectStatus(t, "another manager", r, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using v1: .data.a`)
	o = f.mustApply(t, path, "kubectl", config, false)
	expectField(t, "server-side apply", o, `{"a":"3","b":"2","c":"4"}`, "data")
	expectField(t, "server-side apply", o, `"`+jsonEscape(compactJSON(t, config)+"\n")+`"`, "metadata", "annotations", lastAppliedKey)
	kubectl := mfEntry("kubectl", "Apply", "v1", "", `{"f:data":{"f:a":{},"f:c":{}}}`)
	csa = mfEntry("kubectl-client-side-apply", "Update", "v1", "",
		`{"f:data":{".":{},"f:b":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)
	expectManagedFields(t, "server-side apply", o, "["+kubectl+","+csa+"]")

	// kubectl keeps the annotation with a manager of its own...
	ann, _ := field(o, "metadata", "annotations", lastAppliedKey).(string)
	keep, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "kc", "namespace": f.ns, "annotations": map[string]any{lastAppliedKey: ann}}})
	o = f.mustApply(t, path, "kubectl-last-applied", string(keep), false)

	// ...moves the client-side manager's fields into its Apply entry...
	entries, _ := field(o, "metadata", "managedFields").([]any)
	var upgraded []any
	var apply map[string]any
	var csaFields map[string]any
	for _, e := range entries {
		m, _ := e.(map[string]any)
		switch {
		case m["manager"] == "kubectl" && m["operation"] == "Apply":
			apply = m
			upgraded = append(upgraded, m)
		case m["manager"] == "kubectl-client-side-apply" && m["operation"] == "Update":
			csaFields, _ = m["fieldsV1"].(map[string]any)
		default:
			upgraded = append(upgraded, m)
		}
	}
	if apply == nil || csaFields == nil {
		t.Fatalf("managedFields %s, want kubectl's Apply and the client-side Update", managedFieldsJSON(t, o))
	}
	applyFields, _ := apply["fieldsV1"].(map[string]any)
	apply["fieldsV1"] = unionFieldsV1(applyFields, csaFields)
	patch, _ := json.Marshal([]any{
		map[string]any{"op": "replace", "path": "/metadata/managedFields", "value": upgraded},
		map[string]any{"op": "replace", "path": "/metadata/resourceVersion", "value": resourceVersion(o)},
	})
	o = mustOK(t, "managedFields upgrade", f.send(t, "PATCH", path+"?fieldManager=kubectl", "application/json-patch+json", string(patch)))
	// (an apply that changes nothing leaves its entry without a time)
	keeper := mfEntryUntimed("kubectl-last-applied", "Apply", "v1", `{"f:metadata":{"f:annotations":{"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)
	expectManagedFields(t, "managedFields upgrade", o, "["+mfEntry("kubectl", "Apply", "v1", "",
		`{"f:data":{".":{},"f:a":{},"f:b":{},"f:c":{}},"f:metadata":{"f:annotations":{".":{},"f:kubectl.kubernetes.io/last-applied-configuration":{}}}}`)+","+keeper+"]")

	// ...and applies again: b, which only the old configuration had, goes.
	o = f.mustApply(t, path, "kubectl", config, false)
	expectField(t, "second server-side apply", o, `{"a":"3","c":"4"}`, "data")
	expectField(t, "second server-side apply", o, `"`+jsonEscape(compactJSON(t, config)+"\n")+`"`, "metadata", "annotations", lastAppliedKey)
	expectManagedFields(t, "second server-side apply", o, "["+kubectl+","+keeper+"]")

	// A field someone else changed since the last client-side apply is
	// still a conflict, and the only one reported.
	created, _ = json.Marshal(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "kc2", "annotations": map[string]any{lastAppliedKey: strings.ReplaceAll(lastApplied, `"kc"`, `"kc2"`)}},
		"data":     map[string]any{"a": "1", "b": "2"}})
	mustOK(t, "client-side apply", f.send(t, "POST", coll+"?fieldManager=kubectl-client-side-apply", ctJSON, string(created)))
	mustOK(t, "edit", f.send(t, "PATCH", coll+"/kc2?fieldManager=editor", ctMerge, `{"data":{"b":"3"}}`))
	r = f.apply(t, coll+"/kc2", "kubectl", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kc2"},"data":{"a":"5","b":"6"}}`, false)
	expectStatus(t, "server-side apply over an edit", r, 409, "Conflict", `Apply failed with 1 conflict: conflict with "editor" using v1: .data.b`)
}

const lastAppliedKey = "kubectl.kubernetes.io/last-applied-configuration"

// compactJSON re-encodes JSON as Go's encoder writes a map: keys sorted.
func compactJSON(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

// jsonEscape is s as the inside of a JSON string.
func jsonEscape(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
