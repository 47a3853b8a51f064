// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/openapi"
)

// TestGenerateOpenAPI regenerates internal/schema/openapi/*.json.gz from a running
// kube-apiserver (see internal/schema/openapi/README.md). It runs only when
// KUBELOOP_OPENAPI_CAPTURE=1 and KUBELOOP_KUBECONFIG names the server's
// kubeconfig:
//
//	testdata/kube-apiserver/harness.sh run -- env KUBELOOP_OPENAPI_CAPTURE=1 \
//	    go test -count=1 -run TestGenerateOpenAPI ./kube/kubetest/
//
// It keeps, of each served group version, the paths of the served
// resources (collection, object, status, and their watch forms) and every
// schema they reference; of /openapi/v2 the same; and the documents the
// server publishes for two capture CRDs, which internal/openapi turns into
// the documents of any CRD.
func TestGenerateOpenAPI(t *testing.T) {
	if os.Getenv("KUBELOOP_OPENAPI_CAPTURE") != "1" {
		t.Skip("set KUBELOOP_OPENAPI_CAPTURE=1 and KUBELOOP_KUBECONFIG to regenerate internal/schema/openapi/")
	}
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: os.Getenv("KUBELOOP_KUBECONFIG")})
	if err != nil {
		t.Fatal(err)
	}
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	g := &openAPIGen{t: t, hc: hc, host: strings.TrimSuffix(cfg.Host, "/")}

	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	g.getJSON("/openapi/v3", &index)
	var gvDocs []obj
	for _, gv := range capturedGroupVersions {
		entry, ok := index.Paths[gv]
		if !ok {
			t.Fatalf("the server publishes no OpenAPI v3 document for %s", gv)
		}
		var doc obj
		g.getJSON(entry.ServerRelativeURL, &doc)
		if gv == "api/v1" || strings.Count(gv, "/") == 2 {
			trimOpenAPIPaths(doc, "#/components/schemas/", func(o obj) obj { return componentsSchemas(o) })
			gvDocs = append(gvDocs, doc)
		}
		g.write(openAPIFile(gv), doc)
	}
	var v2 obj
	g.getJSON("/openapi/v2", &v2)
	trimOpenAPIPaths(v2, "#/definitions/", func(o obj) obj { m, _ := o["definitions"].(obj); return m })
	g.write("v2.json.gz", v2)

	for _, c := range captureCRDs {
		g.captureCRD(c)
	}
	g.write("go-fields.json.gz", g.probeGoFields(gvDocs))
}

// capturedGroupVersions are the OpenAPI v3 documents kept: the root
// documents and those of the served group versions.
var capturedGroupVersions = []string{"api", "api/v1", "apis", "apis/apps", "apis/apps/v1",
	"apis/events.k8s.io", "apis/events.k8s.io/v1", "apis/batch", "apis/batch/v1",
	"apis/networking.k8s.io", "apis/networking.k8s.io/v1", "apis/coordination.k8s.io", "apis/coordination.k8s.io/v1",
	"apis/apiextensions.k8s.io", "apis/apiextensions.k8s.io/v1",
	"apis/admissionregistration.k8s.io", "apis/admissionregistration.k8s.io/v1",
	"apis/apiregistration.k8s.io", "apis/apiregistration.k8s.io/v1",
	"apis/autoscaling", "apis/autoscaling/v1", "apis/autoscaling/v2",
	"apis/certificates.k8s.io", "apis/certificates.k8s.io/v1",
	"apis/discovery.k8s.io", "apis/discovery.k8s.io/v1",
	"apis/flowcontrol.apiserver.k8s.io", "apis/flowcontrol.apiserver.k8s.io/v1",
	"apis/node.k8s.io", "apis/node.k8s.io/v1", "apis/policy", "apis/policy/v1",
	"apis/rbac.authorization.k8s.io", "apis/rbac.authorization.k8s.io/v1",
	"apis/resource.k8s.io", "apis/resource.k8s.io/v1", "apis/scheduling.k8s.io", "apis/scheduling.k8s.io/v1",
	"apis/storage.k8s.io", "apis/storage.k8s.io/v1",
	"apis/storagemigration.k8s.io", "apis/storagemigration.k8s.io/v1", "version"}

