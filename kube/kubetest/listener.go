// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/pki"
)

// Listener is the server on a loopback socket, made by [Server.Listen], as
// [net/http/httptest.Server] is for a handler.
type Listener struct {
	// URL is the base URL, "http://127.0.0.1:PORT" or
	// "https://127.0.0.1:PORT".
	URL string
	// CAData is the PEM certificate of the self-signed CA that signed the
	// server's certificate (valid for 127.0.0.1, ::1 and localhost); nil
	// for plain HTTP.
	CAData []byte

	s       *Server
	srv     *http.Server
	served  chan struct{}
	closing sync.Once

	// mu guards accepted, open and peak: the connections accepted so far,
	// open now, and open at most at once.
	mu                   sync.Mutex
	accepted, open, peak int
}

// Connections returns how many connections the listener accepted since
// it started, and how many were open at most at once.
func (l *Listener) Connections() (accepted, peak int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.accepted, l.peak
}

// connState counts the listener's connections.
func (l *Listener) connState(_ net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch state {
	case http.StateNew:
		l.accepted++
		l.open++
		l.peak = max(l.peak, l.open)
	case http.StateClosed, http.StateHijacked:
		l.open--
	}
}

// Listen serves the server on a new loopback port, over TLS with a freshly
// generated CA when useTLS is set. The listener runs until [Listener.Close]
// or [Server.Close].
func (s *Server) Listen(useTLS bool) (*Listener, error) {
	return s.ListenAddr("127.0.0.1:0", useTLS)
}

// ListenAddr is [Server.Listen] on addr ("127.0.0.1:0" picks a free port).
func (s *Server) ListenAddr(addr string, useTLS bool) (*Listener, error) {
	l := &Listener{s: s, served: make(chan struct{})}
	l.srv = &http.Server{Handler: s, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil, ConnState: l.connState}
	if useTLS {
		ca, cert, err := pki.LoopbackCert()
		if err != nil {
			return nil, fmt.Errorf("listen: make certificates: %w", err)
		}
		l.CAData = ca
		l.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	l.URL = scheme + "://" + ln.Addr().String()
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = ln.Close()
		return nil, ErrClosed
	}
	s.listeners = append(s.listeners, l)
	s.mu.Unlock()
	go func() {
		defer close(l.served)
		var err error
		if useTLS {
			err = l.srv.ServeTLS(ln, "", "")
		} else {
			err = l.srv.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("listener stopped", "addr", l.URL, "err", err)
		}
	}()
	return l, nil
}

// Config returns a client configuration for the listener: its URL, its CA
// and, when tokens are configured, the token [Server.Config] uses.
func (l *Listener) Config() *kube.Config {
	return &kube.Config{Host: l.URL, Namespace: "default", BearerToken: l.s.defaultToken(),
		TLS: kube.TLSConfig{CAData: l.CAData}}
}

// Close stops the listener, ends its connections (and so its watches) and
// waits for it to stop serving.
func (l *Listener) Close() {
	l.closing.Do(func() {
		_ = l.srv.Close()
		<-l.served
	})
}
