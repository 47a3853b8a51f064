// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/url"
	"os"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// tlsSource builds the tls.Config of a transport and, at each handshake,
// serves the CA pool and the client certificate, reading their files again
// when their size or modification time changed. When a changed file cannot
// be read or parsed (half written, say) the last good copy is kept and the
// file is tried again at the next handshake. It never holds its lock while
// reading a file.
type tlsSource struct {
	insecure   bool
	serverName string // ServerName override, sent as SNI
	// verifyName is the name checked in the server's certificate when the
	// handshake does not carry one (an IP address is not sent as SNI).
	verifyName string
	caFile     string // read at each handshake; "" when CAData or the system roots are used
	caData     []byte
	// certFile and keyFile are read unless certData and keyData, which win,
	// are set; hasCert says that a static client certificate is configured.
	certFile, keyFile string
	certData, keyData []byte
	hasCert           bool
	exec              *execAuth // nil, or the plugin that may give a client certificate

	mu        sync.Mutex // guards the fields below
	pool      *x509.CertPool
	caStamp   fileStamp
	cert      *tls.Certificate
	certStamp fileStamp
	keyStamp  fileStamp
}

// newTLSSource copies the TLS settings of c; it does no I/O.
func newTLSSource(c *Config, ex *execAuth) *tlsSource {
	t := c.TLS
	s := &tlsSource{
		insecure: t.Insecure, serverName: t.ServerName, verifyName: t.ServerName,
		caFile: t.CAFile, caData: t.CAData,
		certFile: t.CertFile, keyFile: t.KeyFile, certData: t.CertData, keyData: t.KeyData,
		hasCert: t.CertFile != "" || t.CertData != nil || t.KeyFile != "" || t.KeyData != nil,
		exec:    ex,
	}
	if s.verifyName == "" {
		s.verifyName = hostname(c.Host)
	}
	return s
}

// serverURL parses the URL of a server, nil when it cannot be parsed; a
// URL without a scheme is taken as https.
func serverURL(host string) *url.URL {
	if !strings.Contains(host, "://") {
		host = "https://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return nil
	}
	return u
}

// hostname returns the host of a server URL without its port ("" when the
// URL cannot be parsed).
func hostname(host string) string {
	if u := serverURL(host); u != nil {
		return u.Hostname()
	}
	return ""
}

// config returns the tls.Config, after reading the CA and client
// certificate once so that a wrong file fails now rather than at the first
// request.
func (s *tlsSource) config() (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: s.serverName}
	hasCA := s.caFile != "" || len(s.caData) > 0
	switch {
	case s.insecure && hasCA:
		return nil, errors.New("config: TLS.Insecure and a CA are both set: pick one")
	case s.insecure:
		cfg.InsecureSkipVerify = true
	case len(s.caData) > 0:
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(s.caData) {
			return nil, errors.New("config: TLS.CAData holds no PEM certificate")
		}
		cfg.RootCAs = pool
	case s.caFile != "":
		if _, err := s.roots(); err != nil {
			return nil, err
		}
		// crypto/tls only verifies against a fixed pool; VerifyConnection
		// does the same checks against the current content of the file.
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = s.verify
	}
	if s.hasCert {
		if (s.certFile == "" && s.certData == nil) || (s.keyFile == "" && s.keyData == nil) {
			return nil, errors.New("config: TLS needs both a client certificate and its key, or neither")
		}
		if _, err := s.certificate(); err != nil {
			return nil, err
		}
	}
	if s.hasCert || s.exec != nil {
		cfg.GetClientCertificate = s.clientCertificate
	}
	return cfg, nil
}

// verify checks the server's chain against the current CA pool and its
// certificate against the server name, as crypto/tls would.
func (s *tlsSource) verify(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("tls: the server sent no certificate")
	}
	roots, err := s.roots()
	if err != nil {
		return err
	}
	name := cs.ServerName
	if name == "" {
		name = s.verifyName
	}
	opts := x509.VerifyOptions{Roots: roots, DNSName: name, Intermediates: x509.NewCertPool()}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err = cs.PeerCertificates[0].Verify(opts)
	return err
}

// roots returns the CA pool of caFile, read again when the file changed.
func (s *tlsSource) roots() (*x509.CertPool, error) {
	stamp, statErr := stampOf(s.caFile)
	s.mu.Lock()
	pool, cur := s.pool, s.caStamp
	s.mu.Unlock()
	if pool != nil && (statErr != nil || stamp == cur) {
		return pool, nil
	}
	pem, err := os.ReadFile(s.caFile)
	fresh := x509.NewCertPool()
	if err == nil && !fresh.AppendCertsFromPEM(pem) {
		err = errs.Errorf("%s holds no PEM certificate", s.caFile)
	}
	if err != nil {
		if pool != nil {
			return pool, nil
		}
		return nil, errs.Errorf("read CA file: %w", err)
	}
	s.mu.Lock()
	s.pool, s.caStamp = fresh, stamp
	s.mu.Unlock()
	return fresh, nil
}

// clientCertificate is the GetClientCertificate callback: the static
// certificate when there is one, else the exec plugin's, else none.
func (s *tlsSource) clientCertificate(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
	if s.hasCert {
		return s.certificate()
	}
	if s.exec != nil {
		cred, err := s.exec.credential(cri.Context())
		if err != nil {
			return nil, err
		}
		if cred.cert != nil {
			return cred.cert, nil
		}
	}
	return &tls.Certificate{}, nil
}

// certificate returns the static client certificate, read again when its
// certificate or key file changed.
func (s *tlsSource) certificate() (*tls.Certificate, error) {
	var certStamp, keyStamp fileStamp
	var statErr error
	if s.certData == nil {
		certStamp, statErr = stampOf(s.certFile)
	}
	if s.keyData == nil && statErr == nil {
		keyStamp, statErr = stampOf(s.keyFile)
	}
	s.mu.Lock()
	cert, curCert, curKey := s.cert, s.certStamp, s.keyStamp
	s.mu.Unlock()
	if cert != nil && (statErr != nil || (certStamp == curCert && keyStamp == curKey)) {
		return cert, nil
	}
	pair, err := s.readPair()
	if err != nil {
		if cert != nil {
			return cert, nil
		}
		return nil, err
	}
	s.mu.Lock()
	s.cert, s.certStamp, s.keyStamp = pair, certStamp, keyStamp
	s.mu.Unlock()
	return pair, nil
}

// readPair reads and parses the client certificate and key. Its errors
// never include the key.
func (s *tlsSource) readPair() (*tls.Certificate, error) {
	certPEM, keyPEM := s.certData, s.keyData
	var err error
	if certPEM == nil {
		if certPEM, err = os.ReadFile(s.certFile); err != nil {
			return nil, errs.Errorf("read client certificate: %w", err)
		}
	}
	if keyPEM == nil {
		if keyPEM, err = os.ReadFile(s.keyFile); err != nil {
			return nil, errs.Errorf("read client key: %w", err)
		}
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, errs.Errorf("load client certificate: %w", err)
	}
	return &pair, nil
}

// fileStamp tells whether a file changed since it was read: its size and
// modification time.
type fileStamp struct {
	size    int64
	modTime int64 // UnixNano
}

// stampOf returns the stamp of the file at path (one stat).
func stampOf(path string) (fileStamp, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}, err
	}
	return fileStamp{size: fi.Size(), modTime: fi.ModTime().UnixNano()}, nil
}
