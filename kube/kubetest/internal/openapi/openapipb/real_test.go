// SPDX-License-Identifier: Apache-2.0

//go:build integration

package openapipb

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"testing"
)

// TestMatchesKubeAPIServer fetches /openapi/v2 and every /openapi/v3
// document of the index from the real server (KUBELOOP_SERVER,
// KUBELOOP_TOKEN, KUBELOOP_CA_FILE, as /work/kas/env sets them) in JSON
// and in protobuf, and checks that V2 and V3 of the JSON are the
// server's protobuf byte for byte, with nothing left unencoded. Run:
//
//	set -a; . /work/kas/env; set +a
//	go test -tags integration -run TestMatchesKubeAPIServer ./kube/kubetest/internal/openapi/openapipb/
//
// (internal/integration cannot import this package; the scenario there
// checks the protobuf answers' shape on both servers.)
func TestMatchesKubeAPIServer(t *testing.T) {
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
	get := func(path, accept string) (body []byte, etag string) {
		req, _ := http.NewRequest("GET", server+path, nil)
		req.Header.Set("Authorization", "Bearer "+os.Getenv("KUBELOOP_TOKEN"))
		req.Header.Set("Accept", accept)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s as %s = %d %v", path, accept, resp.StatusCode, err)
		}
		return body, resp.Header.Get("Etag")
	}
	compare := func(path, protobuf string, encode func([]byte) ([]byte, []string, error)) {
		for attempt := 0; ; attempt++ {
			doc, jsonTag := get(path, "application/json")
			want, pbTag := get(path, protobuf)
			if jsonTag != pbTag && attempt < 5 {
				continue // another test's CRD changed the document in between
			}
			got, problems, err := encode(doc)
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) > 0 {
				t.Errorf("%s: not encoded: %q", path, problems)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: the encoding of the server's JSON differs from its protobuf at byte %d (got %d bytes, want %d)",
					path, firstDiff(got, want), len(got), len(want))
			}
			return
		}
	}
	compare("/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", V2)
	var index struct {
		Paths map[string]struct {
			ServerRelativeURL string `json:"serverRelativeURL"`
		} `json:"paths"`
	}
	body, _ := get("/openapi/v3", "application/json")
	if err := json.Unmarshal(body, &index); err != nil {
		t.Fatal(err)
	}
	for p := range index.Paths {
		compare("/openapi/v3/"+p, "application/com.github.proto-openapi.spec.v3@v1.0+protobuf", V3)
	}
	t.Logf("compared /openapi/v2 and %d /openapi/v3 documents", len(index.Paths))
}