// capturedResources are the served resources, by group/version: a
// superset of what the registry serves (the documents are filtered by the
// registry when served).
var capturedResources = map[string][]string{
	"/v1": {"configmaps", "events", "namespaces", "pods", "secrets", "serviceaccounts", "services",
		"resourcequotas", "limitranges", "endpoints", "persistentvolumeclaims", "persistentvolumes",
		"replicationcontrollers", "nodes", "podtemplates"},
	"apps/v1":              {"deployments", "controllerrevisions", "daemonsets", "replicasets", "statefulsets"},
	"batch/v1":             {"cronjobs", "jobs"},
	"networking.k8s.io/v1": {"ingresses", "ingressclasses", "ipaddresses", "networkpolicies", "servicecidrs"},
	"admissionregistration.k8s.io/v1": {"mutatingadmissionpolicies", "mutatingadmissionpolicybindings",
		"mutatingwebhookconfigurations", "validatingadmissionpolicies", "validatingadmissionpolicybindings",
		"validatingwebhookconfigurations"},
	"apiregistration.k8s.io/v1":       {"apiservices"},
	"autoscaling/v1":                  {"horizontalpodautoscalers"},
	"autoscaling/v2":                  {"horizontalpodautoscalers"},
	"certificates.k8s.io/v1":          {"certificatesigningrequests", "clustertrustbundles", "podcertificaterequests"},
	"discovery.k8s.io/v1":             {"endpointslices"},
	"flowcontrol.apiserver.k8s.io/v1": {"flowschemas", "prioritylevelconfigurations"},
	"node.k8s.io/v1":                  {"runtimeclasses"},
	"policy/v1":                       {"poddisruptionbudgets"},
	"rbac.authorization.k8s.io/v1":    {"clusterrolebindings", "clusterroles", "rolebindings", "roles"},
	"resource.k8s.io/v1": {"deviceclasses", "devicetaintrules", "resourceclaims", "resourceclaimtemplates",
		"resourceslices"},
	"storagemigration.k8s.io/v1": {"storageversionmigrations"},
	"scheduling.k8s.io/v1":       {"priorityclasses"},
	"storage.k8s.io/v1": {"csidrivers", "csinodes", "csistoragecapacities", "storageclasses",
		"volumeattachments", "volumeattributesclasses"},
	"events.k8s.io/v1":        {"events"},
	"coordination.k8s.io/v1":  {"leases"},
	"apiextensions.k8s.io/v1": {"customresourcedefinitions"},
}

type openAPIGen struct {
	t    *testing.T
	hc   *http.Client
	host string
}

func (g *openAPIGen) get(path, accept string) (int, []byte) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", g.host+path, nil)
	req.Header.Set("Accept", accept)
	resp, err := g.hc.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		g.t.Fatal(err)
	}
	return resp.StatusCode, body
}

