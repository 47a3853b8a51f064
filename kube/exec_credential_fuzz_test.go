// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"regexp"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/internal/exactjson"
)

// FuzzParseExecCredential reads arbitrary plugin output: it never panics,
// a credential it accepts is the one printed, and its errors never quote
// the token or the key, even in output that is not JSON.
func FuzzParseExecCredential(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tokenSECRET1","expirationTimestamp":"2030-01-02T03:04:05Z"}}`,
		`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientCertificateData":"-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n","clientKeyData":"keySECRETdata"}}`,
		`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"tokenSECRET1","expirationTimestamp":"tomorrow"}}`,
		`{"apiVersion":"client.authentication.k8s.io/v1","kind":"Secret","status":{"token":"tokenSECRET1"}}`,
		`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":["tokenSECRET1"]}}`,
		`{"apiVersion":"client.authentication.k8s.io/v1","status":{"token":"tokenSECRET1"`,
		`{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"clientKeyData":"keySECRETdata"}}`,
		`token: tokenSECRET1`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		c, err := parseExecCredential(out, execAPIVersionV1)
		if err != nil {
			for _, s := range printedSecrets(out) {
				if strings.Contains(err.Error(), s) {
					t.Errorf("parseExecCredential(%q) error %q quotes a secret", out, err)
				}
			}
			return
		}
		var ec struct {
			Status struct {
				Token         string `json:"token"`
				ClientKeyData string `json:"clientKeyData"`
			} `json:"status"`
		}
		if err := exactjson.Unmarshal(out, &ec); err != nil {
			t.Fatalf("parseExecCredential(%q) accepted output that is not JSON: %v", out, err)
		}
		if c.token != ec.Status.Token || (c.cert != nil) != (ec.Status.ClientKeyData != "") {
			t.Errorf("parseExecCredential(%q) = token %q, certificate %v; not what was printed", out, c.token, c.cert != nil)
		}
		if c.token == "" && c.cert == nil {
			t.Errorf("parseExecCredential(%q) accepted a credential with neither a token nor a certificate", out)
		}
	})
}

// secretField finds the token and key in a plugin's output, JSON or not.
var secretField = regexp.MustCompile(`"(?:token|clientKeyData)"\s*:\s*"([^"\\]*)"|(?:token|clientKeyData)\s*:\s*(\S+)`)

// printedSecrets returns the token and key values in out that are long
// enough not to turn up in a message by chance, and that appear nowhere
// else (not as the kind, say, which a message may rightly quote).
func printedSecrets(out []byte) []string {
	var secrets []string
	for _, m := range secretField.FindAllSubmatch(out, -1) {
		s := string(m[1]) + string(m[2])
		if len(s) >= 6 && strings.Count(string(out), s) == 1 {
			secrets = append(secrets, s)
		}
	}
	return secrets
}
