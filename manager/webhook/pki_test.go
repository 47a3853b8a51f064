// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// testCA is a kubetest.CA made for one test; the serving certificates it
// issues are told apart by their serial numbers.
type testCA struct{ *kubetest.CA }

func newTestCA(t *testing.T) *testCA {
	t.Helper()
	ca, err := kubetest.NewCA("webhook test CA")
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{ca}
}

// issue returns the PEM certificate and key of a serving certificate for
// 127.0.0.1, ::1 and localhost, and its serial number.
func (ca *testCA) issue(t *testing.T) (certPEM, keyPEM []byte, serial int64) {
	t.Helper()
	certPEM, keyPEM, err := ca.Issue("webhook", "127.0.0.1", "::1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := pem.Decode(certPEM)
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, keyPEM, cert.SerialNumber.Int64()
}

// writeFile writes data to dir/name and sets its modification time, so
// that a rewrite within the file system's timestamp granularity is still
// seen as a change.
func writeFile(t *testing.T, dir, name string, data []byte, mtime time.Time) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatalf("write %s: %v", p, err)
	}
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatalf("set the time of %s: %v", p, err)
	}
}

// writePair issues a serving certificate and writes it and its key as
// tls.crt and tls.key in dir; it returns the certificate's serial number.
func (ca *testCA) writePair(t *testing.T, dir string, mtime time.Time) int64 {
	t.Helper()
	certPEM, keyPEM, serial := ca.issue(t)
	writeFile(t, dir, "tls.crt", certPEM, mtime)
	writeFile(t, dir, "tls.key", keyPEM, mtime)
	return serial
}

// servedSerial makes a new TLS connection (no session reuse) to addr,
// verifying the server against the CA, and returns the serial number of
// the certificate served.
func (ca *testCA) servedSerial(t *testing.T, addr string) int64 {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: ca.Pool, ServerName: "127.0.0.1"})
	if err != nil {
		t.Fatalf("tls.Dial(%s) error: %v", addr, err)
	}
	defer conn.Close()
	certs := conn.ConnectionState().PeerCertificates
	if len(certs) == 0 {
		t.Fatalf("tls.Dial(%s): no peer certificate", addr)
	}
	return certs[0].SerialNumber.Int64()
}
