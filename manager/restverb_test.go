// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"bytes"
	"io"
	"net/url"
	"testing"
)

func TestRESTVerb(t *testing.T) {
	tests := []struct {
		method, url, contentType string
		verb, resource           string
	}{
		{"GET", "/api/v1/namespaces/default/configmaps", "", "LIST", "configmaps"},
		{"GET", "/api/v1/configmaps?limit=500", "", "LIST", "configmaps"},
		{"GET", "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=5", "", "WATCH", "configmaps"},
		{"GET", "/api/v1/watch/namespaces/default/configmaps", "", "WATCH", "configmaps"},
		{"GET", "/api/v1/namespaces/default/configmaps/a", "", "GET", "configmaps"},
		{"GET", "/apis/apps/v1/namespaces/ns/deployments/d/scale", "", "GET", "deployments.apps/scale"},
		{"PUT", "/apis/example.kubeloop.dev/v1/widgets/w/status", "", "PUT", "widgets.example.kubeloop.dev/status"},
		{"POST", "/apis/coordination.k8s.io/v1/namespaces/ns/leases", "", "POST", "leases.coordination.k8s.io"},
		{"PATCH", "/api/v1/namespaces/ns/secrets/s", "application/apply-patch+yaml", "APPLY", "secrets"},
		{"PATCH", "/api/v1/namespaces/ns/secrets/s", "application/merge-patch+json", "PATCH", "secrets"},
		{"DELETE", "/api/v1/namespaces/ns/pods", "", "DELETECOLLECTION", "pods"},
		{"DELETE", "/api/v1/namespaces/ns/pods/p", "", "DELETE", "pods"},
		{"GET", "/api/v1/namespaces", "", "LIST", "namespaces"},
		{"GET", "/api/v1/namespaces/ns", "", "GET", "namespaces"},
		{"PUT", "/api/v1/namespaces/ns/status", "", "PUT", "namespaces/status"},
		{"PUT", "/api/v1/namespaces/ns/finalize", "", "PUT", "namespaces/finalize"},
		{"GET", "/api", "", "GET", "<discovery>"},
		{"GET", "/api/v1", "", "GET", "<discovery>"},
		{"GET", "/apis", "", "GET", "<discovery>"},
		{"GET", "/apis/apps", "", "GET", "<discovery>"},
		{"GET", "/apis/apps/v1", "", "GET", "<discovery>"},
		{"GET", "/version", "", "GET", "<other>"},
		{"GET", "/openapi/v3", "", "GET", "<other>"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		verb, resource := restVerb(tt.method, u, tt.contentType)
		if verb != tt.verb || resource != tt.resource {
			t.Errorf("restVerb(%s %s, %q) = %s %s, want %s %s", tt.method, tt.url, tt.contentType, verb, resource, tt.verb, tt.resource)
		}
	}
}

// BenchmarkCountedBody reads a 1 MiB body in 32 KiB reads, counted and
// not: the cost of counting its bytes as they are read.
func BenchmarkCountedBody(b *testing.B) {
	body := make([]byte, 1<<20)
	buf := make([]byte, 32<<10)
	for _, counted := range []bool{false, true} {
		b.Run(map[bool]string{false: "plain", true: "counted"}[counted], func(b *testing.B) {
			m := newRESTMetrics()
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				var rc io.ReadCloser = io.NopCloser(bytes.NewReader(body))
				if counted {
					rc = &countedBody{ReadCloser: rc, m: m, verb: "LIST", resource: "configmaps"}
				}
				for {
					if _, err := rc.Read(buf); err != nil {
						break
					}
				}
				rc.Close()
			}
		})
	}
}
