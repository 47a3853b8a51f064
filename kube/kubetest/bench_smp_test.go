// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkStrategicMerge measures the PATCH that a second kubectl apply
// of a Deployment sends (a new image, env merged by name,
// $setElementOrder of containers and env) through the in-process
// transport, the whole request path; MergePatch is the JSON merge patch
// that makes the same change, for comparison; Merge is the strategic
// merge alone (decoding the object and the patch included, as the merge
// consumes both).
//
//	go test -run '^$' -bench StrategicMerge -benchmem ./kube/kubetest/
func BenchmarkStrategicMerge(b *testing.B) {
	const path = "/apis/apps/v1/namespaces/default/deployments/web"
	const deploy = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","labels":{"app":"web"}},
"spec":{"replicas":2,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[
{"name":"app","image":"registry.example/app:0","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
"env":[{"name":"MODE","value":"bench"},{"name":"LEVEL","value":"3"}]},
{"name":"sidecar","image":"registry.example/sidecar:1","env":[{"name":"TARGET","value":"app"}]}],
"volumes":[{"name":"data","emptyDir":{}}]}}}}`
	const smp = `{"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"app"},{"name":"sidecar"}],
"containers":[{"name":"app","image":"registry.example/app:%d","$setElementOrder/env":[{"name":"MODE"},{"name":"LEVEL"}],
"env":[{"name":"LEVEL","value":"%d"}]}]}}}}`
	const merge = `{"spec":{"template":{"spec":{"containers":[
{"name":"app","image":"registry.example/app:%d","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],
"env":[{"name":"MODE","value":"bench"},{"name":"LEVEL","value":"%d"}]},
{"name":"sidecar","image":"registry.example/sidecar:1","env":[{"name":"TARGET","value":"app"}]}]}}}}`
	for _, k := range []struct{ name, contentType, body string }{
		{"KubectlApply", "application/strategic-merge-patch+json", smp},
		{"MergePatch", "application/merge-patch+json", merge},
	} {
		b.Run(k.name, func(b *testing.B) {
			s, c := benchServer(b, false)
			defer s.Close()
			if r := c.do("POST", "/apis/apps/v1/namespaces/default/deployments", strings.ReplaceAll(deploy, "\n", "")); r.code != 201 {
				b.Fatalf("create = %d %s", r.code, r.body)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				if r := c.do("PATCH", path, fmt.Sprintf(k.body, i+1, i), "Content-Type", k.contentType); r.code != 200 {
					b.Fatalf("patch = %d %s", r.code, r.body)
				}
			}
		})
	}
	b.Run("Merge", func(b *testing.B) {
		s := New(Options{})
		defer s.Close()
		sch := s.reg.lookup("apps", "v1", "deployments").Schema
		patch := []byte(fmt.Sprintf(smp, 1, 1))
		b.ReportAllocs()
		for range b.N {
			cur, err := decodeObject([]byte(deploy))
			if err != nil {
				b.Fatal(err)
			}
			p, err := decodeObject(patch)
			if err != nil {
				b.Fatal(err)
			}
			if _, _, serr := strategicMerge(sch, cur, p); serr != nil {
				b.Fatal(serr.msg)
			}
		}
	})
}
