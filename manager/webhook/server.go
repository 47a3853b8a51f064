// SPDX-License-Identifier: Apache-2.0

package webhook

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/internal/servingcert"
)

// DefaultPort is the port a [Server] listens on when Options.Port is 0,
// as controller-runtime's.
const DefaultPort = 9443

// ShutdownTimeout bounds how long Start waits, once its context is done,
// for the reviews in flight: the API server waits at most 30s for one.
const ShutdownTimeout = 30 * time.Second

// DefaultCertDir is where a [Server] reads its certificate when
// Options.CertDir is empty: os.TempDir()/k8s-webhook-server/serving-certs,
// as controller-runtime.
func DefaultCertDir() string {
	return filepath.Join(os.TempDir(), "k8s-webhook-server", "serving-certs")
}

// Options configure a [Server]. The zero value listens on port 9443 of
// every interface with the certificate in [DefaultCertDir], as
// controller-runtime's.
type Options struct {
	// Host is the address to listen on; empty means every interface.
	Host string
	// Port is the port to listen on: 0 means [DefaultPort]; a negative
	// port lets the system choose a free one (for tests and demos), which
	// [Server.Addr] tells after Listen.
	Port int
	// CertDir holds the serving certificate and key, typically a mounted
	// kubernetes.io/tls Secret that cert-manager renews; empty means
	// [DefaultCertDir].
	CertDir string
	// CertName and KeyName are the PEM files in CertDir; empty means
	// "tls.crt" and "tls.key", the keys of a kubernetes.io/tls Secret.
	CertName, KeyName string
	// Certificates, when set, gives the serving certificate in place of
	// the files of CertDir (CertDir, CertName and KeyName are then
	// ignored): package manager/webhook/certs makes, rotates and serves
	// them from a Secret. If it has a Start(context.Context) error
	// method, the server's Start runs it for as long as it serves.
	// Until its GetCertificate succeeds, handshakes fail and
	// StartedChecker reports the server not ready.
	Certificates CertificateSource

	// Logger receives certificate loads (info), reload failures (error),
	// TLS handshake errors (warn) but those refused while
	// Certificates has no certificate yet (debug: the server is not
	// ready, as StartedChecker says); nil discards them.
	Logger *slog.Logger
}

// CertificateSource gives a [Server] its serving certificate at each TLS
// handshake (tls.Config.GetCertificate), so that a rotated certificate
// is served without a restart.
type CertificateSource interface {
	GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error)
}

// Server serves admission and conversion webhooks to the API server over
// HTTPS. Build it with [New], add handlers with Register, and give it to
// the manager (manager.Options.WebhookServer), which has it Listen at the
// start of manager.Start, starts it first, stops it last and makes its
// StartedChecker part of readiness; or run it with Start yourself. See the
// package doc for what it guarantees.
type Server struct {
	addr string
	log  *slog.Logger
	// certs serves the certificate; files is the same reloader when
	// the certificate comes from CertDir's files, nil with
	// Options.Certificates.
	certs CertificateSource
	files *servingcert.Files

	routesMu sync.RWMutex
	routes   map[string]http.Handler // by exact path; guarded by routesMu

	mu sync.Mutex
	// ln is the bound listener from Listen until Start takes it.
	ln net.Listener
	// bound is the address ln got, kept after Start takes ln.
	bound net.Addr
	// started is set by the first Start; a second Start is an error.
	started bool

	// serving is true while Start serves and its context is not done.
	serving atomic.Bool
}

// New checks opts and returns a server that is not listening yet. It does
// no I/O.
func New(opts Options) (*Server, error) {
	port := opts.Port
	switch {
	case port == 0:
		port = DefaultPort
	case port < 0:
		port = 0
	case port > 65535:
		return nil, fmt.Errorf("new webhook server: Port %d is not a TCP port", opts.Port)
	}
	dir, certName, keyName := opts.CertDir, opts.CertName, opts.KeyName
	if dir == "" {
		dir = DefaultCertDir()
	}
	if certName == "" {
		certName = "tls.crt"
	}
	if keyName == "" {
		keyName = "tls.key"
	}
	for field, name := range map[string]string{"CertName": certName, "KeyName": keyName} {
		if strings.ContainsRune(name, os.PathSeparator) || name == "." || name == ".." {
			return nil, fmt.Errorf("new webhook server: %s %q must be a file name in CertDir", field, name)
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		addr:   net.JoinHostPort(opts.Host, strconv.Itoa(port)),
		log:    log,
		certs:  opts.Certificates,
		routes: map[string]http.Handler{},
	}
	if s.certs == nil {
		s.files = servingcert.NewFiles(filepath.Join(dir, certName), filepath.Join(dir, keyName), log)
		s.certs = s.files
	}
	return s, nil
}

// Register serves h at path, an exact path beginning with "/" (no
// patterns, no subtree). Handlers come from [ValidatingFor],
// [MutatingFor], [Admission] and [Conversion], or are any http.Handler.
// Registering a path twice, or an invalid path, panics, as http.ServeMux
// does. Handlers may be registered while the server serves.
func (s *Server) Register(path string, h http.Handler) {
	if s == nil {
		panic(fmt.Sprintf("webhook: register %q: %v", path, errNoServer))
	}
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, " ?#") {
		panic(fmt.Sprintf("webhook: register %q: want a path beginning with \"/\"", path))
	}
	if h == nil {
		panic(fmt.Sprintf("webhook: register %q: nil handler", path))
	}
	s.routesMu.Lock()
	defer s.routesMu.Unlock()
	if _, ok := s.routes[path]; ok {
		panic(fmt.Sprintf("webhook: register %q: path already registered", path))
	}
	if s.routes == nil { // a zero Server: it routes, though it cannot listen
		s.routes = map[string]http.Handler{}
	}
	s.routes[path] = h
}

