// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"encoding/json"
	"net/http"
	"testing"
)

// TestSmoke checks that the harness serves what the rest of the suite relies
// on: readiness, the expected version, an admin who may read and a user whom
// RBAC denies, with errors as Status objects.
func TestSmoke(t *testing.T) {
	h := harnessFromEnv(t)
	c := h.httpClient(t)

	t.Run("readyz", func(t *testing.T) {
		code, body := h.get(t, c, h.Token, "/readyz")
		if code != http.StatusOK || string(body) != "ok" {
			t.Errorf("GET /readyz = %d %q, want 200 \"ok\"", code, body)
		}
	})

	t.Run("version", func(t *testing.T) {
		code, body := h.get(t, c, h.Token, "/version")
		var v struct {
			GitVersion string `json:"gitVersion"`
		}
		if code != http.StatusOK {
			t.Fatalf("GET /version = %d %s, want 200", code, body)
		}
		if err := json.Unmarshal(body, &v); err != nil {
			t.Fatalf("GET /version: decode %s: %v", body, err)
		}
		if h.Version == "" {
			t.Skip("KUBELOOP_KUBE_VERSION is unset: no version to expect (a server the harness did not build)")
		}
		if v.GitVersion != "v"+h.Version {
			t.Errorf("GET /version gitVersion = %q, want v%s (KUBELOOP_KUBE_VERSION)", v.GitVersion, h.Version)
		}
	})

	t.Run("admin reads namespace", func(t *testing.T) {
		code, body := h.get(t, c, h.Token, "/api/v1/namespaces/default")
		if code != http.StatusOK {
			t.Fatalf("GET namespace default as admin = %d %s, want 200", code, body)
		}
		var ns struct {
			Kind     string `json:"kind"`
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(body, &ns); err != nil {
			t.Fatalf("decode namespace %s: %v", body, err)
		}
		if ns.Kind != "Namespace" || ns.Metadata.Name != "default" {
			t.Errorf("GET namespace default = kind %q name %q, want Namespace default", ns.Kind, ns.Metadata.Name)
		}
	})

	// Failures come back as a Status object whose reason names the error.
	for _, tc := range []struct {
		name       string
		token      string
		path       string
		wantCode   int
		wantReason string
	}{
		{"denied user is forbidden", h.DeniedToken, "/api/v1/namespaces/default", http.StatusForbidden, "Forbidden"},
		{"unknown token is unauthorized", "kubeloop-not-a-token", "/api/v1/namespaces/default", http.StatusUnauthorized, "Unauthorized"},
		{"missing namespace is not found", h.Token, "/api/v1/namespaces/kubeloop-no-such-namespace", http.StatusNotFound, "NotFound"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, body := h.get(t, c, tc.token, tc.path)
			if code != tc.wantCode {
				t.Fatalf("GET %s = %d %s, want %d", tc.path, code, body, tc.wantCode)
			}
			var status struct {
				Kind   string `json:"kind"`
				Status string `json:"status"`
				Reason string `json:"reason"`
				Code   int    `json:"code"`
			}
			if err := json.Unmarshal(body, &status); err != nil {
				t.Fatalf("GET %s: decode Status %s: %v", tc.path, body, err)
			}
			if status.Kind != "Status" || status.Status != "Failure" || status.Reason != tc.wantReason || status.Code != tc.wantCode {
				t.Errorf("GET %s = Status{kind %q, status %q, reason %q, code %d}, want Status{kind \"Status\", status \"Failure\", reason %q, code %d}",
					tc.path, status.Kind, status.Status, status.Reason, status.Code, tc.wantReason, tc.wantCode)
			}
		})
	}
}
