// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// testOpenAPI checks /openapi/v3 and /openapi/v2 as kubectl and client-go
// use them: the index with hashed URLs, immutable caching, redirects of
// stale hashes, the documents' paths and schemas, and a CRD's document
// appearing with the real server's shape.
func testOpenAPI(t *testing.T, f *fixture) {
	index := f.openAPIIndex(t)
	for _, p := range []string{"api", "api/v1", "apis", "apis/apps/v1", "apis/coordination.k8s.io/v1",
		"apis/events.k8s.io/v1", "apis/apiextensions.k8s.io/v1", "version"} {
		if !strings.HasPrefix(index[p], "/openapi/v3/"+p+"?hash=") {
			t.Errorf("index entry %s = %q, want a URL with a hash", p, index[p])
		}
	}
	u := index["api/v1"]
	r := f.send(t, "GET", u, "", "")
	if r.code != 200 || r.header.Get("Content-Type") != "application/json" || r.header.Get("Cache-Control") != "public, immutable" ||
		r.header.Get("Expires") == "" || !slices.Contains(r.header.Values("Vary"), "Accept") {
		t.Errorf("GET %s = %d headers %v, want 200 JSON cached for good", u, r.code, r.header)
	}
	etag := r.header.Get("Etag")
	if hash := u[strings.Index(u, "hash=")+5:]; etag != `"`+hash+`"` {
		t.Errorf("ETag %s, want the hash %q quoted", etag, hash)
	}
	var doc map[string]any
	if err := json.Unmarshal(r.body, &doc); err != nil {
		t.Fatal(err)
	}
	if !patchTakesFieldValidation(doc, "/api/v1/namespaces/{namespace}/configmaps/{name}") {
		t.Errorf("api/v1: the configmap PATCH does not list fieldValidation (kubectl checks it to validate on the server)")
	}
	if gvk := componentGVK(doc, "io.k8s.api.core.v1.ConfigMap"); gvk != "/v1/ConfigMap" {
		t.Errorf("api/v1: ConfigMap's x-kubernetes-group-version-kind = %q", gvk)
	}
	if r := f.send(t, "GET", "/openapi/v3/api/v1", "", "", "If-None-Match", etag); r.code != 304 {
		t.Errorf("GET with a matching If-None-Match = %d, want 304", r.code)
	}
	if r := f.send(t, "GET", "/openapi/v3/api/v1?hash=0000", "", ""); r.code != 301 || r.header.Get("Location") != u {
		t.Errorf("GET with a stale hash = %d Location %q, want 301 to %s", r.code, r.header.Get("Location"), u)
	}
	if r := f.send(t, "GET", "/openapi/v3/api/v1", "", "", "Accept", "application/yaml"); r.code != 406 {
		t.Errorf("GET as YAML = %d, want 406", r.code)
	}
	if pb := f.send(t, "GET", u, "", "", "Accept", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf"); pb.code != 200 ||
		pb.header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v3.v1.0+protobuf" || pb.header.Get("Etag") != etag ||
		!strings.HasPrefix(string(pb.body), "\n\x053.0.0") || !strings.Contains(string(pb.body), "\n\x1cio.k8s.api.core.v1.ConfigMap") {
		t.Errorf("GET %s in protobuf = %d %v (%d bytes), want gnostic's openapi_v3.Document with ConfigMap under the JSON's ETag",
			u, pb.code, pb.header, len(pb.body))
	}
	if r := f.send(t, "GET", "/openapi/v3/apis/nope.kubeloop.dev/v1", "", ""); r.code != 404 {
		t.Errorf("GET of a group version nobody serves = %d, want 404", r.code)
	}
	v2 := f.send(t, "GET", "/openapi/v2", "", "")
	if v2.code != 200 || v2.header.Get("Content-Type") != "application/json" ||
		!strings.Contains(string(v2.body), `"io.k8s.api.core.v1.ConfigMap":`) {
		t.Errorf("GET /openapi/v2 = %d %s, want JSON with the ConfigMap definition", v2.code, v2.header.Get("Content-Type"))
	}
	// In protobuf (kubectl explain --output=plaintext-openapiv2, client-go's
	// OpenAPISchema): gnostic's Document under the JSON's ETag (the two
	// requests may straddle another test's CRD: then the ETags differ).
	const v2Protobuf = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"
	f.eventually(t, "/openapi/v2 in protobuf", func() error {
		v2 := f.send(t, "GET", "/openapi/v2", "", "")
		pb := f.send(t, "GET", "/openapi/v2", "", "", "Accept", v2Protobuf)
		switch {
		case pb.code != 200 || pb.header.Get("Content-Type") != "application/com.github.proto-openapi.spec.v2.v1.0+protobuf":
			return fmt.Errorf("GET /openapi/v2 in protobuf = %d %q", pb.code, pb.header.Get("Content-Type"))
		case pb.header.Get("Etag") != v2.header.Get("Etag"):
			return fmt.Errorf("ETag %s, the JSON's %s", pb.header.Get("Etag"), v2.header.Get("Etag"))
		case !strings.HasPrefix(string(pb.body), "\n\x032.0") || !strings.Contains(string(pb.body), "\n\x1cio.k8s.api.core.v1.ConfigMap"):
			return fmt.Errorf("protobuf body (%d bytes) is not a Document with the ConfigMap definition", len(pb.body))
		}
		if r := f.send(t, "GET", "/openapi/v2", "", "", "Accept", v2Protobuf, "If-None-Match", pb.header.Get("Etag")); r.code != 304 {
			return fmt.Errorf("GET in protobuf with a matching If-None-Match = %d, want 304", r.code)
		}
		return nil
	})
	for accept, want := range map[string]string{
		v2Protobuf + ";q=0.5, application/json;q=0.9": "application/json",
		"application/json;q=0.5, " + v2Protobuf:       "application/com.github.proto-openapi.spec.v2.v1.0+protobuf",
		"*/*":                                         "application/json",
	} {
		if r := f.send(t, "GET", "/openapi/v2", "", "", "Accept", accept); r.header.Get("Content-Type") != want {
			t.Errorf("GET /openapi/v2 Accept %q = %d %q, want %q", accept, r.code, r.header.Get("Content-Type"), want)
		}
	}

	gvk := f.installWidgets(t)
	model := "dev.kubeloop.scenario.v1." + gvk.Kind
	var crdDoc map[string]any
	f.eventually(t, "CRD published in /openapi/v3", func() error {
		url, ok := f.openAPIIndex(t)["apis/"+widgetGroup+"/v1"]
		if !ok {
			return fmt.Errorf("no index entry")
		}
		r := f.send(t, "GET", url, "", "")
		crdDoc = nil
		_ = json.Unmarshal(r.body, &crdDoc)
		if componentGVK(crdDoc, model) == "" {
			return fmt.Errorf("no %s in the document", model)
		}
		return nil
	})
	schemas := crdDoc["components"].(map[string]any)["schemas"].(map[string]any)
	kind := schemas[model].(map[string]any)
	props := kind["properties"].(map[string]any)
	meta, _ := json.Marshal(props["metadata"])
	if !strings.Contains(string(meta), `"$ref":"#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"`) ||
		props["apiVersion"] == nil || props["kind"] == nil {
		t.Errorf("the custom resource's schema lacks the standard fields: %v", props)
	}
	size, _ := json.Marshal(props["spec"].(map[string]any)["properties"].(map[string]any)["size"])
	if string(size) != `{"type":"integer"}` {
		t.Errorf("spec.size published as %s, want the CRD's schema", size)
	}
	if componentGVK(crdDoc, model+"List") != widgetGroup+"/v1/"+gvk.Kind+"List" {
		t.Errorf("the list kind is missing from the CRD's document")
	}
	plural := "widgets" + strings.TrimPrefix(gvk.Kind, "Widget")
	if !patchTakesFieldValidation(crdDoc, "/apis/"+widgetGroup+"/v1/namespaces/{namespace}/"+plural+"/{name}") {
		t.Errorf("the custom resource's PATCH does not list fieldValidation")
	}
	f.eventually(t, "CRD published in /openapi/v2", func() error {
		if !strings.Contains(string(f.send(t, "GET", "/openapi/v2", "", "").body), `"`+model+`":`) {
			return fmt.Errorf("no %s definition", model)
		}
		return nil
	})
}

// openAPIIndex reads /openapi/v3: the serverRelativeURL of every path.
func (f *fixture) openAPIIndex(t *testing.T) map[string]string {
	t.Helper()
	r := f.send(t, "GET", "/openapi/v3", "", "")
	if r.code != 200 {
		t.Fatalf("GET /openapi/v3 = %d %s", r.code, r.body)
	}
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(r.body, &index); err != nil {
		t.Fatalf("decode /openapi/v3: %v", err)
	}
	out := map[string]string{}
	for p, e := range index.Paths {
		out[p] = e.ServerRelativeURL
	}
	return out
}

// patchTakesFieldValidation reports whether the PATCH of path lists the
// fieldValidation query parameter.
func patchTakesFieldValidation(doc map[string]any, path string) bool {
	paths, _ := doc["paths"].(map[string]any)
	item, _ := paths[path].(map[string]any)
	patch, _ := item["patch"].(map[string]any)
	params, _ := patch["parameters"].([]any)
	for _, p := range params {
		if m, _ := p.(map[string]any); m["name"] == "fieldValidation" && m["in"] == "query" {
			return true
		}
	}
	return false
}

// componentGVK returns "group/version/Kind" of a schema's
// x-kubernetes-group-version-kind, "" when it has none.
func componentGVK(doc map[string]any, name string) string {
	comps, _ := doc["components"].(map[string]any)
	schemas, _ := comps["schemas"].(map[string]any)
	s, _ := schemas[name].(map[string]any)
	gvks, _ := s["x-kubernetes-group-version-kind"].([]any)
	if len(gvks) == 0 {
		return ""
	}
	g, _ := gvks[0].(map[string]any)
	return fmt.Sprintf("%v/%v/%v", g["group"], g["version"], g["kind"])
}
