// SPDX-License-Identifier: Apache-2.0

package metricsauth

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/internal/servingcert"
	"github.com/kubeloop/kubeloop/kube"
)

// DefaultBindAddress is where a [Server] listens when
// Options.BindAddress is empty: port 8443 of every interface, as
// kubebuilder scaffolds --metrics-bind-address for secure metrics.
const DefaultBindAddress = ":8443"

// shutdownTimeout bounds the wait for the scrapes in flight when the
// server stops.
const shutdownTimeout = 10 * time.Second

// Options configure a [Server]. Set CertDir or Certificates.
type Options struct {
	// BindAddress is where the metrics are served, at /metrics:
	// "host:port"; empty means [DefaultBindAddress].
	BindAddress string
	// CertDir holds the serving certificate and key, typically a mounted
	// kubernetes.io/tls Secret that cert-manager renews: read by Listen
	// (a missing or bad pair fails it, naming the path) and again
	// whenever the files change, as the webhook server reads its own.
	CertDir string
	// CertName and KeyName are the PEM files in CertDir; empty means
	// "tls.crt" and "tls.key", the keys of a kubernetes.io/tls Secret.
	CertName, KeyName string
	// Certificates, in place of CertDir, gives the serving certificate at
	// each handshake: a *certs.Certs of package manager/webhook/certs,
	// which makes, rotates and serves it from a Secret. If it has a
	// Start(context.Context) error method, the server's Start runs it for
	// as long as it serves (so give the server a Certs of its own: one
	// that a webhook server runs cannot be started twice).
	Certificates CertificateSource

	// Logger receives the server's start, the callers refused (debug),
	// the reviews that failed (error), the certificate's loads (info)
	// and the handshakes that failed (warn; debug while Certificates has
	// no certificate yet); nil discards them.
	Logger *slog.Logger
}

// CertificateSource gives the server its serving certificate at each
// TLS handshake (tls.Config.GetCertificate), so that a rotated
// certificate is served without a restart. It has the method set of
// webhook.CertificateSource, declared here so that this package does not
// link the webhook server.
type CertificateSource interface {
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
}

// Manager is what a [Server] needs of the manager whose metrics it
// serves: a *manager.Manager has it. MetricsHandler fails unless the
// manager's own, plain HTTP, metrics server is off.
type Manager interface {
	APIClient() *kube.Client
	MetricsHandler() (http.Handler, error)
}

// Server serves a manager's metrics over HTTPS to the callers the API
// server authenticates and authorizes. Make it with [New] and add it to
// the manager (manager.Manager.Add), which has it Listen first thing in
// its Start, starts it before the caches and stops it after them, on
// every replica; or run it with Start yourself. See the package doc for
// what it guarantees.
type Server struct {
	addr    string
	log     *slog.Logger
	handler *authorizer
	certs   CertificateSource
	// files is the reloader of CertDir's pair; nil with Certificates.
	files *servingcert.Files

	mu sync.Mutex
	// ln is the bound listener from Listen until Start takes it.
	ln net.Listener
	// bound is the address ln got, kept after Start takes ln.
	bound net.Addr
	// started is set by the first Start.
	started bool
}

