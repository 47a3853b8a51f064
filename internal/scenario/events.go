// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"bufio"
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// testEventsOneStorage checks that core v1 Events and events.k8s.io/v1
// Events are one storage seen through two versions, as in the real
// server: an Event written through either API is read, listed, selected,
// watched, updated and deleted through the other, its fields converted
// (message and note, involvedObject and regarding, the deprecated*
// fields), each form with the fields its Go type always encodes.
func testEventsOneStorage(t *testing.T, f *fixture) {
	core := "/api/v1/namespaces/" + f.ns + "/events"
	events := "/apis/events.k8s.io/v1/namespaces/" + f.ns + "/events"
	ref := `{"apiVersion":"v1","kind":"ConfigMap","namespace":"` + f.ns + `","name":"cm1","uid":"u1"}`

	r := f.send(t, "POST", core, "application/json", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"core1"},`+
		`"involvedObject":`+ref+`,"reason":"Synced","message":"hello","source":{"component":"comp","host":"h1"},`+
		`"firstTimestamp":"2026-01-01T00:00:00Z","lastTimestamp":"2026-01-01T00:00:01Z","count":3,"type":"Normal",`+
		`"action":"Act","reportingComponent":"rc","reportingInstance":"ri","related":{"kind":"Pod","name":"p"}}`)
	if r.code != 201 {
		t.Fatalf("create core event = %d %s", r.code, r.body)
	}
	expectEventBody(t, "core1 through events.k8s.io", f.send(t, "GET", events+"/core1", "", ""), `{
		"eventTime":null,"reportingController":"rc","reportingInstance":"ri","action":"Act","reason":"Synced",
		"regarding":`+ref+`,"related":{"kind":"Pod","name":"p"},"note":"hello","type":"Normal",
		"deprecatedSource":{"component":"comp","host":"h1"},"deprecatedFirstTimestamp":"2026-01-01T00:00:00Z",
		"deprecatedLastTimestamp":"2026-01-01T00:00:01Z","deprecatedCount":3}`)

	r = f.send(t, "POST", events, "application/json", `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"new1"},`+
		`"eventTime":"2026-11-21T04:50:00.000000Z","reportingController":"ctl","reportingInstance":"inst","action":"Reconcile",`+
		`"reason":"Synced","note":"synced","type":"Normal","regarding":`+ref+`,`+
		`"series":{"count":2,"lastObservedTime":"2026-11-21T04:51:00.000000Z"}}`)
	if r.code != 201 {
		t.Fatalf("create events.k8s.io event = %d %s", r.code, r.body)
	}
	expectEventBody(t, "new1 as created", r, `{"eventTime":"2026-11-21T04:50:00.000000Z",
		"series":{"count":2,"lastObservedTime":"2026-11-21T04:51:00.000000Z"},"reportingController":"ctl",
		"reportingInstance":"inst","action":"Reconcile","reason":"Synced","regarding":`+ref+`,"note":"synced",
		"type":"Normal","deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`)
	newCore := `{"involvedObject":` + ref + `,"reason":"Synced","message":"synced","source":{},"firstTimestamp":null,
		"lastTimestamp":null,"type":"Normal","eventTime":"2026-11-21T04:50:00.000000Z",
		"series":{"count":2,"lastObservedTime":"2026-11-21T04:51:00.000000Z"},"action":"Reconcile",
		"reportingComponent":"ctl","reportingInstance":"inst"}`
	expectEventBody(t, "new1 through core", f.send(t, "GET", core+"/new1", "", ""), newCore)

	r = f.send(t, "POST", core, "application/json", `{"apiVersion":"v1","kind":"Event","metadata":{"name":"min1"},`+
		`"involvedObject":{"kind":"ConfigMap","namespace":"`+f.ns+`","name":"cm2"},"reason":"R","message":"m"}`)
	expectEventBody(t, "min1 as created", r, `{"involvedObject":{"kind":"ConfigMap","namespace":"`+f.ns+`","name":"cm2"},
		"reason":"R","message":"m","source":{},"firstTimestamp":null,"lastTimestamp":null,"eventTime":null,
		"reportingComponent":"","reportingInstance":""}`)
	expectEventBody(t, "min1 through events.k8s.io", f.send(t, "GET", events+"/min1", "", ""), `{"eventTime":null,
		"reason":"R","regarding":{"kind":"ConfigMap","namespace":"`+f.ns+`","name":"cm2"},"note":"m",
		"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`)

	for _, tc := range []struct{ path, want string }{
		{events, "core1 min1 new1"},
		{core, "core1 min1 new1"},
		{events + "?fieldSelector=regarding.name%3Dcm1", "core1 new1"},
		{events + "?fieldSelector=reportingController%3Dctl", "new1"},
		{core + "?fieldSelector=reportingComponent%3Dctl", "new1"},
		{core + "?fieldSelector=involvedObject.name%3Dcm2", "min1"},
	} {
		r := f.send(t, "GET", tc.path, "", "")
		var list struct {
			Items []struct{ Metadata struct{ Name string } }
		}
		if err := json.Unmarshal(r.body, &list); err != nil || r.code != 200 {
			t.Fatalf("GET %s = %d %s", tc.path, r.code, r.body)
		}
		var names []string
		for _, it := range list.Items {
			names = append(names, it.Metadata.Name)
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("GET %s lists %q, want %q", tc.path, got, tc.want)
		}
	}

	// A change through one API is a MODIFIED event of the other's watch.
	var created struct {
		Metadata struct{ ResourceVersion string }
	}
	json.Unmarshal(f.send(t, "GET", core+"/min1", "", "").body, &created)
	// Through events.k8s.io the first report is immutable (in core
	// names), a series may change.
	r = f.send(t, "PATCH", events+"/min1", "application/merge-patch+json", `{"note":"patched","deprecatedCount":2}`)
	expectStatus(t, "changing note and deprecatedCount through events.k8s.io", r, 422, "Invalid",
		`Event "min1" is invalid: [message: Invalid value: "patched": field is immutable, count: Invalid value: 2: field is immutable]`)
	r = f.send(t, "PATCH", events+"/min1", "application/merge-patch+json", `{"series":{"count":1}}`)
	expectStatus(t, "a series of 1 through events.k8s.io", r, 422, "Invalid",
		`Event "min1" is invalid: [series.count: Invalid value: "": should be at least 2, series.lastObservedTime: Required value]`)
	r = f.send(t, "PATCH", events+"/min1", "application/merge-patch+json",
		`{"series":{"count":2,"lastObservedTime":"2026-11-21T04:51:00.000000Z"}}`)
	expectEventBody(t, "min1 patched", r, `{"eventTime":null,"reason":"R",
		"regarding":{"kind":"ConfigMap","namespace":"`+f.ns+`","name":"cm2"},"note":"m",
		"series":{"count":2,"lastObservedTime":"2026-11-21T04:51:00.000000Z"},
		"deprecatedSource":{},"deprecatedFirstTimestamp":null,"deprecatedLastTimestamp":null}`)
	w := f.send(t, "GET", core+"?watch=1&timeoutSeconds=1&resourceVersion="+created.Metadata.ResourceVersion, "", "")
	sc := bufio.NewScanner(bytes.NewReader(w.body))
	var seen []string
	for sc.Scan() {
		var ev struct {
			Type   string
			Object struct {
				Metadata struct{ Name string }
				Message  string
				Series   struct{ Count int }
			}
		}
		if json.Unmarshal(sc.Bytes(), &ev) == nil {
			seen = append(seen, ev.Type+" "+ev.Object.Metadata.Name+" "+ev.Object.Message)
			if ev.Object.Series.Count != 2 {
				t.Errorf("watched %s, want series count 2", sc.Bytes())
			}
		}
	}
	if got := strings.Join(seen, ", "); got != "MODIFIED min1 m" {
		t.Errorf("core watch saw %q, want the patch through events.k8s.io", got)
	}

	// An update through core is read through events.k8s.io.
	var cur map[string]any
	json.Unmarshal(f.send(t, "GET", core+"/new1", "", "").body, &cur)
	cur["message"] = "replaced"
	body, _ := json.Marshal(cur)
	if r := f.send(t, "PUT", core+"/new1", "application/json", string(body)); r.code != 200 {
		t.Fatalf("update new1 through core = %d %s", r.code, r.body)
	}
	var got struct{ Note string }
	json.Unmarshal(f.send(t, "GET", events+"/new1", "", "").body, &got)
	if got.Note != "replaced" {
		t.Errorf("new1 note after core update = %q, want %q", got.Note, "replaced")
	}

	// Deleting through either API deletes from both.
	for _, tc := range []struct{ del, get string }{{events + "/core1", core + "/core1"}, {core + "/new1", events + "/new1"}} {
		if r := f.send(t, "DELETE", tc.del, "", ""); r.code != 200 {
			t.Fatalf("DELETE %s = %d %s", tc.del, r.code, r.body)
		}
		if r := f.send(t, "GET", tc.get, "", ""); r.code != 404 {
			t.Errorf("GET %s after delete = %d, want 404", tc.get, r.code)
		}
	}
}

