// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The scenarios of this file check server-side apply by the schema's list
// and map types, as kube-apiserver 1.36 merges and records them: sets and
// map lists of a custom resource (several managers own entries of one
// list), atomic lists and maps, status conditions applied through the
// status subresource, and the merge keys of built-in lists (containers by
// name, ports by containerPort and protocol, env by name). Each step
// compares the whole managedFields, times masked.

// trackerSchema has a list of each type, an atomic and a granular map, and
// conditions in its status.
const trackerSchema = `{"type":"object","properties":{
"spec":{"type":"object","properties":{
"tags":{"type":"array","items":{"type":"string"},"x-kubernetes-list-type":"set"},
"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","zone"],
 "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"zone":{"type":"string","default":"a"},"size":{"type":"integer"}}}},
"order":{"type":"array","items":{"type":"string"}},
"labels":{"type":"object","additionalProperties":{"type":"string"}},
"selector":{"type":"object","x-kubernetes-map-type":"atomic","properties":{"a":{"type":"string"},"b":{"type":"string"}}}}},
"status":{"type":"object","properties":{
"phase":{"type":"string"},
"conditions":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["type"],
 "items":{"type":"object","required":["type","status"],"properties":{
  "type":{"type":"string"},"status":{"type":"string"},"reason":{"type":"string"},"message":{"type":"string"}}}}}}}}`

// trackers is a fresh Tracker CRD of a scenario.
type trackers struct{ schemaCRD }

// installTrackers creates a CRD with trackerSchema and a status
// subresource under fresh names, and waits until it is served.
func (f *fixture) installTrackers(t *testing.T) *trackers {
	t.Helper()
	return &trackers{f.installSchemaCRD(t, "Tracker", "trackers", trackerSchema)}
}

// config is an apply configuration of the Tracker name with the given
// top-level fields (JSON: `"spec":{...}`).
func (tr *trackers) config(name, fields string) string {
	if fields != "" {
		fields = "," + fields
	}
	return fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":%q}%s}`, tr.apiVersion, tr.kind, name, fields)
}

// apply sends an apply configuration to path as manager.
func (f *fixture) apply(t *testing.T, path, manager, body string, force bool) rawResponse {
	t.Helper()
	q := url.Values{"fieldManager": {manager}}
	if force {
		q.Set("force", "true")
	}
	return f.send(t, "PATCH", path+"?"+q.Encode(), ctApply, body)
}

// mustApply applies and fails the test unless the server answers 200 or
// 201; it returns the object answered.
func (f *fixture) mustApply(t *testing.T, path, manager, body string, force bool) map[string]any {
	t.Helper()
	r := f.apply(t, path, manager, body, force)
	if r.code != 200 && r.code != 201 {
		t.Fatalf("apply by %s of %s = %d %s", manager, body, r.code, r.body)
	}
	return r.object(t)
}

// get reads the object at path.
func (f *fixture) get(t *testing.T, path string) map[string]any {
	t.Helper()
	r := f.send(t, "GET", path, "", "")
	if r.code != 200 {
		t.Fatalf("GET %s = %d %s", path, r.code, r.body)
	}
	return r.object(t)
}

// managedFieldsJSON is o's managedFields as canonical JSON: "time" masked
// to "T" where an entry has one, entries sorted by operation, manager,
// apiVersion and subresource (the server orders them by time first,
// which a test does not control).
func managedFieldsJSON(t *testing.T, o map[string]any) string {
	t.Helper()
	meta, _ := o["metadata"].(map[string]any)
	list, _ := meta["managedFields"].([]any)
	entries := make([]map[string]any, 0, len(list))
	for _, v := range list {
		e, _ := v.(map[string]any)
		if _, ok := e["time"]; ok {
			e["time"] = "T"
		}
		entries = append(entries, e)
	}
	key := func(e map[string]any) string {
		return fmt.Sprint(e["operation"], "\x00", e["manager"], "\x00", e["apiVersion"], "\x00", e["subresource"])
	}
	slices.SortFunc(entries, func(a, b map[string]any) int { return strings.Compare(key(a), key(b)) })
	out, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// expectManagedFields compares o's managedFields with want, JSON written
// as managedFieldsJSON orders it.
func expectManagedFields(t *testing.T, what string, o map[string]any, want string) {
	t.Helper()
	var w []map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %s: %v", what, want, err)
	}
	if w == nil {
		w = []map[string]any{}
	}
	wantJSON, _ := json.Marshal(w)
	if got := managedFieldsJSON(t, o); got != string(wantJSON) {
		t.Errorf("%s: managedFields\n  %s\nwant\n  %s", what, got, wantJSON)
	}
}

