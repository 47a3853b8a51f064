// SPDX-License-Identifier: Apache-2.0

// Package listen serves kubetest's server on a loopback socket, over
// plain HTTP or over TLS with a freshly made CA (package pki), for
// kubetest's Listener: [Open] listens, [Socket.Serve] serves, and
// [Socket.Close] stops, counting the connections on the way.
//
// Guarantees:
//   - Open does not serve: nothing runs until Serve, and [Socket.Abort]
//     frees the port of a socket that will not be served.
//   - Close ends every connection (and so every watch) and returns once
//     the socket has stopped serving; it may be called more than once.
//   - A failure to serve other than closing is logged at warn level,
//     never lost silently.
package listen

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/pki"
)

// Socket is a handler on a loopback socket.
type Socket struct {
	// URL is the base URL, "http://127.0.0.1:PORT" or
	// "https://127.0.0.1:PORT".
	URL string
	// CAData is the PEM certificate of the CA that signed the serving
	// certificate; nil for plain HTTP.
	CAData []byte

	ln      net.Listener
	tls     bool
	srv     *http.Server
	served  chan struct{}
	closing sync.Once

	// mu guards accepted, open and peak: the connections accepted so far,
	// open now, and open at most at once.
	mu                   sync.Mutex
	accepted, open, peak int
}

// Open listens on addr ("127.0.0.1:0" picks a free port) for h, over TLS
// with a certificate for 127.0.0.1, ::1 and localhost when useTLS is set.
func Open(addr string, useTLS bool, h http.Handler) (*Socket, error) {
	s := &Socket{tls: useTLS, served: make(chan struct{})}
	s.srv = &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second, ErrorLog: nil, ConnState: s.connState}
	if useTLS {
		ca, cert, err := pki.LoopbackCert()
		if err != nil {
			return nil, fmt.Errorf("listen: make certificates: %w", err)
		}
		s.CAData = ca
		s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", addr, err)
	}
	scheme := "http"
	if useTLS {
		scheme = "https"
	}
	s.ln, s.URL = ln, scheme+"://"+ln.Addr().String()
	return s, nil
}

// Abort frees the port of a socket that will not be served.
func (s *Socket) Abort() { _ = s.ln.Close() }

// Serve serves the socket in a goroutine of its own until Close; log
// receives a failure to serve.
func (s *Socket) Serve(log *slog.Logger) {
	go func() {
		defer close(s.served)
		var err error
		if s.tls {
			err = s.srv.ServeTLS(s.ln, "", "")
		} else {
			err = s.srv.Serve(s.ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Warn("listener stopped", "addr", s.URL, "err", err)
		}
	}()
}

// Connections returns how many connections the socket accepted since it
// started, and how many were open at most at once.
func (s *Socket) Connections() (accepted, peak int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted, s.peak
}

// connState counts the socket's connections.
func (s *Socket) connState(_ net.Conn, state http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch state {
	case http.StateNew:
		s.accepted++
		s.open++
		s.peak = max(s.peak, s.open)
	case http.StateClosed, http.StateHijacked:
		s.open--
	}
}

// Close stops the socket, ends its connections and waits for it to stop
// serving. It must be called after Serve.
func (s *Socket) Close() {
	s.closing.Do(func() {
		_ = s.srv.Close()
		<-s.served
	})
}
