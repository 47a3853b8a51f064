// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// fuzzDo serves one request and checks the form every answer has: never
// a 5xx but those the real server answers (504 for a resourceVersion not
// reached yet; 500 for a get or watch whose resourceVersion is not a
// number, for an apply configuration its schema cannot type, for a
// strategic merge patch its merge refuses and for a malformed
// shardSelector), always JSON, and a failure is a Status with the same
// code. It returns the code and body.
func fuzzDo(t *testing.T, s *kubetest.Server, ctx context.Context, method, target, contentType string, body []byte) (int, []byte) {
	t.Helper()
	path, query, _ := strings.Cut(target, "?")
	req := httptest.NewRequestWithContext(ctx, method, path, bytes.NewReader(body))
	req.URL.RawQuery = query // as sent, even where a request line could not carry it
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	out := rec.Body.Bytes()
	// The 5xx the real server answers a request with: 504 for a
	// resourceVersion it has not reached, 500 for one that is not a
	// number on a get or watch (its storage's error), 500 for an apply
	// configuration that does not fit the kind's schema, and 500 for a
	// malformed shardSelector.
	tooLarge := rec.Code == 504 && bytes.Contains(out, []byte(`"reason":"ResourceVersionTooLarge"`))
	badRV := rec.Code == 500 && method == http.MethodGet && bytes.Contains(out, []byte(`"message":"resourceVersion: Invalid value: `))
	untyped := rec.Code == 500 && contentType == "application/apply-patch+yaml" &&
		bytes.Contains(out, []byte(`"message":"failed to create typed patch object (`))
	// A strategic merge the real server's merge refuses: 500 without a
	// reason.
	unmerged := rec.Code == 500 && contentType == "application/strategic-merge-patch+json" &&
		!bytes.Contains(out, []byte(`"reason"`))
	badShard := rec.Code == 500 && bytes.Contains(out, []byte(`"message":"invalid shard selector: `))
	if rec.Code >= 500 && !tooLarge && !badRV && !untyped && !unmerged && !badShard {
		t.Fatalf("%s %s %q: %d %s", method, target, body, rec.Code, out)
	}
	if rec.Code >= 400 {
		var st kube.Status
		if err := json.Unmarshal(out, &st); err != nil || st.Kind != "Status" || int(st.Code) != rec.Code || st.Message == "" {
			t.Fatalf("%s %s %q: %d %s, want a Status saying %d (%v)", method, target, body, rec.Code, out, rec.Code, err)
		}
	}
	return rec.Code, out
}

// applyTargets are the objects FuzzApply applies to: a ConfigMap and a
// Deployment, each made by one manager's apply and changed by another's
// update, so that the fuzzed apply meets owned fields.
var applyTargets = []struct {
	path, first, update string
}{
	{"/api/v1/namespaces/default/configmaps/cm",
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","labels":{"a":"1"},"annotations":{"n":"x"}},"data":{"k":"v","owned":"first"}}`,
		`{"data":{"edited":"1"},"metadata":{"labels":{"b":"2"},"finalizers":["example.com/f"]}}`},
	{"/apis/apps/v1/namespaces/default/deployments/d",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
		`{"spec":{"replicas":3,"paused":true}}`},
}

