// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// A CA's certificates verify against its pool for what they were issued
// for, and nothing else; WriteServing writes a pair a server loads.
func TestCA(t *testing.T) {
	ca, err := kubetest.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	other, err := kubetest.NewCA("other-ca")
	if err != nil {
		t.Fatal(err)
	}
	parse := func(certPEM []byte) *x509.Certificate {
		t.Helper()
		b, _ := pem.Decode(certPEM)
		if b == nil {
			t.Fatalf("no PEM block in %q", certPEM)
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	serving, _, err := ca.Issue("server", "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	client, _, err := ca.Issue("alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cert []byte
		opts x509.VerifyOptions
		ok   bool
	}{
		{"serving for its IP", serving, x509.VerifyOptions{Roots: ca.Pool, DNSName: "127.0.0.1"}, true},
		{"serving for its name", serving, x509.VerifyOptions{Roots: ca.Pool, DNSName: "localhost"}, true},
		{"serving for another name", serving, x509.VerifyOptions{Roots: ca.Pool, DNSName: "example.com"}, false},
		{"serving under another CA", serving, x509.VerifyOptions{Roots: other.Pool, DNSName: "localhost"}, false},
		{"client as a client", client, x509.VerifyOptions{Roots: ca.Pool, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}, true},
		{"client as a server", client, x509.VerifyOptions{Roots: ca.Pool}, false},
	} {
		_, err := parse(tc.cert).Verify(tc.opts)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Verify() = %v, want ok %v", tc.name, err, tc.ok)
		}
	}

	dir := t.TempDir()
	if err := ca.WriteServing(dir, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := tls.LoadX509KeyPair(filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")); err != nil {
		t.Errorf("LoadX509KeyPair of what WriteServing wrote: %v", err)
	}
	if err := ca.WriteServing(dir); err == nil {
		t.Errorf("WriteServing(dir) with no host = nil, want an error")
	}
	if _, err := os.Stat(filepath.Join(dir, "tls.crt")); err != nil {
		t.Error(err)
	}
}
