// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"testing"
)

// BenchmarkApply measures server-side apply through the in-process
// transport: the merge, the managedFields of two managers (each owning
// entries of the same map list), pruning and the write.
//
//	go test -run '^$' -bench Apply -benchmem ./kube/kubetest/
func BenchmarkApply(b *testing.B) {
	for _, k := range []struct {
		name, path, first, second string
		crd                       bool
	}{
		{"ConfigMap", "/api/v1/namespaces/default/configmaps/obj",
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"obj","labels":{"app":"bench"}},"data":{"k":"v%d","payload":"0123456789abcdef"}}`,
			`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"obj","labels":{"tier":"x"}},"data":{"other":"v%d"}}`, false},
		{"Pod", "/api/v1/namespaces/default/pods/obj",
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"obj"},"spec":{"containers":[
{"name":"app","image":"registry.example/app:%d","ports":[{"containerPort":8080}],"env":[{"name":"MODE","value":"bench"}]}]}}`,
			`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"obj"},"spec":{"containers":[
{"name":"app","env":[{"name":"LEVEL","value":"%d"}]},{"name":"sidecar","image":"registry.example/sidecar"}]}}`, false},
		{"CustomResource", "/apis/bench.kubeloop.dev/v1/namespaces/default/widgets/obj",
			`{"apiVersion":"bench.kubeloop.dev/v1","kind":"Widget","metadata":{"name":"obj"},"spec":{"size":%d,"tags":["a"],"ports":[{"name":"http","port":8080}]}}`,
			`{"apiVersion":"bench.kubeloop.dev/v1","kind":"Widget","metadata":{"name":"obj"},"spec":{"tags":["b"],"ports":[{"name":"metrics","port":%d}]}}`, true},
	} {
		b.Run(k.name, func(b *testing.B) {
			s, c := benchServer(b, k.crd)
			defer s.Close()
			for _, m := range []struct{ manager, body string }{{"first", k.first}, {"second", k.second}} {
				if r := c.do("PATCH", k.path+"?fieldManager="+m.manager, fmt.Sprintf(m.body, 0), "Content-Type", "application/apply-patch+yaml"); r.code != 200 && r.code != 201 {
					b.Fatalf("apply = %d %s", r.code, r.body)
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				manager, body := "first", k.first
				if i%2 == 1 {
					manager, body = "second", k.second
				}
				if r := c.do("PATCH", k.path+"?fieldManager="+manager, fmt.Sprintf(body, i+1), "Content-Type", "application/apply-patch+yaml"); r.code != 200 {
					b.Fatalf("apply = %d %s", r.code, r.body)
				}
			}
		})
	}
}