// FuzzApply sends arbitrary server-side apply bodies (JSON or the YAML
// subset), as one of three managers, with and without force, to objects
// other managers own fields of, or to objects that do not exist yet; see
// checkWrite for what the answers must be.
func FuzzApply(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm"},"data":{"owned":"second"}}`,
		"apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  labels:\n    a: \"2\"\ndata:\n  k: v\n  n: 3\n",
		"metadata:\n  name: cm\n  finalizers: [x, y]\n  ownerReferences:\n  - {apiVersion: v1, kind: K, name: n, uid: u1}\ndata: {k: ~}\n",
		"metadata: {name: cm, managedFields: []}\n",
		"metadata: {name: other}\n",
		"kind: Secret\n",
		"data: {c: 1e400, d: -.5}\n",
		"spec: {replicas: 2, template: {spec: {containers: [{name: c, image: j}]}}}\nstatus: {replicas: 9}\n",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"replicas":-1,"selector":null}}`,
		"- a\n- b\n", `[]`, `null`, ``, "{", "a: [\n",
	} {
		for kind := range byte(4) {
			f.Add([]byte(s), kind, byte(1), false)
			f.Add([]byte(s), kind, byte(0), true)
		}
	}
	managers := []string{"first", "second", "editor"}
	var servers writeServers
	f.Cleanup(servers.close)
	f.Fuzz(func(t *testing.T, body []byte, kind, manager byte, force bool) {
		q := url.Values{"fieldManager": {managers[int(manager)%len(managers)]}}
		if force {
			q.Set("force", "true")
		}
		checkWrite(t, &servers, kind, http.MethodPatch, q.Encode(), "application/apply-patch+yaml", body)
	})
}

// FuzzWrite sends arbitrary bodies as updates (PUT), merge, JSON and
// strategic merge patches to the objects of FuzzApply; see checkWrite.
func FuzzWrite(f *testing.F) {
	for _, s := range [][2]string{
		{"update", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","managedFields":[{"manager":"x","operation":"Bogus"}]},"data":{"k":"put"}}`},
		{"update", `{"metadata":{"name":"cm","resourceVersion":"1"},"data":{"k":1}}`},
		{"update", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","labels":{"a":"b"}},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"a"}},"template":{"metadata":{"labels":{"app":"a"}},"spec":{"containers":[{"name":"c","image":"i2"}]}}}}`},
		{"merge", `{"data":{"k":null,"new":"1"},"metadata":{"labels":{"a":null},"managedFields":null}}`},
		{"merge", `{"metadata":{"finalizers":null,"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u"}]}}`},
		{"merge", `{"spec":{"replicas":"three"}}`},
		{"json", `[{"op":"replace","path":"/data/k","value":"jp"},{"op":"add","path":"/metadata/labels/x","value":"y"}]`},
		{"json", `[{"op":"test","path":"/data/k","value":"nope"}]`},
		{"json", `[{"op":"remove","path":"/metadata"}]`},
		{"json", `[{"op":"replace","path":"/metadata/managedFields","value":[{"manager":7}]}]`},
		{"strategic", `{"spec":{"template":{"spec":{"containers":[{"name":"c","image":"s"}]}}}}`},
		{"strategic", `{"$patch":"replace"}`},
		{"strategic", `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"n"},{"name":"c"}],"containers":[{"name":"n","image":"i","env":[{"name":"e","$patch":"delete"}]},{"name":"c","ports":[{"containerPort":80,"$patch":"replace"}]}]}}}}`},
		{"strategic", `{"metadata":{"$retainKeys":["name","finalizers"],"$deleteFromPrimitiveList/finalizers":["a"],"$setElementOrder/finalizers":["b"]},"data":{"$patch":"delete"}}`},
	} {
		verb := byte(slices.Index(writeVerbs, s[0]))
		for kind := range byte(4) {
			f.Add([]byte(s[1]), kind, verb)
		}
	}
	var servers writeServers
	f.Cleanup(servers.close)
	f.Fuzz(func(t *testing.T, body []byte, kind, verb byte) {
		method, contentType := http.MethodPatch, ""
		switch writeVerbs[int(verb)%len(writeVerbs)] {
		case "update":
			method, contentType = http.MethodPut, "application/json"
		case "merge":
			contentType = "application/merge-patch+json"
		case "json":
			contentType = "application/json-patch+json"
		case "strategic":
			contentType = "application/strategic-merge-patch+json"
		}
		checkWrite(t, &servers, kind, method, "fieldManager=second", contentType, body)
	})
}

var writeVerbs = []string{"update", "merge", "json", "strategic"}

// checkWrite serves one write to a server holding (for kind 0 and 1) the
// object of applyTargets[kind%2], made by one manager's apply and changed
// by another's update, or (kind 2 and 3) nothing, as a fresh server does.
// The answer is never a 5xx and a failure is a Status; a failure changes
// nothing; a success answers the object as a read then gives it, with
// managedFields entries that are well formed and one per manager and
// operation.
func checkWrite(t *testing.T, servers *writeServers, kind byte, method, query, contentType string, body []byte) {
	t.Helper()
	target := applyTargets[int(kind)%len(applyTargets)]
	ctx := context.Background()
	s, before := servers.take(t, int(kind)%len(servers.s))
	code, out := fuzzDo(t, s, ctx, method, target.path+"?"+query, contentType, body)
	_, after := fuzzDo(t, s, ctx, http.MethodGet, target.path, "", nil)
	if code >= 400 {
		if !bytes.Equal(before, after) {
			t.Fatalf("%s %s %q failed (%d %s) but changed the object:\n%s\nto\n%s", method, contentType, body, code, out, before, after)
		}
	} else {
		if !bytes.Equal(out, after) {
			t.Fatalf("%s %s %q answered\n%s\nthen a read gives\n%s", method, contentType, body, out, after)
		}
		checkManagedFields(t, body, after)
	}
	if bytes.Equal(before, after) && !t.Failed() {
		servers.put(int(kind)%len(servers.s), s, before)
	} else {
		s.Close()
	}
}

