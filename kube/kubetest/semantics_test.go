// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"reflect"
	"strings"
	"testing"
	"testing/synctest"
)

func TestFinalizers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		c.mustDo(201, "POST", cmPath, `{"metadata":{"name":"f","finalizers":["example.com/a"]}}`)
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion())
		del := c.mustDo(200, "DELETE", cmPath+"/f", "")
		if del["kind"] != "ConfigMap" || field(del, "metadata.deletionTimestamp") == nil ||
			field(del, "metadata.deletionGracePeriodSeconds") != float64(0) {
			t.Fatalf("DELETE of an object with finalizers = %v, want the object marked deleting", del)
		}
		if e := w.next(); e["type"] != "MODIFIED" {
			t.Errorf("event = %s, want MODIFIED", summary(e))
		}
		again := c.mustDo(200, "DELETE", cmPath+"/f", "")
		if field(again, "metadata.resourceVersion") != field(del, "metadata.resourceVersion") {
			t.Errorf("second DELETE changed the object: rv %v, want %v", field(again, "metadata.resourceVersion"), field(del, "metadata.resourceVersion"))
		}
		rv := field(del, "metadata.resourceVersion").(string)
		r := c.do("PUT", cmPath+"/f", `{"metadata":{"name":"f","resourceVersion":"`+rv+`","finalizers":["example.com/a","example.com/b"]}}`)
		wantMsg := `ConfigMap "f" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/b"}`
		if st := r.json(t); r.code != 422 || st["message"] != wantMsg {
			t.Errorf("adding a finalizer while deleting = %d %q, want 422 %q", r.code, st["message"], wantMsg)
		}
		last := c.mustDo(200, "PUT", cmPath+"/f", `{"metadata":{"name":"f","resourceVersion":"`+rv+`","finalizers":[]}}`)
		if last["kind"] != "ConfigMap" {
			t.Errorf("PUT removing the last finalizer = %v, want the deleted object", last)
		}
		c.mustDo(404, "GET", cmPath+"/f", "")
		if e := w.next(); e["type"] != "DELETED" || field(e, "object.metadata.resourceVersion") != s.CurrentResourceVersion() {
			t.Errorf("event = %s, want DELETED at %s", summary(e), s.CurrentResourceVersion())
		}
	})
}

func TestGenerationAndStatus(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const p = "/apis/apps/v1/namespaces/default/deployments"
	d := c.mustDo(201, "POST", p, `{"metadata":{"name":"d"},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}},"status":{"replicas":5}}`)
	if field(d, "metadata.generation") != float64(1) || !reflect.DeepEqual(d["status"], map[string]any{}) {
		t.Fatalf("created deployment generation %v status %v, want 1 and an empty status", field(d, "metadata.generation"), d["status"])
	}
	rv := field(d, "metadata.resourceVersion").(string)
	d = c.mustDo(200, "PUT", p+"/d", `{"metadata":{"name":"d","resourceVersion":"`+rv+`","labels":{"a":"b"}},"spec":{"replicas":1,"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}},"status":{"replicas":9}}`)
	if field(d, "metadata.generation") != float64(1) || field(d, "status.replicas") != nil {
		t.Errorf("label change: generation %v status %v, want 1 and the status unchanged", field(d, "metadata.generation"), d["status"])
	}
	d = c.mustDo(200, "PUT", p+"/d", `{"metadata":{"name":"d","labels":{"a":"b"}},"spec":{"replicas":2,"template":{"spec":{"containers":[{"name":"c","image":"i"}]}}}}`)
	if field(d, "metadata.generation") != float64(2) {
		t.Errorf("spec change: generation %v, want 2", field(d, "metadata.generation"))
	}
	d = c.mustDo(200, "PUT", p+"/d/status", `{"metadata":{"name":"d","labels":{"ignored":"x"}},"spec":{"replicas":7},"status":{"replicas":2}}`)
	if field(d, "status.replicas") != float64(2) || field(d, "spec.replicas") != float64(2) ||
		field(d, "metadata.labels.ignored") != nil || field(d, "metadata.generation") != float64(2) {
		t.Errorf("status update = %v, want only the status changed", d)
	}
	mf := field(d, "metadata.managedFields").([]any)
	if last := mf[len(mf)-1].(map[string]any); last["subresource"] != "status" || last["manager"] != "curl" {
		t.Errorf("managedFields after a status update = %v, want an entry for subresource status", mf)
	}
	d = c.mustDo(200, "PATCH", p+"/d/status", `{"status":{"replicas":3}}`, "Content-Type", "application/merge-patch+json")
	if field(d, "status.replicas") != float64(3) {
		t.Errorf("status patch: status %v", d["status"])
	}
	cm := createCM(c, "nogen", "")
	if field(cm, "metadata.generation") != nil {
		t.Errorf("ConfigMap has generation %v, want none", field(cm, "metadata.generation"))
	}
	if r := c.do("GET", cmPath+"/nogen/status", ""); r.code != 404 {
		t.Errorf("GET configmaps/status = %d, want 404", r.code)
	}
}

