// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategicmerge"
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
		sch := s.reg.Lookup("apps", "v1", "deployments").Schema
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
			if _, _, serr := strategicmerge.Merge(sch, cur, p); serr != nil {
				b.Fatal(serr.Msg)
			}
		}
	})
}

// BenchmarkStrategicMergeLongList patches every container of a Pod with
// n containers by name (a new image each): the merge of a list by merge
// key, whole request path. While the PATCH runs, another goroutine reads
// a ConfigMap over and over; maxGet-ms is the longest of those reads,
// what any other request waits for the patch.
//
//	go test -run '^$' -bench StrategicMergeLongList -benchtime 1x -benchmem ./kube/kubetest/
func BenchmarkStrategicMergeLongList(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		b.Run(fmt.Sprintf("containers=%d", n), func(b *testing.B) {
			s, c := benchServer(b, false)
			defer s.Close()
			c.mustDo(201, "POST", "/api/v1/namespaces/default/configmaps", `{"metadata":{"name":"other"}}`)
			c.mustDo(201, "POST", "/api/v1/namespaces/default/pods", longPod(n, "img:0", false))
			b.ReportAllocs()
			b.ResetTimer()
			var maxGet time.Duration
			for i := range b.N {
				done := make(chan struct{})
				got := make(chan time.Duration)
				go func() {
					var worst time.Duration
					for {
						select {
						case <-done:
							got <- worst
							return
						default:
						}
						start := time.Now()
						if r := c.do("GET", "/api/v1/namespaces/default/configmaps/other", ""); r.code != 200 {
							b.Errorf("get = %d %s", r.code, r.body)
						}
						worst = max(worst, time.Since(start))
					}
				}()
				r := c.do("PATCH", "/api/v1/namespaces/default/pods/long", longPod(n, fmt.Sprintf("img:%d", i+1), true),
					"Content-Type", "application/strategic-merge-patch+json")
				close(done)
				maxGet = max(maxGet, <-got)
				if r.code != 200 {
					b.Fatalf("patch = %d %.200s", r.code, r.body)
				}
			}
			b.ReportMetric(float64(maxGet.Microseconds())/1000, "maxGet-ms")
		})
	}
}

// longPod is a Pod named long with n containers of image img, or the
// strategic merge patch that sets them all (patch).
func longPod(n int, img string, patch bool) string {
	var sb strings.Builder
	if patch {
		sb.WriteString(`{"spec":{"containers":[`)
	} else {
		sb.WriteString(`{"metadata":{"name":"long"},"spec":{"containers":[`)
	}
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"name":"c%05d","image":%q}`, i, img)
	}
	sb.WriteString(`]}}`)
	return sb.String()
}
