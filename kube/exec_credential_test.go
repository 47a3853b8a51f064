// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestParseExecCredential(t *testing.T) {
	ca := newTestCA(t, "ca")
	certPEM, keyPEM, _ := ca.issue(t, "alice")
	status := func(s string) string {
		return `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":` + s + `}`
	}
	pemJSON := func(b []byte) string { j, _ := json.Marshal(string(b)); return string(j) }
	tests := []struct {
		name, out string
		wantErr   string
		check     func(*execCredential) bool
	}{
		{name: "token with expiry", out: status(`{"token":"secret-1","expirationTimestamp":"2030-01-02T03:04:05Z"}`),
			check: func(c *execCredential) bool {
				return c.token == "secret-1" && c.expiry.Equal(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC))
			}},
		{name: "certificate", out: status(`{"clientCertificateData":` + pemJSON(certPEM) + `,"clientKeyData":` + pemJSON(keyPEM) + `}`),
			check: func(c *execCredential) bool { return c.cert != nil && c.token == "" && c.expiry.IsZero() }},
		{name: "not JSON", out: `token: secret-1`, wantErr: "not JSON"},
		{name: "wrong kind", out: `{"apiVersion":"client.authentication.k8s.io/v1","kind":"Secret","status":{"token":"secret-1"}}`, wantErr: `kind "Secret"`},
		{name: "wrong version", out: `{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"secret-1"}}`, wantErr: "apiVersion"},
		{name: "no status", out: `{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}`, wantErr: "no status"},
		{name: "empty status", out: status(`{}`), wantErr: "neither a token nor a client certificate"},
		{name: "certificate without key", out: status(`{"clientCertificateData":` + pemJSON(certPEM) + `}`), wantErr: "only one of"},
		{name: "bad key", out: status(`{"clientCertificateData":` + pemJSON(certPEM) + `,"clientKeyData":"secret-1"}`), wantErr: "client certificate"},
		{name: "bad timestamp", out: status(`{"token":"secret-1","expirationTimestamp":"tomorrow"}`), wantErr: "not RFC 3339"},
		{name: "wrong type", out: status(`{"token":["secret-1"]}`), wantErr: "not an ExecCredential"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := parseExecCredential([]byte(tt.out), execAPIVersionV1)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseExecCredential() error = %v, want %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "secret-1") || bytes.Contains([]byte(err.Error()), keyPEM[30:60]) {
					t.Errorf("parseExecCredential() error = %q: it quotes the credential", err)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Errorf("parseExecCredential() = %+v, %v; not what was printed", c, err)
			}
		})
	}
}