// New checks opts and returns a server of mgr's metrics, reviewing its
// callers through mgr's API client. It does no I/O. It fails when mgr
// serves its metrics itself (set manager.Options.MetricsBindAddress to
// "0"), and on options that name no certificate.
func New(mgr Manager, opts Options) (*Server, error) {
	metrics, err := mgr.MetricsHandler()
	if err != nil {
		return nil, fmt.Errorf("new metrics server: %w", err)
	}
	addr := opts.BindAddress
	if addr == "" {
		addr = DefaultBindAddress
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return nil, fmt.Errorf("new metrics server: BindAddress %q: want \"host:port\"", opts.BindAddress)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{addr: addr, log: log, handler: newAuthorizer(mgr.APIClient(), metrics, log), certs: opts.Certificates}
	switch {
	case opts.CertDir != "" && opts.Certificates != nil:
		return nil, fmt.Errorf("new metrics server: CertDir %q and Certificates are both set: want one", opts.CertDir)
	case opts.Certificates != nil:
		return s, nil
	case opts.CertDir == "":
		return nil, errors.New("new metrics server: CertDir and Certificates are both empty: want the serving certificate's directory or source")
	}
	certName, keyName := opts.CertName, opts.KeyName
	if certName == "" {
		certName = "tls.crt"
	}
	if keyName == "" {
		keyName = "tls.key"
	}
	for field, name := range map[string]string{"CertName": certName, "KeyName": keyName} {
		if strings.ContainsRune(name, os.PathSeparator) || name == "." || name == ".." {
			return nil, fmt.Errorf("new metrics server: %s %q must be a file name in CertDir", field, name)
		}
	}
	s.files = servingcert.NewFiles(filepath.Join(opts.CertDir, certName), filepath.Join(opts.CertDir, keyName), log)
	s.certs = s.files
	return s, nil
}

// Listen loads the certificate (CertDir's files; Start runs
// Certificates) and binds the address, so that a manager's Start, which
// calls it first of all, fails early; Start then serves on that socket.
// The error names the certificate's path or the address. Listen again
// before Start does nothing; after Start it is an error.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return nil
	}
	return s.listenLocked()
}

func (s *Server) listenLocked() error {
	if s.bound != nil {
		return fmt.Errorf("start metrics server: already listening on %s", s.bound)
	}
	if s.files != nil {
		if err := s.files.Load(); err != nil {
			return fmt.Errorf("start metrics server: %w", err)
		}
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("start metrics server: BindAddress %q: %w", s.addr, err)
	}
	s.ln, s.bound = ln, ln.Addr()
	return nil
}

// Addr is the bound address (the port the system chose for ":0"), nil
// before Listen.
func (s *Server) Addr() net.Addr {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bound
}

// Start serves until ctx is done, listening first unless Listen did,
// and runs the certificate source's Start, if it has one, as long.
// Then it stops accepting connections, waits up to 10 seconds for the
// scrapes in flight, closes the rest, and returns nil. A failure to
// listen or to serve, or of the certificate source, is returned at once.
// Start may be called once.
func (s *Server) Start(ctx context.Context) error {
	ln, err := s.take()
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		WriteTimeout:      time.Minute,
		IdleTimeout:       90 * time.Second,
		ErrorLog:          servingcert.ErrorLog(s.log),
	}
	sourceCtx, stopSource := context.WithCancel(ctx)
	defer stopSource()
	var wg sync.WaitGroup
	sourceDone := make(chan error, 1)
	if starter, ok := s.certs.(interface{ Start(context.Context) error }); ok {
		wg.Go(func() { sourceDone <- starter.Start(sourceCtx) })
	}
	served := make(chan error, 1)
	wg.Go(func() { served <- srv.Serve(tls.NewListener(ln, servingcert.TLSConfig(s.certs))) })
	s.log.Info("serving metrics over HTTPS", "addr", ln.Addr().String())

	select {
	case err = <-served:
		err = fmt.Errorf("serve metrics on %s: %w", ln.Addr(), err)
	case err = <-sourceDone:
		if err != nil {
			err = fmt.Errorf("serve metrics on %s: certificates: %w", ln.Addr(), err)
		} else if ctx.Err() == nil {
			err = fmt.Errorf("serve metrics on %s: certificates stopped", ln.Addr())
		}
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	if srv.Shutdown(stop) != nil {
		_ = srv.Close()
	}
	// The certificates are served until the last scrape in flight ends.
	stopSource()
	wg.Wait()
	return err
}

// take hands Start the listener, opening it unless Listen did.
func (s *Server) take() (net.Listener, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.started {
		return nil, errors.New("start metrics server: started before")
	}
	s.started = true
	if s.ln == nil {
		if err := s.listenLocked(); err != nil {
			return nil, err
		}
	}
	ln := s.ln
	s.ln = nil
	return ln, nil
}

// Name is the server's name in the manager's errors and logs.
func (s *Server) Name() string { return "metrics server" }

// NeedLeaderElection reports false: every replica serves its metrics.
func (s *Server) NeedLeaderElection() bool { return false }
