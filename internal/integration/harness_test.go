// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// harness is the server that testdata/kube-apiserver/harness.sh started, as
// described by the environment it exports.
type harness struct {
	Kubeconfig       string // KUBELOOP_KUBECONFIG
	DeniedKubeconfig string // KUBELOOP_DENIED_KUBECONFIG
	Server           string // KUBELOOP_SERVER, https://127.0.0.1:PORT
	Token            string // KUBELOOP_TOKEN, user admin in system:masters
	DeniedToken      string // KUBELOOP_DENIED_TOKEN, user denied in no group
	CAFile           string // KUBELOOP_CA_FILE
	// Version is the Kubernetes version the harness built, 1.MINOR.PATCH
	// (KUBELOOP_KUBE_VERSION); empty for a server started otherwise, whose
	// /version then says.
	Version string
}

// harnessFromEnv reads the harness environment and fails the test when any
// of it is missing: an integration run without a server is a broken run, not
// a skipped one.
func harnessFromEnv(t testing.TB) harness {
	t.Helper()
	var h harness
	var missing []string
	for _, v := range []struct {
		name string
		dst  *string
	}{
		{"KUBELOOP_KUBECONFIG", &h.Kubeconfig},
		{"KUBELOOP_DENIED_KUBECONFIG", &h.DeniedKubeconfig},
		{"KUBELOOP_SERVER", &h.Server},
		{"KUBELOOP_TOKEN", &h.Token},
		{"KUBELOOP_DENIED_TOKEN", &h.DeniedToken},
		{"KUBELOOP_CA_FILE", &h.CAFile},
	} {
		*v.dst = os.Getenv(v.name)
		if *v.dst == "" {
			missing = append(missing, v.name)
		}
	}
	h.Version = os.Getenv("KUBELOOP_KUBE_VERSION")
	if len(missing) > 0 {
		t.Fatalf("integration suite needs KUBELOOP_KUBECONFIG and the rest of the harness environment (unset: %s); "+
			"run testdata/kube-apiserver/harness.sh run -- go test -tags integration ./internal/integration/",
			strings.Join(missing, ", "))
	}
	return h
}

// httpClient returns a client that verifies the server against CAFile.
func (h harness) httpClient(t testing.TB) *http.Client {
	t.Helper()
	pem, err := os.ReadFile(h.CAFile)
	if err != nil {
		t.Fatalf("read CA file: %v", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatalf("read CA file %s: no PEM certificates", h.CAFile)
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: roots}}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// get sends GET path with token as bearer token (none if empty) and returns
// the status code and body.
func (h harness) get(t testing.TB, c *http.Client, token, path string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, h.Server+path, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: read body: %v", path, err)
	}
	return resp.StatusCode, body
}

// serverVersion returns the server's version, 1.MINOR.PATCH, and its
// minor: h.Version, else the gitVersion of its /version. The tests whose
// expectations differ between minors choose by it.
func (h harness) serverVersion(t testing.TB) (version string, minor int) {
	t.Helper()
	version = h.Version
	if version == "" {
		code, body := h.get(t, h.httpClient(t), h.Token, "/version")
		var v struct {
			GitVersion string `json:"gitVersion"`
		}
		if err := json.Unmarshal(body, &v); err != nil || code != http.StatusOK {
			t.Fatalf("GET /version = %d %s: want 200 and a gitVersion", code, body)
		}
		version = strings.TrimPrefix(v.GitVersion, "v")
	}
	_, rest, _ := strings.Cut(version, ".")
	m, _, _ := strings.Cut(rest, ".")
	minor, err := strconv.Atoi(m)
	if err != nil || !strings.HasPrefix(version, "1.") {
		t.Fatalf("server version %q is not 1.MINOR.PATCH", version)
	}
	return version, minor
}
