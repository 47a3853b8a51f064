// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/discovery"
)

// discoveryFile holds the aggregated discovery (/api and /apis, as
// apidiscovery.k8s.io/v2) of kube-apiserver 1.37.2 with the harness's
// flags and controllers: every group version, resource, verb, short
// name, category and subresource the real server lists.
const discoveryFile = "testdata/discovery.json"

// TestCaptureDiscovery regenerates testdata/discovery.json from a running
// kube-apiserver. It runs only when KUBELOOP_OPENAPI_CAPTURE=1 and
// KUBELOOP_KUBECONFIG names the server's kubeconfig:
//
//	testdata/kube-apiserver/harness.sh run -- env KUBELOOP_OPENAPI_CAPTURE=1 \
//	    go test -count=1 -run 'TestGenerateOpenAPI|TestCaptureDiscovery' ./kube/kubetest/
func TestCaptureDiscovery(t *testing.T) {
	if os.Getenv("KUBELOOP_OPENAPI_CAPTURE") != "1" {
		t.Skip("set KUBELOOP_OPENAPI_CAPTURE=1 and KUBELOOP_KUBECONFIG to regenerate " + discoveryFile)
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
	out := map[string]json.RawMessage{}
	for _, p := range []string{"/api", "/apis"} {
		code, body := g.get(p, discovery.AggregatedType)
		if code != http.StatusOK {
			t.Fatalf("GET %s = %d %s", p, code, body)
		}
		out[p] = body
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, b, "", " "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if err := os.WriteFile(discoveryFile, pretty.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}
