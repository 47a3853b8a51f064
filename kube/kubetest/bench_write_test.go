// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"strings"
	"testing"
)

// The write benchmarks measure a create and an update through the
// in-process transport, the whole request path: decoding, schema checks
// (type checking, unknown fields, pruning, defaulting and validation of
// custom resources), storage and encoding.
//
//	go test -run '^$' -bench Write -benchmem ./kube/kubetest/

const benchPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"%s,"labels":{"app":"bench"}},
"spec":{"containers":[{"name":"app","image":"registry.example/app:%d","args":["--port=8080","--verbose"],
"ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
"env":[{"name":"MODE","value":"bench"},{"name":"LEVEL","value":"3"}],
"resources":{"requests":{"cpu":"100m","memory":"64Mi"},"limits":{"memory":"128Mi"}},
"readinessProbe":{"httpGet":{"path":"/healthz","port":8080},"periodSeconds":5}}],
"restartPolicy":"Always","terminationGracePeriodSeconds":30}}`

const benchConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"%s,"labels":{"app":"bench"}},
"data":{"k":"v%d","payload":"0123456789abcdef0123456789abcdef"}}`

const benchWidget = `{"apiVersion":"bench.kubeloop.dev/v1","kind":"Widget","metadata":{"name":"%s"%s,"labels":{"app":"bench"}},
"spec":{"size":%d,"mode":"fast","tags":["a","b"],"ports":[{"name":"http","port":8080}]}}`

// benchWidgetCRD has a schema with bounds, an enum, a default and a map
// list: the work schema validation does per write.
const benchWidgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.bench.kubeloop.dev"},
"spec":{"group":"bench.kubeloop.dev","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
"schema":{"openAPIV3Schema":{"type":"object","properties":{
"spec":{"type":"object","required":["size"],"properties":{
"size":{"type":"integer","minimum":0,"maximum":1000000},
"mode":{"type":"string","enum":["fast","slow"]},
"replicas":{"type":"integer","default":1},
"tags":{"type":"array","items":{"type":"string","maxLength":10},"x-kubernetes-list-type":"set"},
"ports":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"port":{"type":"integer","format":"int32"}}}}}},
"status":{"type":"object","properties":{"phase":{"type":"string"}}}}}}}]}}`

func BenchmarkWrite(b *testing.B) {
	for _, k := range []struct {
		name, path, body string
		crd              bool
	}{
		{"ConfigMap", "/api/v1/namespaces/default/configmaps", benchConfigMap, false},
		{"Pod", "/api/v1/namespaces/default/pods", benchPod, false},
		{"CustomResource", "/apis/bench.kubeloop.dev/v1/namespaces/default/widgets", benchWidget, true},
	} {
		b.Run(k.name+"/create", func(b *testing.B) {
			s, c := benchServer(b, k.crd)
			defer s.Close()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				body := fmt.Sprintf(k.body, fmt.Sprintf("obj-%d", i), "", i)
				if r := c.do("POST", k.path, body); r.code != 201 {
					b.Fatalf("create = %d %s", r.code, r.body)
				}
			}
		})
		b.Run(k.name+"/update", func(b *testing.B) {
			s, c := benchServer(b, k.crd)
			defer s.Close()
			r := c.do("POST", k.path, fmt.Sprintf(k.body, "obj", "", 0))
			if r.code != 201 {
				b.Fatalf("create = %d %s", r.code, r.body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				body := fmt.Sprintf(k.body, "obj", `,"resourceVersion":"`+benchRV(r.body)+`"`, i+1)
				if r = c.do("PUT", k.path+"/obj", body); r.code != 200 {
					b.Fatalf("update = %d %s", r.code, r.body)
				}
			}
		})
	}
}

// benchRV finds the resourceVersion of an answer without decoding it.
func benchRV(body []byte) string {
	_, rest, _ := strings.Cut(string(body), `"resourceVersion":"`)
	rv, _, _ := strings.Cut(rest, `"`)
	return rv
}

func benchServer(b *testing.B, crd bool) (*Server, *client) {
	s := New(Options{})
	c := newClient(b, s)
	if crd {
		if r := c.do("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", strings.ReplaceAll(benchWidgetCRD, "\n", "")); r.code != 201 {
			b.Fatalf("create CRD = %d %s", r.code, r.body)
		}
	}
	return s, c
}
