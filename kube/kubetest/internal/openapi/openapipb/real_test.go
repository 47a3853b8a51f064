// SPDX-License-Identifier: Apache-2.0

//go:build integration

package openapipb

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"testing"
)

// TestV2MatchesKubeAPIServer fetches /openapi/v2 from the real server
// (KUBELOOP_SERVER, KUBELOOP_TOKEN, KUBELOOP_CA_FILE, as /work/kas/env
// sets them) in JSON and in protobuf, and checks that V2 of the JSON is
// the server's protobuf byte for byte, with nothing left unencoded. Run:
//
//	set -a; . /work/kas/env; set +a
//	go test -tags integration -run TestV2MatchesKubeAPIServer ./kube/kubetest/internal/openapi/openapipb/
//
// (internal/integration cannot import this package; the scenario there
// checks the protobuf answer's shape on both servers.)
func TestV2MatchesKubeAPIServer(t *testing.T) {
	server := os.Getenv("KUBELOOP_SERVER")
	if server == "" {
		t.Skip("KUBELOOP_SERVER is not set")
	}
	ca, err := os.ReadFile(os.Getenv("KUBELOOP_CA_FILE"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	get := func(accept string) (body []byte, etag string) {
		req, _ := http.NewRequest("GET", server+"/openapi/v2", nil)
		req.Header.Set("Authorization", "Bearer "+os.Getenv("KUBELOOP_TOKEN"))
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET /openapi/v2 as %s = %d %v", accept, resp.StatusCode, err)
		}
		return body, resp.Header.Get("Etag")
	}
	for attempt := 0; ; attempt++ {
		doc, jsonTag := get("application/json")
		want, pbTag := get("application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
		if jsonTag != pbTag && attempt < 5 {
			continue // another test's CRD changed the document in between
		}
		got, problems, err := V2(doc)
		if err != nil {
			t.Fatal(err)
		}
		if len(problems) > 0 {
			t.Errorf("not encoded: %q", problems)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("V2 of the server's JSON differs from its protobuf at byte %d (got %d bytes, want %d)", firstDiff(got, want), len(got), len(want))
		}
		return
	}
}
