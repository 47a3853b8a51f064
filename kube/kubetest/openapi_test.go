// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi/openapipb"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// jsonRoundTrip turns Go literals into what decoded JSON holds (float64
// numbers, []any, map[string]any).
func jsonRoundTrip(t *testing.T, v any) obj {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out obj
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// diffJSON reports the first path where two decoded JSON values differ.
func diffJSON(path string, got, want any) string {
	gm, ok1 := got.(obj)
	wm, ok2 := want.(obj)
	if ok1 && ok2 {
		for k := range wm {
			if _, ok := gm[k]; !ok {
				return path + "." + k + ": missing"
			}
		}
		for _, k := range unstructured.SortedKeys(gm) {
			if _, ok := wm[k]; !ok {
				return path + "." + k + ": unexpected"
			}
			if d := diffJSON(path+"."+k, gm[k], wm[k]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		return path + ": got " + string(g) + ", want " + string(w)
	}
	return ""
}

// TestCRDOpenAPIMatchesCapture builds the documents of the capture CRDs
// from their names and schemas and compares them with what the real
// server published for them.
func TestCRDOpenAPIMatchesCapture(t *testing.T) {
	data := schema.OpenAPI()
	for _, c := range captureCRDs {
		k := openapi.CRDKind{Names: c.CRDNames, Scope: c.scope, Status: true, Schema: jsonRoundTrip(t, c.schema)}
		if d := diffJSON("v3", openapi.CRDV3([]openapi.CRDKind{k}), data.CRDV3[c.scope]); d != "" {
			t.Errorf("%s: OpenAPI v3 differs from the capture: %s", c.scope, d)
		}
		paths, defs := openapi.CRDV2Parts(k)
		if d := diffJSON("v2", obj{"paths": paths, "definitions": defs}, data.CRDV2[c.scope]); d != "" {
			t.Errorf("%s: OpenAPI v2 differs from the capture: %s", c.scope, d)
		}
	}
}

func TestOpenAPIServing(t *testing.T) {
	s, c := newTestServer(t, Options{})
	index := must(t, c, 200, "GET", "/openapi/v3", "")
	if ct := index.header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("index Content-Type = %q, want the real server's text/plain", ct)
	}
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(index.body, &idx); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"api", "api/v1", "apis", "apis/apps", "apis/apps/v1", "apis/coordination.k8s.io/v1", "version"} {
		if !strings.HasPrefix(idx.Paths[p].ServerRelativeURL, "/openapi/v3/"+p+"?hash=") {
			t.Errorf("index entry %s = %q, want a URL with a hash", p, idx.Paths[p].ServerRelativeURL)
		}
	}
	u := idx.Paths["api/v1"].ServerRelativeURL
	doc := must(t, c, 200, "GET", u, "")
	if doc.header.Get("Cache-Control") != "public, immutable" || doc.header.Get("Expires") == "" || doc.header.Get("Etag") == "" {
		t.Errorf("hashed document headers = %v, want immutable caching and an ETag", doc.header)
	}
	var v1 obj
	if err := json.Unmarshal(doc.body, &v1); err != nil {
		t.Fatal(err)
	}
	if v1["paths"].(obj)["/api/v1/namespaces/{namespace}/configmaps/{name}"] == nil {
		t.Errorf("api/v1 has no configmap path")
	}
	if v1["paths"].(obj)["/api/v1/namespaces/{namespace}/pods/{name}/log"] != nil {
		t.Errorf("api/v1 publishes pods/log, which the server does not serve")
	}
	must(t, c, 304, "GET", "/openapi/v3/api/v1", "", "If-None-Match", doc.header.Get("Etag"))
	req := httptest.NewRequest("GET", "/openapi/v3/api/v1?hash=stale", nil)
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	if rec.Code != 301 || rec.Header().Get("Location") != u {
		t.Errorf("stale hash = %d Location %q, want 301 to %q", rec.Code, rec.Header().Get("Location"), u)
	}
	must(t, c, 406, "GET", "/openapi/v3/api/v1", "", "Accept", "application/yaml")
	must(t, c, 404, "GET", "/openapi/v3/apis/nope/v1", "")
	v2 := must(t, c, 200, "GET", "/openapi/v2", "", "Accept", "application/json")
	if !strings.Contains(string(v2.body), `"/apis/apps/v1/namespaces/{namespace}/deployments/{name}"`) {
		t.Errorf("/openapi/v2 lacks the deployment path")
	}
	must(t, c, 406, "GET", "/openapi/v2", "", "Accept", "application/x-other")

	// A CRD adds its group version, changes it with its schema, and takes
	// it away when it goes.
	crd := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"apples.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"apples","kind":"Apple"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}`
	must(t, c, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)
	created := must(t, c, 200, "GET", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/apples.stable.example.com", "").json(t)
	first := openAPIIndexURL(t, c, "apis/stable.example.com/v1")
	if first == "" {
		t.Fatalf("the CRD's group version is not in the index")
	}
	apple := must(t, c, 200, "GET", first, "").json(t)
	if schema.ComponentsOf(apple)["com.example.stable.v1.Apple"] == nil {
		t.Fatalf("the CRD document has no Apple schema: %v", apple["components"])
	}
	spec := created["spec"].(map[string]any)
	spec["versions"].([]any)[0].(map[string]any)["schema"].(map[string]any)["openAPIV3Schema"].(map[string]any)["properties"].(map[string]any)["spec"].(map[string]any)["properties"].(map[string]any)["color"] = map[string]any{"type": "string"}
	body, _ := json.Marshal(created)
	must(t, c, 200, "PUT", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/apples.stable.example.com", string(body))
	second := openAPIIndexURL(t, c, "apis/stable.example.com/v1")
	if second == first {
		t.Errorf("the document's hash did not change with the schema")
	}
	if !strings.Contains(string(must(t, c, 200, "GET", second, "").body), `"color"`) {
		t.Errorf("the document does not show the new field")
	}
	if !strings.Contains(string(must(t, c, 200, "GET", "/openapi/v2", "").body), `"com.example.stable.v1.Apple"`) {
		t.Errorf("/openapi/v2 lacks the CRD's definition")
	}
	must(t, c, 200, "DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/apples.stable.example.com", "")
	if u := openAPIIndexURL(t, c, "apis/stable.example.com/v1"); u != "" {
		t.Errorf("the deleted CRD's group version is still in the index: %s", u)
	}
}

// must sends a request and fails the test unless it answers code.
func must(t *testing.T, c *client, code int, method, path, body string, headers ...string) response {
	t.Helper()
	r := c.do(method, path, body, headers...)
	if r.code != code {
		t.Fatalf("%s %s = %d %s, want %d", method, path, r.code, r.body, code)
	}
	return r
}

func openAPIIndexURL(t *testing.T, c *client, path string) string {
	t.Helper()
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(must(t, c, 200, "GET", "/openapi/v3", "").body, &idx); err != nil {
		t.Fatal(err)
	}
	return idx.Paths[path].ServerRelativeURL
}

// TestOpenAPIIndexNeverStale: a client that revalidates its cached index
// (kubectl's HTTP cache sends If-Modified-Since) gets the CRD made since.
func TestOpenAPIIndexNeverStale(t *testing.T) {
	_, c := newTestServer(t, Options{})
	first := must(t, c, 200, "GET", "/openapi/v3", "")
	since := first.header.Get("Last-Modified")
	if since == "" {
		since = time.Now().UTC().Add(time.Hour).Format(http.TimeFormat)
	}
	must(t, c, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"apples.stable.example.com"},
"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"apples","kind":"Apple"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object"}}}]}}`)
	again := must(t, c, 200, "GET", "/openapi/v3", "", "If-Modified-Since", since)
	if !strings.Contains(string(again.body), `"apis/stable.example.com/v1"`) {
		t.Errorf("revalidated index = %s, want the new CRD's group version", again.body)
	}
}

// TestOpenAPIProtobuf: /openapi/v2 asked in protobuf (kubectl explain
// --output=plaintext-openapiv2, client-go's OpenAPISchema, kubectl's
// validation of a List) is the JSON document encoded as gnostic's
// openapi_v2.Document, and each /openapi/v3 document the JSON encoded
// as openapi_v3.Document, under the JSON's ETag; every key of the
// documents, built-in kinds and a CRD with most schema
// keywords, is encoded. Before, both were a 406.
func TestOpenAPIProtobuf(t *testing.T) {
	_, c := newTestServer(t, Options{})
	must(t, c, 201, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"apples.stable.example.com"},"spec":{"group":"stable.example.com","scope":"Namespaced","names":{"plural":"apples","kind":"Apple"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{},"scale":{"specReplicasPath":".spec.size","statusReplicasPath":".status.size"}},
"selectableFields":[{"jsonPath":".spec.color"}],"schema":{"openAPIV3Schema":{"type":"object","description":"An apple.","properties":{
"spec":{"type":"object","required":["color"],"x-kubernetes-validations":[{"rule":"self.size >= 0","message":"m"}],"properties":{
"color":{"type":"string","enum":["red","green","true",""],"default":"red","pattern":"^[a-z]*$","maxLength":10,"minLength":0},
"size":{"type":"integer","format":"int32","minimum":0,"maximum":100,"exclusiveMaximum":true,"multipleOf":2,"nullable":true},
"tags":{"type":"array","items":{"type":"string"},"maxItems":3,"x-kubernetes-list-type":"set"},
"labels":{"type":"object","additionalProperties":{"type":"string"},"maxProperties":5,"x-kubernetes-map-type":"granular"},
"port":{"x-kubernetes-int-or-string":true},"raw":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
"inner":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
"either":{"type":"object","oneOf":[{"required":["a"]},{"required":["b"]}],"properties":{"a":{"type":"string"},"b":{"type":"string"}}},
"items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],"items":{"type":"object","required":["name"],
  "properties":{"name":{"type":"string"}}}}}},
"status":{"type":"object","properties":{"size":{"type":"integer"}}}}}}}]}}`)
	jsonDoc := must(t, c, 200, "GET", "/openapi/v2", "", "Accept", "application/json")
	pb := must(t, c, 200, "GET", "/openapi/v2", "", "Accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
	if ct := pb.header.Get("Content-Type"); ct != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf" {
		t.Errorf("Content-Type = %q", ct)
	}
	if pb.header.Get("Etag") == "" || pb.header.Get("Etag") != jsonDoc.header.Get("Etag") {
		t.Errorf("ETag = %q, want the JSON's %q", pb.header.Get("Etag"), jsonDoc.header.Get("Etag"))
	}
	want, problems, err := openapipb.V2(jsonDoc.body)
	if err != nil || len(problems) > 0 {
		t.Fatalf("encode the served JSON: %v; not encoded: %q", err, problems)
	}
	if !bytes.Equal(pb.body, want) || !bytes.Contains(pb.body, []byte("com.example.stable.v1.Apple")) {
		t.Errorf("protobuf body (%d bytes) is not the served JSON encoded (%d bytes) with the CRD's definition", len(pb.body), len(want))
	}
	if r := c.do("GET", "/openapi/v2", "", "Accept", "application/com.github.proto-openapi.spec.v2.v1.0+protobuf", "If-None-Match", pb.header.Get("Etag")); r.code != 304 {
		t.Errorf("GET with a matching If-None-Match = %d, want 304", r.code)
	}
	// Every /openapi/v3 document (older minors serve subsets of these:
	// all are filtered from the same 1.37 capture).
	const v3Protobuf = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"
	var idx struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(must(t, c, 200, "GET", "/openapi/v3", "").body, &idx); err != nil || idx.Paths["apis/stable.example.com/v1"].ServerRelativeURL == "" {
		t.Fatalf("index without the CRD's document: %v", err)
	}
	for p, e := range idx.Paths {
		jsonDoc := must(t, c, 200, "GET", e.ServerRelativeURL, "")
		want, problems, err := openapipb.V3(jsonDoc.body)
		if err != nil || len(problems) > 0 {
			t.Errorf("%s: %v; not encoded: %q", p, err, problems)
		}
		if p != "apis/stable.example.com/v1" && p != "apis/apps/v1" {
			continue // the encoding is the same code for all
		}
		pb := must(t, c, 200, "GET", e.ServerRelativeURL, "", "Accept", v3Protobuf)
		if !bytes.Equal(pb.body, want) || pb.header.Get("Etag") != jsonDoc.header.Get("Etag") ||
			pb.header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v3.v1.0+protobuf" {
			t.Errorf("%s in protobuf: %d bytes, %v, want the JSON encoded (%d bytes) under its ETag", p, len(pb.body), pb.header, len(want))
		}
	}
}