func TestNoOpUpdateWritesNothing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		cm := createCM(c, "a", `{"x":"y"}`)
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion())
		same := c.mustDo(200, "PUT", cmPath+"/a", `{"metadata":{"name":"a","labels":{"x":"y"}},"data":{"k":"v"}}`)
		if field(same, "metadata.resourceVersion") != field(cm, "metadata.resourceVersion") {
			t.Errorf("no-op PUT moved resourceVersion %v -> %v", field(cm, "metadata.resourceVersion"), field(same, "metadata.resourceVersion"))
		}
		c.mustDo(200, "PATCH", cmPath+"/a", `{"data":{"k":"v"}}`, "Content-Type", "application/merge-patch+json")
		if lines, _ := w.pending(); len(lines) != 0 {
			t.Errorf("no-op writes sent %q", lines)
		}
	})
}

func TestWriteErrors(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	for _, tc := range []struct {
		name, method, path, body string
		code                     int
		msg                      string
	}{
		{"namespace mismatch", "POST", cmPath, `{"metadata":{"name":"b","namespace":"other"}}`, 400,
			"the namespace of the provided object does not match the namespace sent on the request"},
		{"missing namespace", "POST", "/api/v1/namespaces/nope/configmaps", `{"metadata":{"name":"b"}}`, 404, `namespaces "nope" not found`},
		{"name mismatch", "PUT", cmPath + "/a", `{"metadata":{"name":"b"}}`, 400,
			"the name of the object (b) does not match the name on the URL (a)"},
		{"no name", "POST", cmPath, `{"metadata":{}}`, 422,
			`ConfigMap "" is invalid: metadata.name: Required value: name or generateName is required`},
		{"resourceVersion on create", "POST", cmPath, `{"metadata":{"name":"b","resourceVersion":"5"}}`, 500,
			"resourceVersion should not be set on objects to be created"},
		{"update of a missing object", "PUT", cmPath + "/missing", `{"metadata":{"name":"missing"}}`, 404, `configmaps "missing" not found`},
		{"namespace name", "POST", "/api/v1/namespaces", `{"metadata":{"name":"a.b"}}`, 422,
			`Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"label value", "POST", cmPath, `{"metadata":{"name":"b","labels":{"a":"b c"}}}`, 422,
			`ConfigMap "b" is invalid: metadata.labels: Invalid value: "b c": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`},
		{"wrong kind", "POST", cmPath, `{"kind":"Secret","apiVersion":"v1","metadata":{"name":"b"}}`, 400, ""},
		{"content type", "POST", cmPath, `name: b`, 415,
			"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf"},
		{"post to a name", "POST", cmPath + "/a", `{"metadata":{"name":"a"}}`, 405, ""},
		{"immortal namespace", "DELETE", "/api/v1/namespaces/default", "", 403,
			`namespaces "default" is forbidden: this namespace may not be deleted`},
		{"precondition uid", "DELETE", cmPath + "/a", `{"preconditions":{"uid":"x"}}`, 409, ""},
		{"propagation policy", "DELETE", cmPath + "/a", `{"propagationPolicy":"Sideways"}`, 422, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h []string
			if tc.name == "content type" {
				h = []string{"Content-Type", "text/plain"}
			}
			r := c.do(tc.method, tc.path, tc.body, h...)
			st := r.json(t)
			if r.code != tc.code || (tc.msg != "" && st["message"] != tc.msg) || st["kind"] != "Status" {
				t.Errorf("%s %s = %d %q, want %d %q", tc.method, tc.path, r.code, st["message"], tc.code, tc.msg)
			}
		})
	}
}

func TestDeletePreconditions(t *testing.T) {
	_, c := newTestServer(t, Options{})
	cm := createCM(c, "a", "")
	uid, rv := field(cm, "metadata.uid").(string), field(cm, "metadata.resourceVersion").(string)
	r := c.do("DELETE", cmPath+"/a", `{"preconditions":{"resourceVersion":"1"}}`)
	want := `Operation cannot be fulfilled on ConfigMap "a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (` +
		rv + `). The object might have been modified`
	if st := r.json(t); r.code != 409 || st["reason"] != "Conflict" || st["message"] != want {
		t.Errorf("DELETE with a stale resourceVersion = %d %q, want 409 %q", r.code, st["message"], want)
	}
	r = c.do("DELETE", cmPath+"/a", `{"preconditions":{"uid":"other"}}`)
	want = `Operation cannot be fulfilled on ConfigMap "a": the UID in the precondition (other) does not match the UID in record (` +
		uid + `). The object might have been deleted and then recreated`
	if st := r.json(t); r.code != 409 || st["message"] != want {
		t.Errorf("DELETE with another uid = %d %q, want 409 %q", r.code, st["message"], want)
	}
	c.mustDo(200, "DELETE", cmPath+"/a", `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":{"uid":"`+uid+`","resourceVersion":"`+rv+`"},"propagationPolicy":"Background"}`)
}

func TestUnconditionalUpdate(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	got := c.mustDo(200, "PUT", cmPath+"/a", `{"metadata":{"name":"a"},"data":{"k":"new"}}`)
	if field(got, "data.k") != "new" {
		t.Errorf("PUT without resourceVersion = %v", got)
	}
	lease := c.mustDo(201, "PUT", "/apis/coordination.k8s.io/v1/namespaces/default/leases/l", `{"metadata":{"name":"l"},"spec":{"holderIdentity":"a"}}`)
	if field(lease, "spec.holderIdentity") != "a" {
		t.Errorf("PUT of a missing lease = %v, want it created", lease)
	}
}

func TestDryRun(t *testing.T) {
	s, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	before := s.CurrentResourceVersion()
	for _, tc := range []struct {
		method, path, body, ct string
		code                   int
	}{
		{"POST", cmPath + "?dryRun=All", `{"metadata":{"name":"b"}}`, "", 201},
		{"PUT", cmPath + "/a?dryRun=All", `{"metadata":{"name":"a"},"data":{"k":"dry"}}`, "", 200},
		{"PATCH", cmPath + "/a?dryRun=All", `{"data":{"k":"dry"}}`, "application/merge-patch+json", 200},
		{"DELETE", cmPath + "/a?dryRun=All", "", "", 200},
		{"DELETE", cmPath + "/a", `{"dryRun":["All"]}`, "", 200},
	} {
		var h []string
		if tc.ct != "" {
			h = []string{"Content-Type", tc.ct}
		}
		if r := c.do(tc.method, tc.path, tc.body, h...); r.code != tc.code {
			t.Errorf("%s %s = %d %s, want %d", tc.method, tc.path, r.code, r.body, tc.code)
		}
	}
	if after := s.CurrentResourceVersion(); after != before {
		t.Errorf("dry runs moved the resourceVersion from %s to %s", before, after)
	}
	c.mustDo(404, "GET", cmPath+"/b", "")
	if got := c.mustDo(200, "GET", cmPath+"/a", ""); field(got, "data.k") != "v" {
		t.Errorf("after dry runs a = %v", got)
	}
	if r := c.do("POST", cmPath+"?dryRun=Some", `{"metadata":{"name":"b"}}`); r.code != 422 {
		t.Errorf("dryRun=Some = %d, want 422", r.code)
	}
}

func TestDeleteCollection(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", `{"app":"x"}`)
	createCM(c, "b", `{"app":"x"}`)
	createCM(c, "c", `{"app":"y"}`)
	got := c.mustDo(200, "DELETE", cmPath+"?labelSelector=app%3Dx", "")
	if got["kind"] != "ConfigMapList" || strings.Join(names(got), ",") != "a,b" {
		t.Errorf("deletecollection = %v, want a ConfigMapList of a and b", got)
	}
	if left := names(c.mustDo(200, "GET", cmPath, "")); strings.Join(left, ",") != "c" {
		t.Errorf("left %v, want [c]", left)
	}
}

func TestNamespaceDeletion(t *testing.T) {
	_, c := newTestServer(t, Options{})
	ns := c.mustDo(201, "POST", "/api/v1/namespaces", `{"metadata":{"name":"doomed"}}`)
	if field(ns, "metadata.labels.kubernetes.io/metadata.name") != nil {
		t.Log("label read through a dotted path; checked below")
	}
	labels, _ := field(ns, "metadata.labels").(map[string]any)
	if labels["kubernetes.io/metadata.name"] != "doomed" || field(ns, "status.phase") != "Active" ||
		!reflect.DeepEqual(field(ns, "spec.finalizers"), []any{"kubernetes"}) {
		t.Fatalf("created namespace = %v", ns)
	}
	const p = "/api/v1/namespaces/doomed/configmaps"
	c.mustDo(201, "POST", p, `{"metadata":{"name":"plain"}}`)
	c.mustDo(201, "POST", p, `{"metadata":{"name":"held","finalizers":["example.com/x"]}}`)
	del := c.mustDo(200, "DELETE", "/api/v1/namespaces/doomed", "")
	if field(del, "status.phase") != "Terminating" || field(del, "metadata.deletionTimestamp") == nil {
		t.Fatalf("DELETE namespace = %v, want it Terminating", del)
	}
	c.mustDo(404, "GET", p+"/plain", "")
	held := c.mustDo(200, "GET", p+"/held", "")
	if field(held, "metadata.deletionTimestamp") == nil {
		t.Errorf("object with a finalizer = %v, want it marked deleting", held)
	}
	c.mustDo(200, "GET", "/api/v1/namespaces/doomed", "")
	r := c.do("POST", p, `{"metadata":{"name":"late"}}`)
	wantMsg := `configmaps "late" is forbidden: unable to create new content in namespace doomed because it is being terminated`
	if st := r.json(t); r.code != 403 || st["message"] != wantMsg {
		t.Errorf("create in a terminating namespace = %d %q, want 403 %q", r.code, st["message"], wantMsg)
	}
	c.mustDo(200, "PATCH", p+"/held", `{"metadata":{"finalizers":null}}`, "Content-Type", "application/merge-patch+json")
	c.mustDo(404, "GET", p+"/held", "")
	c.mustDo(404, "GET", "/api/v1/namespaces/doomed", "")
}

// TestSeededNamespaces compares the initial namespaces with the capture of
// a fresh real server (whose field manager was called "kas").
func TestSeededNamespaces(t *testing.T) {
	_, c := newTestServer(t, Options{})
	want := wireCaptures(t, "25-unauthorized.txt")[0]
	got := c.do("GET", "/api/v1/namespaces", "")
	sameShape(t, "25", got.body, []byte(strings.ReplaceAll(string(want.body), `"kas"`, `"kube-apiserver"`)))
}

func TestManagedFieldsOwnership(t *testing.T) {
	_, c := newTestServer(t, Options{})
	c.mustDo(201, "POST", cmPath, `{"metadata":{"name":"m"},"data":{"a":"1","b":"2"}}`)
	got := c.mustDo(200, "PATCH", cmPath+"/m?fieldManager=other", `{"data":{"b":"3"}}`, "Content-Type", "application/merge-patch+json")
	mf := field(got, "metadata.managedFields").([]any)
	if len(mf) != 2 {
		t.Fatalf("managedFields = %v, want two entries", mf)
	}
	curl, other := mf[0].(map[string]any), mf[1].(map[string]any)
	wantCurl := map[string]any{"f:data": map[string]any{".": map[string]any{}, "f:a": map[string]any{}}}
	wantOther := map[string]any{"f:data": map[string]any{"f:b": map[string]any{}}}
	if curl["manager"] != "curl" || !reflect.DeepEqual(curl["fieldsV1"], wantCurl) {
		t.Errorf("first entry = %v, want curl owning data and data.a", curl)
	}
	if other["manager"] != "other" || other["operation"] != "Update" || !reflect.DeepEqual(other["fieldsV1"], wantOther) {
		t.Errorf("second entry = %v, want other owning data.b", other)
	}
}