// writeServers keeps a server in each of checkWrite's four starting
// states, to be used again while the inputs leave the object as they
// found it, as every failure must. A new server, its bootstrap and the two
// writes that make the object took most of an input's time, and most
// inputs fail: FuzzWrite ran 5 times the inputs a second with them kept.
//
// An input that panics or fails a check never gives its server back: the
// next input starts on a new one. Inputs run one at a time (no
// t.Parallel), so s needs no lock.
type writeServers struct {
	s      [4]*kubetest.Server // nil: none kept; make one
	before [4][]byte           // what a read of the state's object gives on s[i]
}

// take returns the kept server for state i, or a new one brought to that
// state, with what a read of the object gives there.
func (w *writeServers) take(t *testing.T, i int) (*kubetest.Server, []byte) {
	t.Helper()
	if s := w.s[i]; s != nil {
		w.s[i] = nil
		return s, w.before[i]
	}
	target := applyTargets[i%len(applyTargets)]
	ctx := context.Background()
	// Not closed on a failure: a panic in a handler can leave the
	// server's lock held, and Close would then hang instead of the panic
	// being reported. New starts no goroutine to leak.
	s := kubetest.New(kubetest.Options{})
	if i < 2 {
		if code, out := fuzzDo(t, s, ctx, http.MethodPatch, target.path+"?fieldManager=first", "application/apply-patch+yaml", []byte(target.first)); code != 201 {
			t.Fatalf("seed apply: %d %s", code, out)
		}
		if code, out := fuzzDo(t, s, ctx, http.MethodPatch, target.path+"?fieldManager=editor", "application/merge-patch+json", []byte(target.update)); code != 200 {
			t.Fatalf("seed update: %d %s", code, out)
		}
	}
	_, before := fuzzDo(t, s, ctx, http.MethodGet, target.path, "", nil)
	return s, before
}

// put keeps s, whose object reads as before, for the next input starting
// in state i.
func (w *writeServers) put(i int, s *kubetest.Server, before []byte) {
	w.s[i], w.before[i] = s, before
}

// close closes the kept servers.
func (w *writeServers) close() {
	for i, s := range w.s {
		if s != nil {
			s.Close()
			w.s[i] = nil
		}
	}
}