func (g *openAPIGen) getJSON(path string, into any) {
	g.t.Helper()
	code, body := g.get(path, "application/json")
	if code != http.StatusOK {
		g.t.Fatalf("GET %s = %d %s", path, code, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		g.t.Fatalf("GET %s: %v", path, err)
	}
}

func (g *openAPIGen) do(method, path, body string) (int, []byte) {
	g.t.Helper()
	req, _ := http.NewRequest(method, g.host+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := g.hc.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// write stores v as internal/schema/openapi/name, gzipped JSON with sorted keys.
func (g *openAPIGen) write(name string, v any) {
	g.t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		g.t.Fatal(err)
	}
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(filepath.Join("internal", "schema", "openapi", name), buf.Bytes(), 0o644); err != nil {
		g.t.Fatal(err)
	}
	g.t.Logf("internal/schema/openapi/%s: %d bytes of JSON, %d gzipped", name, len(raw), buf.Len())
}

func componentsSchemas(doc obj) obj {
	c, _ := doc["components"].(obj)
	m, _ := c["schemas"].(obj)
	return m
}

// trimOpenAPIPaths keeps the paths of capturedResources (without other
// subresources) and the schemas (and v2 parameters) they reference.
func trimOpenAPIPaths(doc obj, prefix string, schemas func(obj) obj) {
	paths, _ := doc["paths"].(obj)
	for p := range paths {
		group, version, plural, sub, ok := openapi.PathResource(p)
		if !ok || !slices.Contains(capturedResources[group+"/"+version], plural) || (sub != "" && sub != "status") {
			delete(paths, p)
		}
	}
	all := schemas(doc)
	keep := map[string]bool{}
	var keepSchemas func(v any)
	keepSchemas = func(v any) {
		visitRefs(v, prefix, func(name string) {
			if !keep[name] {
				keep[name] = true
				keepSchemas(all[name])
			}
		})
	}
	keepSchemas(paths)
	params, _ := doc["parameters"].(obj)
	usedParams := map[string]bool{}
	visitRefs(paths, "#/parameters/", func(name string) { usedParams[name] = true })
	for name := range params {
		if !usedParams[name] {
			delete(params, name)
		}
	}
	keepSchemas(params)
	for name := range all {
		if !keep[name] {
			delete(all, name)
		}
	}
}

// visitRefs calls found with the name of every "$ref" under v that starts
// with prefix.
func visitRefs(v any, prefix string, found func(name string)) {
	switch t := v.(type) {
	case obj:
		if ref, ok := t["$ref"].(string); ok && strings.HasPrefix(ref, prefix) {
			found(strings.TrimPrefix(ref, prefix))
		}
		for _, x := range t {
			visitRefs(x, prefix, found)
		}
	case []any:
		for _, x := range t {
			visitRefs(x, prefix, found)
		}
	}
}

// openAPIFile names the stored document of an OpenAPI v3 path.
func openAPIFile(gv string) string {
	return "v3-" + strings.ReplaceAll(gv, "/", "-") + ".json.gz"
}

// captureCRD creates a capture CRD, stores the OpenAPI v3 document of its
// group version and its part of /openapi/v2, and deletes it.
func (g *openAPIGen) captureCRD(c captureCRD) {
	g.t.Helper()
	crd := c.object()
	body, _ := json.Marshal(crd)
	name := c.Plural + "." + c.Group
	g.do("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "")
	if code, out := g.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", string(body)); code != http.StatusCreated {
		g.t.Fatalf("create CRD %s = %d %s", name, code, out)
	}
	defer g.do("DELETE", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/"+name, "")
	gv := "apis/" + c.Group + "/" + c.Version
	var doc obj
	deadline := time.Now().Add(time.Minute)
	for {
		var index struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		g.getJSON("/openapi/v3", &index)
		var v2 obj
		g.getJSON("/openapi/v2", &v2)
		defs, _ := v2["definitions"].(obj)
		if entry, ok := index.Paths[gv]; ok && defs[c.modelName()] != nil {
			g.getJSON(entry.ServerRelativeURL, &doc)
			if _, ok := index.Paths["apis/"+c.Group]; ok {
				var groupDoc obj
				g.getJSON(index.Paths["apis/"+c.Group].ServerRelativeURL, &groupDoc)
				g.write("v3-crd-"+c.scope+"-group.json.gz", groupDoc)
			}
			part := obj{"paths": obj{}, "definitions": obj{}}
			for p, item := range v2["paths"].(obj) {
				if strings.HasPrefix(p, "/apis/"+c.Group+"/") {
					part["paths"].(obj)[p] = item
				}
			}
			for _, k := range []string{c.modelName(), c.listModelName()} {
				part["definitions"].(obj)[k] = defs[k]
			}
			g.write("v2-crd-"+c.scope+".json.gz", part)
			break
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("CRD %s not published in /openapi/v3 and /openapi/v2 after a minute", name)
		}
		time.Sleep(time.Second)
	}
	g.write("v3-crd-"+c.scope+".json.gz", doc)
}

// captureCRD is a CRD made to capture the documents the real server
// publishes for custom resources. Its names are unlike anything else in a
// document, so that internal/openapi can replace them by a CRD's own.
type captureCRD struct {
	openapi.CRDNames
	scope  string // "Namespaced" or "Cluster"
	schema map[string]any
}

func (c captureCRD) modelName() string     { return c.Model() }
func (c captureCRD) listModelName() string { return c.ListModel() }

func (c captureCRD) object() map[string]any {
	return map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": c.Plural + "." + c.Group},
		"spec": map[string]any{
			"group": c.Group, "scope": c.scope,
			"names": map[string]any{"plural": c.Plural, "kind": c.Kind, "listKind": c.ListKind},
			"versions": []any{map[string]any{
				"name": c.Version, "served": true, "storage": true,
				"subresources": map[string]any{"status": map[string]any{}},
				"schema":       map[string]any{"openAPIV3Schema": c.schema},
			}},
		},
	}
}

// captureCRDs are the capture CRDs: one namespaced, with a schema that
// uses every feature the publishing transforms, and one cluster-scoped.
var captureCRDs = []captureCRD{
	{CRDNames: openapi.CaptureNames("Namespaced"), scope: "Namespaced", schema: captureSchema},
	{CRDNames: openapi.CaptureNames("Cluster"), scope: "Cluster", schema: map[string]any{"type": "object",
		"properties": map[string]any{"spec": map[string]any{"type": "object",
			"x-kubernetes-preserve-unknown-fields": true}}}},
}

// captureSchema exercises the schema features the real server transforms
// when it publishes a CRD.
var captureSchema = map[string]any{
	"type": "object", "description": "A capture kind.",
	"properties": map[string]any{
		"spec": map[string]any{"type": "object", "required": []any{"size"},
			"properties": map[string]any{
				"size":     map[string]any{"type": "integer", "format": "int32", "minimum": 0, "maximum": 10, "default": 1},
				"name":     map[string]any{"type": "string", "maxLength": 20, "pattern": "^[a-z]+$", "nullable": true},
				"mode":     map[string]any{"type": "string", "enum": []any{"fast", "slow"}},
				"port":     map[string]any{"x-kubernetes-int-or-string": true},
				"ratio":    map[string]any{"type": "number", "exclusiveMinimum": true, "minimum": 0},
				"tags":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "x-kubernetes-list-type": "set", "maxItems": 5},
				"labels":   map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "string"}},
				"extra":    map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true},
				"template": map[string]any{"type": "object", "x-kubernetes-embedded-resource": true, "x-kubernetes-preserve-unknown-fields": true},
				"when":     map[string]any{"type": "string", "format": "date-time"},
				"items": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"name"},
					"items": map[string]any{"type": "object", "required": []any{"name"}, "properties": map[string]any{
						"name": map[string]any{"type": "string"}, "value": map[string]any{"type": "string"}}}},
				"choice": map[string]any{"type": "string", "anyOf": []any{map[string]any{"maxLength": 3}, map[string]any{"pattern": "^x"}}},
			}},
		"status": map[string]any{"type": "object", "properties": map[string]any{
			"conditions": map[string]any{"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": []any{"type"},
				"items": map[string]any{"type": "object", "required": []any{"type"}, "properties": map[string]any{
					"type": map[string]any{"type": "string"}, "status": map[string]any{"type": "string"}}}}}},
	},
}

func TestOpenAPIPathResource(t *testing.T) {
	for _, tc := range []struct {
		path                        string
		group, version, plural, sub string
		ok                          bool
	}{
		{"/api/v1/namespaces/{namespace}/pods/{name}/status", "", "v1", "pods", "status", true},
		{"/api/v1/watch/namespaces/{namespace}/configmaps/{name}", "", "v1", "configmaps", "", true},
		{"/api/v1/namespaces/{name}/finalize", "", "v1", "namespaces", "finalize", true},
		{"/api/v1/namespaces", "", "v1", "namespaces", "", true},
		{"/apis/apps/v1/deployments", "apps", "v1", "deployments", "", true},
		{"/apis/apps/v1/", "", "", "", "", false},
		{"/api/v1/", "", "", "", "", false},
	} {
		g, v, p, s, ok := openapi.PathResource(tc.path)
		if g != tc.group || v != tc.version || p != tc.plural || s != tc.sub || ok != tc.ok {
			t.Errorf("openapi.PathResource(%q) = %q %q %q %q %v, want %q %q %q %q %v", tc.path, g, v, p, s, ok,
				tc.group, tc.version, tc.plural, tc.sub, tc.ok)
		}
	}
}
