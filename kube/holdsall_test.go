// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// openAPIProp is what the check reads of an OpenAPI v3 property.
type openAPIProp struct {
	Ref   string `json:"$ref"`
	AllOf []struct {
		Ref string `json:"$ref"`
	} `json:"allOf"`
	Items *openAPIProp `json:"items"`
}

// ref is the schema a property names, directly or through allOf.
func (p openAPIProp) ref() string {
	if p.Ref == "" && len(p.AllOf) == 1 {
		return p.AllOf[0].Ref
	}
	return p.Ref
}

type openAPISchema struct {
	Properties map[string]openAPIProp `json:"properties"`
}

// The kinds Update writes without reading the stored object first
// declare every field of their kind in the OpenAPI schemas kubetest
// serves, captured from kube-apiserver (all but metadata.selfLink, which
// servers have left empty since 1.20): when a new release adds a field,
// this fails rather than let an Update erase it. (Scale is not among
// the schemas captured; its three fields have not changed since
// autoscaling/v1.)
func TestHoldsAllTypesDeclareTheSchema(t *testing.T) {
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	cfg := srv.Config()
	hc, err := cfg.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	jd := jsondec.New(jsondec.Options{})
	for _, tc := range []struct {
		obj          kube.Object
		path, schema string
	}{
		{&kube.ConfigMap{}, "api/v1", "io.k8s.api.core.v1.ConfigMap"},
		{&kube.Secret{}, "api/v1", "io.k8s.api.core.v1.Secret"},
		{&kube.Lease{}, "apis/coordination.k8s.io/v1", "io.k8s.api.coordination.v1.Lease"},
	} {
		resp, err := hc.Get(strings.TrimSuffix(cfg.Host, "/") + "/openapi/v3/" + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Components struct {
				Schemas map[string]openAPISchema `json:"schemas"`
			} `json:"components"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Components.Schemas[tc.schema]; !ok {
			t.Fatalf("no schema %s in /openapi/v3/%s", tc.schema, tc.path)
		}
		var missing []string
		undeclaredInSchema(jd, doc.Components.Schemas, tc.schema, reflect.TypeOf(tc.obj), "", &missing)
		if len(missing) > 0 {
			t.Errorf("%T does not declare %q of %s", tc.obj, missing, tc.schema)
		}
	}
}

// undeclaredInSchema appends to missing the properties of schema name
// that Go type t does not declare, at path, looking into the schemas
// the properties name where t declares a struct.
func undeclaredInSchema(jd *jsondec.Decoder, schemas map[string]openAPISchema, name string, t reflect.Type, path string, missing *[]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
		return // encodes itself: taken whole
	}
	fields, ok := jd.Fields(t)
	if !ok {
		return
	}
	for key, prop := range schemas[strings.TrimPrefix(name, "#/components/schemas/")].Properties {
		at := strings.TrimPrefix(path+"."+key, ".")
		i := -1
		for j, f := range fields {
			if f.Name == key {
				i = j
			}
		}
		switch {
		case i < 0 && at != "metadata.selfLink":
			*missing = append(*missing, at)
		case i < 0:
		case prop.ref() != "":
			undeclaredInSchema(jd, schemas, prop.ref(), fields[i].Type, at, missing)
		case prop.Items != nil && prop.Items.ref() != "":
			undeclaredInSchema(jd, schemas, prop.Items.ref(), fields[i].Type, at+"[]", missing)
		}
	}
}