// checkManagedFields checks the managedFields of an object as the real
// server keeps them: entries with an operation (Apply or Update), an
// apiVersion, a time in RFC 3339 if any (an apply that changed nothing
// leaves a new manager's entry without one), fieldsType FieldsV1 and a
// non-empty fieldsV1 object, one per manager, operation, subresource and,
// for Update, apiVersion.
func checkManagedFields(t *testing.T, body, raw []byte) {
	t.Helper()
	var o struct {
		Metadata struct {
			ManagedFields []map[string]any `json:"managedFields"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		t.Fatalf("after %q the object %s does not decode: %v", body, raw, err)
	}
	seen := map[string]bool{}
	for _, e := range o.Metadata.ManagedFields {
		mgr, _ := e["manager"].(string)
		op, _ := e["operation"].(string)
		av, _ := e["apiVersion"].(string)
		tm, _ := e["time"].(string)
		ft, _ := e["fieldsType"].(string)
		fv, _ := e["fieldsV1"].(map[string]any)
		sub, _ := e["subresource"].(string)
		_, timeErr := time.Parse(time.RFC3339, tm)
		if (op != "Apply" && op != "Update") || av == "" || (e["time"] != nil && timeErr != nil) || ft != "FieldsV1" || len(fv) == 0 {
			t.Fatalf("after %q a managedFields entry is malformed: %v", body, e)
		}
		key := mgr + "\x00" + op + "\x00" + sub
		if op == "Update" {
			key += "\x00" + av
		}
		if seen[key] {
			t.Fatalf("after %q managedFields has two entries for %s %s: %s", body, mgr, op, raw)
		}
		seen[key] = true
	}
}

// FuzzListQuery sends list and watch requests with arbitrary query
// strings to a server holding a few labelled ConfigMaps. The answer is
// never a 5xx and a failure is a Status. A list answered 200 holds only
// objects the whole list holds, each matching the label and field
// selectors asked for, and no more than the limit.
func FuzzListQuery(f *testing.F) {
	for _, q := range []string{
		"limit=2", "labelSelector=app%3Ddemo%2Cidx+in+(1%2C2)", "fieldSelector=metadata.name%3Dcm3",
		"labelSelector=idx>1,!gone&fieldSelector=metadata.namespace!=x,metadata.name==cm2",
		"limit=1&continue=eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MjgxLCJzdGFydCI6Ii9jbTJcdTAwMDAifQ",
		"resourceVersion=5&resourceVersionMatch=Exact", "resourceVersion=0&resourceVersionMatch=NotOlderThan",
		"labelSelector=a+in+(", "fieldSelector=spec.x%3D1", "limit=-3&timeoutSeconds=x", "resourceVersion=18446744073709551616",
		"watch=1&allowWatchBookmarks=true&resourceVersion=1", "watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&labelSelector=app%3Ddemo",
		"watch=true&sendInitialEvents=false", "watch=1&resourceVersion=0&timeoutSeconds=-1",
		"shardSelector=shardRange(object.metadata.uid%2C+%270x0000000000000000%27%2C+%270x8000000000000000%27)&limit=2",
		"shardSelector=shardRange(object.metadata.uid%2C+%270x0%27%2C+%270x1%27)", "watch=1&shardSelector=%7C%7C",
	} {
		f.Add(q)
	}
	s := kubetest.New(kubetest.Options{HistorySize: 4})
	f.Cleanup(s.Close)
	for i := range 6 {
		labels := fmt.Sprintf(`{"app":"demo","idx":"%d"}`, i)
		if i%3 == 0 {
			labels = `{"app":"other"}`
		}
		body := fmt.Sprintf(`{"metadata":{"name":"cm%d","labels":%s},"data":{"k":"v"}}`, i, labels)
		req := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/default/configmaps", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 201 {
			f.Fatalf("seed %s: %d %s", body, rec.Code, rec.Body)
		}
	}
	const path = "/api/v1/namespaces/default/configmaps"
	type list struct {
		Kind     string `json:"kind"`
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []struct {
			Metadata struct {
				Name, Namespace string
				Labels          map[string]string
			} `json:"metadata"`
		} `json:"items"`
	}
	var whole list
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	if err := json.Unmarshal(rec.Body.Bytes(), &whole); err != nil || len(whole.Items) != 6 {
		f.Fatalf("whole list: %s (%v)", rec.Body, err)
	}
	all := map[string]bool{}
	for _, it := range whole.Items {
		all[it.Metadata.Name] = true
	}
	done, cancel := context.WithCancel(context.Background())
	cancel() // a watch ends as soon as it has started
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		ctx := context.Background()
		if q.Has("watch") {
			ctx = done
		}
		code, out := fuzzDo(t, s, ctx, http.MethodGet, path+"?"+query, "", nil)
		if code != 200 || q.Has("watch") {
			return
		}
		var l list
		if err := json.Unmarshal(out, &l); err != nil || l.Kind != "ConfigMapList" {
			t.Fatalf("list ?%s: %s is not a ConfigMapList (%v)", query, out, err)
		}
		ls, lerr := kube.ParseSelector(q.Get("labelSelector"))
		fs, ferr := kube.ParseFieldSelector(q.Get("fieldSelector"))
		if lerr != nil || ferr != nil {
			t.Fatalf("list ?%s answered 200 with selectors that do not parse: %v, %v", query, lerr, ferr)
		}
		for _, it := range l.Items {
			m := it.Metadata
			if !all[m.Name] || m.Namespace != "default" {
				t.Fatalf("list ?%s holds %s/%s, which the whole list does not", query, m.Namespace, m.Name)
			}
			if !ls.Matches(m.Labels) || !fs.Matches(map[string]string{"metadata.name": m.Name, "metadata.namespace": m.Namespace}) {
				t.Fatalf("list ?%s holds %s, labels %v, which the selectors do not match", query, m.Name, m.Labels)
			}
		}
		if n, err := strconv.ParseInt(q.Get("limit"), 10, 64); err == nil && n > 0 {
			if int64(len(l.Items)) > n {
				t.Fatalf("list ?%s: %d items, limit %d", query, len(l.Items), n)
			}
		}
	})
}