// expectField compares the value at a path of o (JSON) with want.
func expectField(t *testing.T, what string, o map[string]any, want string, path ...string) {
	t.Helper()
	cur := field(o, path...)
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation %s: %v", what, want, err)
	}
	if !reflect.DeepEqual(cur, w) {
		got, _ := json.Marshal(cur)
		t.Errorf("%s: %s = %s, want %s", what, strings.Join(path, "."), got, want)
	}
}

// mfEntry writes one managedFields entry as expectManagedFields wants it.
func mfEntry(manager, operation, apiVersion, subresource, fieldsV1 string) string {
	sub := ""
	if subresource != "" {
		sub = fmt.Sprintf(`,"subresource":%q`, subresource)
	}
	return fmt.Sprintf(`{"apiVersion":%q,"fieldsType":"FieldsV1","fieldsV1":%s,"manager":%q,"operation":%q%s,"time":"T"}`,
		apiVersion, fieldsV1, manager, operation, sub)
}

func testApplyListTypes(t *testing.T, f *fixture) {
	tr := f.installTrackers(t)
	path := tr.collection + "/t"
	f.mustApply(t, path, "alice", tr.config("t", `"spec":{"tags":["x","y"],"items":[{"name":"n1","size":1}],
"order":["1","2"],"labels":{"a":"1"},"selector":{"a":"1"}}`), false)
	o := f.mustApply(t, path, "bob", tr.config("t", `"spec":{"tags":["z"],"items":[{"name":"n2","zone":"b","size":2}],"labels":{"b":"2"}}`), false)
	expectField(t, "two appliers", o, `["x","y","z"]`, "spec", "tags")
	expectField(t, "two appliers", o, `[{"name":"n1","size":1,"zone":"a"},{"name":"n2","size":2,"zone":"b"}]`, "spec", "items")
	expectField(t, "two appliers", o, `{"a":"1","b":"2"}`, "spec", "labels")
	alice := mfEntry("alice", "Apply", tr.apiVersion, "", `{"f:spec":{"f:items":{"k:{\"name\":\"n1\",\"zone\":\"a\"}":{".":{},"f:name":{},"f:size":{}}},
"f:labels":{"f:a":{}},"f:order":{},"f:selector":{},"f:tags":{"v:\"x\"":{},"v:\"y\"":{}}}}`)
	bob := mfEntry("bob", "Apply", tr.apiVersion, "", `{"f:spec":{"f:items":{"k:{\"name\":\"n2\",\"zone\":\"b\"}":{".":{},"f:name":{},"f:size":{},"f:zone":{}}},
"f:labels":{"f:b":{}},"f:tags":{"v:\"z\"":{}}}}`)
	expectManagedFields(t, "two appliers", o, "["+alice+","+bob+"]")

	// Omitting entries removes what only the applier owned.
	o = f.mustApply(t, path, "alice", tr.config("t", `"spec":{"tags":["x"],"order":["1","2"],"labels":{"a":"1"},"selector":{"a":"1"}}`), false)
	expectField(t, "alice drops y and n1", o, `["x","z"]`, "spec", "tags")
	expectField(t, "alice drops y and n1", o, `[{"name":"n2","size":2,"zone":"b"}]`, "spec", "items")
	alice = mfEntry("alice", "Apply", tr.apiVersion, "", `{"f:spec":{"f:labels":{"f:a":{}},"f:order":{},"f:selector":{},"f:tags":{"v:\"x\"":{}}}}`)
	expectManagedFields(t, "alice drops y and n1", o, "["+alice+","+bob+"]")

	// A shared set entry is kept while one of its owners applies it.
	f.mustApply(t, path, "bob", tr.config("t", `"spec":{"tags":["z","x"],"items":[{"name":"n2","zone":"b","size":2}],"labels":{"b":"2"}}`), false)
	o = f.mustApply(t, path, "alice", tr.config("t", `"spec":{"order":["1","2"],"labels":{"a":"1"},"selector":{"a":"1"}}`), false)
	expectField(t, "co-owned set entry", o, `["z","x"]`, "spec", "tags")

	// Conflicts name each field: a map key, an atomic list, an atomic map.
	r := f.apply(t, path, "bob", tr.config("t", `"spec":{"labels":{"a":"other"},"order":["3"],"selector":{"b":"2"}}`), false)
	expectStatus(t, "bob changes alice's fields", r, 409, "Conflict",
		"Apply failed with 3 conflicts: conflicts with \"alice\":\n- .spec.order\n- .spec.selector\n- .spec.labels.a")
	r = f.apply(t, path, "bob", tr.config("t", `"spec":{"tags":["z","x"],"items":[{"name":"n2","zone":"b","size":3}],"labels":{"b":"2"}}`), false)
	if r.code != 200 {
		t.Errorf("bob changes his own entry = %d %s", r.code, r.body)
	}
	r = f.apply(t, path, "alice", tr.config("t", `"spec":{"items":[{"name":"n2","zone":"b","size":4}],"order":["1","2"],"labels":{"a":"1"},"selector":{"a":"1"}}`), false)
	expectStatus(t, "alice changes bob's entry", r, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "bob": .spec.items[name="n2",zone="b"].size`)

	// Force takes the field and leaves the rest of the entry to its owner.
	o = f.mustApply(t, path, "alice", tr.config("t", `"spec":{"items":[{"name":"n2","zone":"b","size":4}],"order":["1","2"],"labels":{"a":"1"},"selector":{"a":"1"}}`), true)
	alice = mfEntry("alice", "Apply", tr.apiVersion, "", `{"f:spec":{"f:items":{"k:{\"name\":\"n2\",\"zone\":\"b\"}":{".":{},"f:name":{},"f:size":{},"f:zone":{}}},
"f:labels":{"f:a":{}},"f:order":{},"f:selector":{}}}`)
	bob = mfEntry("bob", "Apply", tr.apiVersion, "", `{"f:spec":{"f:items":{"k:{\"name\":\"n2\",\"zone\":\"b\"}":{".":{},"f:name":{},"f:zone":{}}},
"f:labels":{"f:b":{}},"f:tags":{"v:\"x\"":{},"v:\"z\"":{}}}}`)
	expectManagedFields(t, "forced", o, "["+alice+","+bob+"]")

	// An update of a custom resource owns the maps it adds with a "."
	// of their own; a status update is recorded for its subresource.
	u := f.get(t, path)
	spec, _ := u["spec"].(map[string]any)
	spec["labels"] = map[string]any{"a": "1", "c": "3"}
	spec["selector"] = map[string]any{"b": "2"}
	u["status"] = map[string]any{"phase": "ignored"}
	o = mustOK(t, "update", f.put(t, path, "editor", u, ""))
	editor := mfEntry("editor", "Update", tr.apiVersion, "", `{"f:spec":{"f:labels":{"f:c":{}},"f:selector":{}}}`)
	alice = mfEntry("alice", "Apply", tr.apiVersion, "", `{"f:spec":{"f:items":{"k:{\"name\":\"n2\",\"zone\":\"b\"}":{".":{},"f:name":{},"f:size":{},"f:zone":{}}},
"f:labels":{"f:a":{}},"f:order":{}}}`)
	bob = mfEntry("bob", "Apply", tr.apiVersion, "", `{"f:spec":{"f:items":{"k:{\"name\":\"n2\",\"zone\":\"b\"}":{".":{},"f:name":{},"f:zone":{}}},
"f:tags":{"v:\"x\"":{},"v:\"z\"":{}}}}`)
	expectManagedFields(t, "update (bob's label b removed)", o, "["+alice+","+bob+","+editor+"]")
	u = f.get(t, path)
	u["status"] = map[string]any{"phase": "Running", "conditions": []any{map[string]any{"type": "A", "status": "True"}}}
	o = mustOK(t, "status update", f.put(t, path+"/status", "status-writer", u, `[{}]`))
	expectManagedFields(t, "status update", o, "["+alice+","+bob+","+editor+","+mfEntry("status-writer", "Update", tr.apiVersion, "status",
		`{"f:status":{".":{},"f:conditions":{".":{},"k:{\"type\":\"A\"}":{".":{},"f:status":{},"f:type":{}}},"f:phase":{}}}`)+"]")

	// A configuration of another kind, or of none, is refused.
	r = f.apply(t, path, "bob", `{"metadata":{"name":"t"}}`, false)
	expectStatus(t, "apply without a kind", r, 400, "BadRequest", "invalid object type: /, Kind=")
	r = f.apply(t, path, "bob", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"t"}}`, false)
	expectStatus(t, "apply of another kind", r, 400, "BadRequest", "invalid object type: /v1, Kind=ConfigMap")

	// Duplicate entries in a configuration are refused.
	r = f.apply(t, path, "bob", tr.config("t", `"spec":{"tags":["z","z"]}`), false)
	expectStatus(t, "duplicate set entries", r, 500, "", fmt.Sprintf(
		`failed to create typed patch object (/t; %s, Kind=%s): .spec.tags: duplicate entries for key [="z"]`, tr.apiVersion, tr.kind))
}