// expectEventBody checks that an Event answer holds exactly want's fields
// besides kind, apiVersion and metadata, with want's values and nulls.
func expectEventBody(t *testing.T, what string, r rawResponse, want string) {
	t.Helper()
	if r.code != 200 && r.code != 201 {
		t.Fatalf("%s = %d %s", what, r.code, r.body)
	}
	got := r.object(t)
	for _, k := range []string{"kind", "apiVersion", "metadata"} {
		delete(got, k)
	}
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad want: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		wb, _ := json.Marshal(w)
		t.Errorf("%s:\n got %s\nwant %s", what, g, wb)
	}
}

// testEventValidation checks the validation of Events beyond the schema:
// through events.k8s.io/v1 a create needs an eventTime, a type, the
// reporting fields, an action and a reason, and none of the deprecated
// fields; through either API an Event is in its object's namespace, and
// one with an eventTime names what reported it.
func testEventValidation(t *testing.T, f *fixture) {
	core := "/api/v1/namespaces/" + f.ns + "/events"
	events := "/apis/events.k8s.io/v1/namespaces/" + f.ns + "/events"
	regarding := `"regarding":{"kind":"ConfigMap","namespace":"` + f.ns + `","name":"cm1"}`
	const when = `"eventTime":"2026-11-21T04:50:00.000000Z"`
	const qualifiedNameMsg = `must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character ` +
		`(e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`
	for _, tc := range []struct{ path, name, body, msg string }{
		{events, "bad1", regarding + `,"note":"x"`,
			`[eventTime: Required value, type: Invalid value: "": has invalid value: ]`},
		{events, "bad2", regarding + `,` + when + `,"type":"Normal"`,
			`[reportingController: Required value, reportingController: Invalid value: "": name part must be non-empty, ` +
				`reportingController: Invalid value: "": name part ` + qualifiedNameMsg + `, ` +
				`reportingInstance: Required value, action: Required value, reason: Required value]`},
		{core, "bad4", `"involvedObject":{"kind":"ConfigMap","namespace":"other","name":"cm1"}`,
			`involvedObject.namespace: Invalid value: "other": does not match event.namespace`},
		{core, "bad5", `"involvedObject":{"kind":"ConfigMap","namespace":"` + f.ns + `","name":"cm1"},` + when + `,"reason":"R"`,
			`[reportingComponent: Required value, reportingComponent: Invalid value: "": name part must be non-empty, ` +
				`reportingComponent: Invalid value: "": name part ` + qualifiedNameMsg + `, ` +
				`reportingInstance: Required value, action: Required value]`},
	} {
		r := f.send(t, "POST", tc.path, "application/json", `{"metadata":{"name":"`+tc.name+`"},`+tc.body+`}`)
		expectStatus(t, "create "+tc.name, r, 422, "Invalid", `Event "`+tc.name+`" is invalid: `+tc.msg)
	}
	r := f.send(t, "POST", events, "application/json", `{"metadata":{"name":"bad3"},`+regarding+`,`+when+
		`,"type":"Normal","reportingController":"example.com/ctl","reportingInstance":"i","action":"A","reason":"R",`+
		`"deprecatedCount":3,"deprecatedSource":{"component":"c"}}`)
	expectStatus(t, "create bad3", r, 422, "Invalid",
		`Event "bad3" is invalid: [count: Invalid value: "": needs to be unset, source: Invalid value: "": needs to be unset]`)
}
