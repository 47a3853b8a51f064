// SPDX-License-Identifier: Apache-2.0

// Package pki is the certificate authority of kubetest's [CA] and of its
// TLS listener: a key pair in memory that signs serving and client
// certificates.
//
// Guarantees:
//   - Keys are ECDSA P-256, generated from crypto/rand; nothing is read
//     from or written to disk except by [Authority.WriteServing].
//   - Certificates are valid from an hour before the authority was made
//     for ten years; an authority's certificate is its own issuer.
//   - An Authority is immutable once made: safe for concurrent use.
package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Authority is a certificate authority whose key lives in memory only.
type Authority struct {
	// CertPEM is the authority's certificate in PEM.
	CertPEM []byte
	// Pool holds the authority's certificate alone, for a client's RootCAs.
	Pool *x509.CertPool

	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

// New makes an authority whose certificate has the common name name.
func New(name string) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("new CA: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("new CA: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("new CA: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &Authority{CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), Pool: pool, cert: cert, key: key}, nil
}

// Issue signs a certificate with the common name cn and a random serial
// number: a serving certificate for hosts (IP addresses and DNS names)
// when hosts are given, else a client certificate. It returns the
// certificate and its key in PEM, as tls.X509KeyPair takes them.
func (ca *Authority) Issue(cn string, hosts ...string) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("issue %s: %w", cn, err)
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, nil, fmt.Errorf("issue %s: %w", cn, err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: cn},
		NotBefore:    ca.cert.NotBefore,
		NotAfter:     ca.cert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(hosts) > 0 {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return nil, nil, fmt.Errorf("issue %s: %w", cn, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("issue %s: %w", cn, err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}

// WriteServing issues a serving certificate for hosts and writes it and
// its key into dir as tls.crt and tls.key, the keys of a kubernetes.io/tls
// Secret and the files a webhook server reads by default. hosts must not
// be empty; the first one is the certificate's common name.
func (ca *Authority) WriteServing(dir string, hosts ...string) error {
	if len(hosts) == 0 {
		return errors.New("write serving certificate: no host to serve")
	}
	certPEM, keyPEM, err := ca.Issue(hosts[0], hosts...)
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{"tls.crt": certPEM, "tls.key": keyPEM} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return fmt.Errorf("write serving certificate: %w", err)
		}
	}
	return nil
}

// LoopbackCert makes a CA and a server certificate it signs, for
// loopback and the names a client in a pod uses. It returns the CA in PEM
// and the server's key pair.
func LoopbackCert() (caPEM []byte, cert tls.Certificate, err error) {
	ca, err := New("kubetest-ca")
	if err != nil {
		return nil, cert, err
	}
	certPEM, keyPEM, err := ca.Issue("kubetest", "127.0.0.1", "::1", "localhost", "kubernetes", "kubernetes.default.svc")
	if err != nil {
		return nil, cert, err
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	return ca.CertPEM, cert, err
}
