// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"crypto/x509"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/pki"
)

// CA is a certificate authority made for tests: it signs the serving
// certificate of a [Listener] (see [Server.Listen]), of a webhook server,
// or of any test server, and client certificates. Its key lives in memory
// only. Keys are ECDSA P-256; certificates are valid from an hour ago for
// ten years.
type CA struct {
	// CertPEM is the CA's certificate in PEM: a webhook configuration's
	// caBundle, a kubeconfig's certificate-authority-data.
	CertPEM []byte
	// Pool holds the CA's certificate alone, for a client's RootCAs.
	Pool *x509.CertPool

	authority *pki.Authority
}

// NewCA makes a CA whose certificate has the common name name.
func NewCA(name string) (*CA, error) {
	a, err := pki.New(name)
	if err != nil {
		return nil, err
	}
	return &CA{CertPEM: a.CertPEM, Pool: a.Pool, authority: a}, nil
}

// Issue signs a certificate with the common name cn and a random serial
// number: a serving certificate for hosts (IP addresses and DNS names)
// when hosts are given, else a client certificate. It returns the
// certificate and its key in PEM, as tls.X509KeyPair takes them.
func (ca *CA) Issue(cn string, hosts ...string) (certPEM, keyPEM []byte, err error) {
	return ca.authority.Issue(cn, hosts...)
}

// WriteServing issues a serving certificate for hosts and writes it and
// its key into dir as tls.crt and tls.key, the keys of a kubernetes.io/tls
// Secret and the files a webhook server reads by default. hosts must not
// be empty; the first one is the certificate's common name.
func (ca *CA) WriteServing(dir string, hosts ...string) error {
	return ca.authority.WriteServing(dir, hosts...)
}
