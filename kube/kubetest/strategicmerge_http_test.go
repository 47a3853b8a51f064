// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/testjson"
)

const deployPath = "/apis/apps/v1/namespaces/default/deployments"

// createDeployment creates Deployment d with containers c1 (env A and B,
// port 80) and c2.
func createDeployment(t *testing.T, c *client) {
	t.Helper()
	must(t, c, 201, "POST", deployPath, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},
"spec":{"selector":{"matchLabels":{"app":"d"}},"strategy":{"type":"RollingUpdate"},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[
{"name":"c1","image":"nginx","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80,"protocol":"TCP"}]},
{"name":"c2","image":"busybox"}]}}}}`)
}

// TestStrategicMergeKubectlApply: the patch a second kubectl apply sends
// (its annotation, $setElementOrder, a changed image) merges the container
// by name: env and ports stay, and no directive is stored.
func TestStrategicMergeKubectlApply(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createDeployment(t, c)
	got := must(t, c, 200, "PATCH", deployPath+"/d", `{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\n"}},
"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c1"},{"name":"c2"}],"containers":[{"image":"nginx:2","name":"c1"}]}}}}`,
		"Content-Type", ctSMP).json(t)
	if strings.Contains(string(encode.Object(got)), "$setElementOrder") {
		t.Errorf("the directive was stored: %v", got)
	}
	c1 := testjson.At(got, "spec.template.spec.containers.0")
	want := testjson.Decode(t, `{"name":"c1","image":"nginx:2","env":[{"name":"A","value":"1"},{"name":"B","value":"2"}],"ports":[{"containerPort":80,"protocol":"TCP"}],
"imagePullPolicy":"Always","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}`)
	if g, w := encodeValue(c1), encodeValue(want); g != w {
		t.Errorf("container c1 = %s, want %s", g, w)
	}
	if n := testjson.ItemNames(testjson.At(got, "spec.template.spec.containers").([]any)); !reflect.DeepEqual(n, []any{"c1", "c2"}) {
		t.Errorf("containers %v, want [c1 c2]", n)
	}
	ann, _ := testjson.At(got, "metadata.annotations").(obj)
	if ann["kubectl.kubernetes.io/last-applied-configuration"] != "{}\n" {
		t.Errorf("annotations %v, want the last-applied configuration", ann)
	}
}

// TestStrategicMergeDirectivesAreNotData: {"$patch": "replace"} replaces,
// it is not stored; of the whole object it leaves no name, which the real
// server refuses.
func TestStrategicMergeDirectivesAreNotData(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", `{"a":"b"}`)
	got := must(t, c, 200, "PATCH", cmPath+"/a", `{"data":{"$patch":"replace","n":"1"},"metadata":{"labels":{"$patch":"replace","x":"y"}}}`, "Content-Type", ctSMP).json(t)
	if !reflect.DeepEqual(got["data"], obj{"n": "1"}) || !reflect.DeepEqual(testjson.At(got, "metadata.labels"), obj{"x": "y"}) {
		t.Errorf("after $patch replace: data %v labels %v, want {n: 1} and {x: y}", got["data"], testjson.At(got, "metadata.labels"))
	}
	r := c.do("PATCH", cmPath+"/a", `{"$patch":"replace"}`, "Content-Type", ctSMP)
	if st := r.json(t); r.code != 400 || st["message"] != "the name of the object (a based on URL) was undeterminable: name must be provided" {
		t.Errorf("$patch replace of the object = %d %s, want 400 name must be provided", r.code, r.body)
	}
	if d := must(t, c, 200, "GET", cmPath+"/a", "").json(t)["data"]; !reflect.DeepEqual(d, obj{"n": "1"}) {
		t.Errorf("data after a refused patch = %v", d)
	}
}