// ServeHTTP routes a request to the handler registered at its exact path,
// or answers 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s == nil {
		notMade(w, "*webhook.Server")
		return
	}
	s.routesMu.RLock()
	h := s.routes[r.URL.Path]
	s.routesMu.RUnlock()
	if h == nil {
		writeError(w, &requestError{http.StatusNotFound, fmt.Sprintf("no webhook at %s", r.URL.Path)})
		return
	}
	h.ServeHTTP(w, r)
}

// Listen loads the certificate (from CertDir's files; not one of
// Options.Certificates, which Start runs) and binds the address, so that
// a caller can fail early, or learn the port the system chose
// ([Server.Addr]); Start then serves on that socket. The error names the
// certificate's path or the address. Listen again before Start does
// nothing and returns nil: a program may Listen early, and give the
// server to a manager, whose Start calls Listen too. After Start it is
// an error.
func (s *Server) Listen() error {
	if !s.made() {
		return fmt.Errorf("start webhook server: %w", errNoServer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return nil // listening, not yet serving
	}
	return s.listenLocked()
}

func (s *Server) listenLocked() error {
	if s.bound != nil {
		return fmt.Errorf("start webhook server: already listening on %s", s.bound)
	}
	if s.files != nil {
		if err := s.files.Load(); err != nil {
			return fmt.Errorf("start webhook server: %w", err)
		}
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return fmt.Errorf("start webhook server: listen on %s: %w", s.addr, err)
	}
	s.ln, s.bound = ln, ln.Addr()
	s.log.Info("webhook server listening", "addr", s.bound.String())
	return nil
}

// Addr is the bound address, nil before Listen.
func (s *Server) Addr() net.Addr {
	if !s.made() {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bound
}

// Start serves until ctx is done, listening first unless Listen did. Then
// it stops accepting connections, waits up to [ShutdownTimeout] for the
// requests in flight, closes the rest, and returns nil. A failure to
// listen or to serve is returned at once. Start may be called once.
func (s *Server) Start(ctx context.Context) error {
	if !s.made() {
		return fmt.Errorf("start webhook server: %w", errNoServer)
	}
	s.mu.Lock()
	if s.started {
		s.mu.Unlock()
		return errors.New("start webhook server: started before")
	}
	s.started = true
	if s.ln == nil {
		if err := s.listenLocked(); err != nil {
			s.mu.Unlock()
			return err
		}
	}
	ln := s.ln
	s.ln = nil
	s.mu.Unlock()

	srv := &http.Server{
		Handler:           s,
		TLSConfig:         servingcert.TLSConfig(s.certs),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       time.Minute,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          servingcert.ErrorLog(s.log),
	}
	served := make(chan error, 1)
	var wg sync.WaitGroup
	sourceCtx, stopSource := context.WithCancel(ctx)
	defer stopSource()
	sourceDone := make(chan error, 1)
	if starter, ok := s.certs.(interface{ Start(context.Context) error }); ok {
		wg.Go(func() { sourceDone <- starter.Start(sourceCtx) })
	}
	wg.Go(func() { served <- srv.Serve(tls.NewListener(ln, srv.TLSConfig)) })
	s.serving.Store(true)

	var err error
	select {
	case err = <-served:
		err = fmt.Errorf("serve webhooks on %s: %w", ln.Addr(), err)
	case err = <-sourceDone:
		if err != nil {
			err = fmt.Errorf("serve webhooks on %s: certificates: %w", ln.Addr(), err)
		} else if ctx.Err() == nil {
			err = fmt.Errorf("serve webhooks on %s: certificates stopped", ln.Addr())
		}
	case <-ctx.Done():
	}
	s.serving.Store(false)
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownTimeout)
	defer cancel()
	if serr := srv.Shutdown(shutdownCtx); serr != nil {
		s.log.Warn("webhook requests still in flight at shutdown; closing them", "err", serr)
		_ = srv.Close()
	}
	// The certificates are served until the last request in flight ends.
	stopSource()
	wg.Wait()
	return err
}

// StartedChecker returns a readiness check that fails until Start serves
// with a certificate, and again once Start's context is done. The manager
// adds it to its readiness checks as "webhook".
func (s *Server) StartedChecker() func(*http.Request) error {
	return func(*http.Request) error {
		if !s.serving.Load() {
			return errors.New("webhook server is not serving")
		}
		if _, err := s.certs.GetCertificate(&tls.ClientHelloInfo{}); err != nil {
			return fmt.Errorf("webhook server has no certificate: %w", err)
		}
		return nil
	}
}

// Name is the server's name in the manager's errors and logs.
func (s *Server) Name() string { return "webhook server" }

// NeedLeaderElection reports false: every replica serves webhooks, since
// the API server calls any of them through the Service.
func (s *Server) NeedLeaderElection() bool { return false }