func testApplyConditions(t *testing.T, f *fixture) {
	tr := f.installTrackers(t)
	path := tr.collection + "/c"
	f.mustApply(t, path, "creator", tr.config("c", `"spec":{"tags":["a"]}`), false)
	status := func(conditions string) string { return tr.config("c", `"status":{"conditions":`+conditions+`}`) }
	f.mustApply(t, path+"/status", "ready-ctl", status(`[{"type":"Ready","status":"True","reason":"Up"}]`), false)
	o := f.mustApply(t, path+"/status", "sync-ctl", status(`[{"type":"Synced","status":"False","reason":"Behind"}]`), false)
	expectField(t, "two controllers", o, `[{"reason":"Up","status":"True","type":"Ready"},{"reason":"Behind","status":"False","type":"Synced"}]`,
		"status", "conditions")
	creator := mfEntry("creator", "Apply", tr.apiVersion, "", `{"f:spec":{"f:tags":{"v:\"a\"":{}}}}`)
	ready := mfEntry("ready-ctl", "Apply", tr.apiVersion, "status",
		`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)
	synced := mfEntry("sync-ctl", "Apply", tr.apiVersion, "status",
		`{"f:status":{"f:conditions":{"k:{\"type\":\"Synced\"}":{".":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)
	expectManagedFields(t, "two controllers", o, "["+creator+","+ready+","+synced+"]")

	// Status in a configuration for the main resource is not applied.
	o = f.mustApply(t, path, "creator", tr.config("c", `"spec":{"tags":["a"]},"status":{"phase":"X"}`), false)
	expectField(t, "status through the main resource", o, `null`, "status", "phase")
	expectManagedFields(t, "status through the main resource", o, "["+creator+","+ready+","+synced+"]")

	r := f.apply(t, path+"/status", "sync-ctl", status(`[{"type":"Synced","status":"False","reason":"Behind"},{"type":"Ready","status":"False"}]`), false)
	expectStatus(t, "sync-ctl sets Ready", r, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "ready-ctl" with subresource "status": .status.conditions[type="Ready"].status`)
	o = f.mustApply(t, path+"/status", "sync-ctl", status(`[{"type":"Synced","status":"False","reason":"Behind"},{"type":"Ready","status":"False"}]`), true)
	// The configuration's order wins for the entries it has.
	expectField(t, "forced", o, `[{"reason":"Behind","status":"False","type":"Synced"},{"reason":"Up","status":"False","type":"Ready"}]`,
		"status", "conditions")
	ready = mfEntry("ready-ctl", "Apply", tr.apiVersion, "status",
		`{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:reason":{},"f:type":{}}}}}`)
	synced = mfEntry("sync-ctl", "Apply", tr.apiVersion, "status", `{"f:status":{"f:conditions":{
"k:{\"type\":\"Ready\"}":{".":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Synced\"}":{".":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`)
	expectManagedFields(t, "forced", o, "["+creator+","+ready+","+synced+"]")

	// ready-ctl lets go of Ready: what sync-ctl owns of it stays.
	o = f.mustApply(t, path+"/status", "ready-ctl", status(`[]`), false)
	expectField(t, "ready-ctl lets go", o, `[{"reason":"Behind","status":"False","type":"Synced"},{"status":"False","type":"Ready"}]`,
		"status", "conditions")
	expectManagedFields(t, "ready-ctl lets go", o, "["+creator+","+synced+"]")
}

func testApplyBuiltinLists(t *testing.T, f *fixture) {
	path := "/apis/apps/v1/namespaces/" + f.ns + "/deployments/d"
	deployment := func(spec string) string {
		return `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":` + spec + `}`
	}
	f.mustApply(t, path, "alice", deployment(`{"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},
"spec":{"containers":[{"name":"c1","image":"i1","ports":[{"containerPort":80}],"env":[{"name":"A","value":"1"}]}]}}}`), false)
	o := f.mustApply(t, path, "bob", deployment(`{"template":{"spec":{"containers":[
{"name":"c1","ports":[{"containerPort":80,"protocol":"UDP"}],"env":[{"name":"B","value":"2"}]},{"name":"c2","image":"i2"}]}}}`), false)
	expectField(t, "two appliers", o, `[{"name":"A","value":"1"},{"name":"B","value":"2"}]`,
		"spec", "template", "spec", "containers", "0", "env")
	containers, _ := field(o, "spec", "template", "spec", "containers").([]any)
	if len(containers) != 2 {
		t.Fatalf("containers = %v, want c1 and c2", containers)
	}
	c1, _ := containers[0].(map[string]any)
	if got, _ := json.Marshal(c1["ports"]); !strings.Contains(string(got), `"protocol":"UDP"`) || !strings.Contains(string(got), `"containerPort":80`) {
		t.Errorf("c1 ports = %s, want 80/TCP and 80/UDP", got)
	}
	if c1["image"] != "i1" || c1["name"] != "c1" {
		t.Errorf("c1 = %v, want image i1", c1)
	}
	alice := mfEntry("alice", "Apply", "apps/v1", "", `{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},
"f:spec":{"f:containers":{"k:{\"name\":\"c1\"}":{".":{},"f:env":{"k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:name":{},
"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}`)
	bob := mfEntry("bob", "Apply", "apps/v1", "", `{"f:spec":{"f:template":{"f:spec":{"f:containers":{
"k:{\"name\":\"c1\"}":{".":{},"f:env":{"k:{\"name\":\"B\"}":{".":{},"f:name":{},"f:value":{}}},"f:name":{},
"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"UDP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}}},
"k:{\"name\":\"c2\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`)
	expectManagedFields(t, "two appliers", o, "["+alice+","+bob+"]")

	r := f.apply(t, path, "bob", deployment(`{"template":{"spec":{"containers":[{"name":"c1","image":"i9"}]}}}`), false)
	expectStatus(t, "bob changes c1's image", r, 409, "Conflict",
		`Apply failed with 1 conflict: conflict with "alice": .spec.template.spec.containers[name="c1"].image`)
	r = f.apply(t, path, "bob", deployment(`{"template":{"spec":{"containers":[{"name":"c1","ports":[{"containerPort":80},{"containerPort":80,"protocol":"TCP"}]}]}}}`), false)
	expectStatus(t, "duplicate ports", r, 500, "",
		`failed to create typed patch object (/d; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="c1"].ports: duplicate entries for key [containerPort=80,protocol="TCP"]`)

	// An update owns what it adds and changes, per entry: inside a
	// container's resources (a struct every container has: no "." of
	// its own), an atomic map, and alice's image, which she loses.
	o = mustOK(t, "update of c1", f.send(t, "PATCH", path+"?fieldManager=editor", ctJSONPatch, `[
{"op":"add","path":"/spec/template/spec/containers/0/resources","value":{"limits":{"cpu":"1"}}},
{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"i3"},
{"op":"add","path":"/spec/template/spec/nodeSelector","value":{"zone":"z1"}}]`))
	editor := mfEntry("editor", "Update", "apps/v1", "", `{"f:spec":{"f:template":{"f:spec":{
"f:containers":{"k:{\"name\":\"c1\"}":{"f:image":{},"f:resources":{"f:limits":{".":{},"f:cpu":{}}}}},"f:nodeSelector":{}}}}}`)
	alice = mfEntry("alice", "Apply", "apps/v1", "", `{"f:spec":{"f:selector":{},"f:template":{"f:metadata":{"f:labels":{"f:app":{}}},
"f:spec":{"f:containers":{"k:{\"name\":\"c1\"}":{".":{},"f:env":{"k:{\"name\":\"A\"}":{".":{},"f:name":{},"f:value":{}}},"f:name":{},
"f:ports":{"k:{\"containerPort\":80,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{}}}}}}}}}`)
	expectManagedFields(t, "update of c1", o, "["+alice+","+bob+","+editor+"]")

	// bob lets go of c1: alice's part of it stays, bob's env and port go.
	o = f.mustApply(t, path, "bob", deployment(`{"template":{"spec":{"containers":[{"name":"c2","image":"i2"}]}}}`), false)
	expectField(t, "bob lets go of c1", o, `[{"name":"A","value":"1"}]`, "spec", "template", "spec", "containers", "0", "env")
	c1 = containerNamed(o, "c1")
	if got, _ := json.Marshal(c1["ports"]); strings.Contains(string(got), "UDP") {
		t.Errorf("after bob lets go, c1 ports = %s, want 80/TCP only", got)
	}
}

// containerNamed returns the container of a Deployment with that name.
func containerNamed(o map[string]any, name string) map[string]any {
	containers, _ := field(o, "spec", "template", "spec", "containers").([]any)
	for _, c := range containers {
		if m, _ := c.(map[string]any); m["name"] == name {
			return m
		}
	}
	return nil
}

// field returns the value at path in o: map keys, or list indexes.
func field(o any, path ...string) any {
	cur := o
	for _, p := range path {
		switch t := cur.(type) {
		case map[string]any:
			cur = t[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i < 0 || i >= len(t) {
				return nil
			}
			cur = t[i]
		default:
			return nil
		}
	}
	return cur
}