// TestStrategicMergeAnswers: how the server answers strategic merge
// patches it cannot apply, and the bodies it reads, as kube-apiserver.
func TestStrategicMergeAnswers(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createDeployment(t, c)
	for _, tc := range []struct {
		body   string
		code   int
		reason string
		msg    string
	}{
		{`{"spec":{"template":{"spec":{"containers":[{"image":"z"}]}}}}`, 500, "", "map: map[image:z] does not contain declared merge key: name"},
		{`{"spec":{"strategy":{"$retainKeys":["rollingUpdate"],"type":"Recreate"}}}`, 400, "BadRequest", "invalid patch format of retainKeys"},
	} {
		r := c.do("PATCH", deployPath+"/d", tc.body, "Content-Type", ctSMP)
		st := r.json(t)
		if r.code != tc.code || (tc.code != 200 && (st["reason"] != nilIfEmpty(tc.reason) || st["message"] != tc.msg)) {
			t.Errorf("patch %s = %d %s, want %d %q %q", tc.body, r.code, r.body, tc.code, tc.reason, tc.msg)
		}
	}
	// With Strict, an unknown field is an error that quotes the patch as
	// the merge left it; a directive left in an added item is an unknown
	// field too: a warning by default.
	r := c.do("PATCH", deployPath+"/d?fieldValidation=Strict", `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"c1"},{"name":"c2"}],"containers":[{"name":"c1","bogus":1}]}}}}`, "Content-Type", ctSMP)
	const want = ` "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[]]]]": strict decoding error: unknown field "spec.template.spec.containers[0].bogus"`
	if st := r.json(t); r.code != 422 || st["message"] != want {
		t.Errorf("Strict patch with an unknown field = %d %s, want 422 %s", r.code, r.body, want)
	}
	r = c.do("PATCH", deployPath+"/d", `{"spec":{"template":{"spec":{"containers":[{"name":"c3","image":"x","env":[{"name":"E","$patch":"delete"}]}]}}}}`, "Content-Type", ctSMP)
	if w := r.header.Values("Warning"); r.code != 200 || len(w) != 1 || !strings.Contains(w[0], `unknown field \"spec.template.spec.containers[0].env[0].$patch\"`) {
		t.Errorf("leftover directive = %d, warnings %q", r.code, w)
	}
	if env := testjson.At(r.json(t), "spec.template.spec.containers.0.env"); !reflect.DeepEqual(env, []any{obj{"name": "E"}}) {
		t.Errorf("env of the added container = %v, want [{name: E}]", env)
	}
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// TestPatchBodies: merge and strategic merge patch bodies that are not
// JSON objects, answered in kube-apiserver's words.
func TestPatchBodies(t *testing.T) {
	_, c := newTestServer(t, Options{})
	createCM(c, "a", "")
	for _, tc := range []struct {
		ct, body string
		code     int
		msg      string
	}{
		{ctMerge, `[1]`, 400, "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{ctMerge, `"x"`, 400, "error decoding patch: json: cannot unmarshal string into Go value of type map[string]interface {}"},
		{ctMerge, `{bad`, 400, "error decoding patch: invalid character 'b' looking for beginning of object key string"},
		{ctMerge, `null`, 400, "Invalid JSON Patch"},
		{ctSMP, `[1]`, 400, "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{ctSMP, `1`, 400, "json: cannot unmarshal number into Go value of type map[string]interface {}"},
		{ctSMP, `{"data":{"a":"1"}} x`, 400, "invalid character 'x' after top-level value"},
		{ctSMP, ``, 400, "unexpected end of JSON input"},
		{ctSMP, `null`, 200, ""},
	} {
		r := c.do("PATCH", cmPath+"/a", tc.body, "Content-Type", tc.ct)
		if st := r.json(t); r.code != tc.code || (tc.code != 200 && (st["reason"] != "BadRequest" || st["message"] != tc.msg)) {
			t.Errorf("%s %q = %d %s, want %d %q", tc.ct, tc.body, r.code, r.body, tc.code, tc.msg)
		}
	}
}

// encodeValue is v in JSON, keys sorted: the client decodes numbers as
// float64, the server's decoding holds integers as int64.
func encodeValue(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestPatchServesOthersMeanwhile checks that a strategic merge patch is
// computed without the server's lock: while it is (the patchComputed
// hook), another request is served and another write to the same object
// commits; the patch then applies again to the new state, as
// kube-apiserver's patcher does on a conflict, so that neither write is
// lost.
func TestPatchServesOthersMeanwhile(t *testing.T) {
	s, c := newTestServer(t, Options{})
	const pod = "/api/v1/namespaces/default/pods/long"
	c.mustDo(201, "POST", "/api/v1/namespaces/default/pods", longPod(100, "img:0", false))
	createCM(c, "other", "")
	calls := 0
	s.patchComputed = func() {
		calls++
		if calls > 1 {
			return // the write below, and the patch's second attempt
		}
		if !s.mu.TryLock() {
			t.Error("a patch is computed with the server's lock held")
			return
		}
		s.mu.Unlock()
		if r := c.do("GET", cmPath+"/other", ""); r.code != 200 {
			t.Errorf("GET while a patch is computed = %d %s, want 200", r.code, r.body)
		}
		c.mustDo(200, "PATCH", pod, `{"metadata":{"labels":{"meanwhile":"yes"}}}`, "Content-Type", ctMerge)
	}
	got := c.mustDo(200, "PATCH", pod, longPod(100, "img:1", true), "Content-Type", ctSMP)
	if calls != 3 {
		t.Errorf("the patch was computed %d times (and the write meanwhile once), want 2 and 1", calls-1)
	}
	if l := field(got, "metadata.labels.meanwhile"); l != "yes" {
		t.Errorf("label written while the patch was computed = %v, want yes (kept)", l)
	}
	containers := field(got, "spec.containers").([]any)
	if len(containers) != 100 {
		t.Fatalf("the patched pod has %d containers, want 100", len(containers))
	}
	for i, ct := range containers {
		if img := ct.(map[string]any)["image"]; img != "img:1" {
			t.Fatalf("container %d: image %v, want img:1", i, img)
		}
	}
}

// TestStrategicMergeLongListByKey patches a Pod of 1000 containers as
// kubectl would: every odd one gets a new image, every tenth is deleted,
// one is added, and $setElementOrder gives the order. Each item must be
// found by its name.
func TestStrategicMergeLongListByKey(t *testing.T) {
	_, c := newTestServer(t, Options{})
	const n = 1000
	c.mustDo(201, "POST", "/api/v1/namespaces/default/pods", longPod(n, "v0", false))
	var order, items, want []string
	for i := range n {
		name := fmt.Sprintf("c%05d", i)
		switch {
		case i%10 == 0:
			items = append(items, fmt.Sprintf(`{"$patch":"delete","name":%q}`, name))
			continue
		case i%2 == 1:
			items = append(items, fmt.Sprintf(`{"name":%q,"image":"v1"}`, name))
			want = append(want, name+"=v1")
		default:
			want = append(want, name+"=v0")
		}
		order = append(order, fmt.Sprintf(`{"name":%q}`, name))
	}
	order = append(order, `{"name":"zz"}`)
	items = append(items, `{"name":"zz","image":"new"}`)
	want = append(want, "zz=new")
	patch := `{"spec":{"$setElementOrder/containers":[` + strings.Join(order, ",") + `],"containers":[` + strings.Join(items, ",") + `]}}`
	got := c.mustDo(200, "PATCH", "/api/v1/namespaces/default/pods/long", patch, "Content-Type", ctSMP)
	var names []string
	for _, ct := range field(got, "spec.containers").([]any) {
		m := ct.(map[string]any)
		names = append(names, fmt.Sprintf("%v=%v", m["name"], m["image"]))
	}
	if !slices.Equal(names, want) {
		t.Errorf("containers after the patch = %v\nwant %v", names, want)
	}
}
