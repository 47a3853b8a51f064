// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/listen"
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

	s    *Server
	sock *listen.Socket // serves and counts (internal/listen)
}

// Connections returns how many connections the listener accepted since
// it started, and how many were open at most at once.
func (l *Listener) Connections() (accepted, peak int) { return l.sock.Connections() }

// Listen serves the server on a new loopback port, over TLS with a freshly
// generated CA when useTLS is set. The listener runs until [Listener.Close]
// or [Server.Close].
func (s *Server) Listen(useTLS bool) (*Listener, error) {
	return s.ListenAddr("127.0.0.1:0", useTLS)
}

// ListenAddr is [Server.Listen] on addr ("127.0.0.1:0" picks a free port).
func (s *Server) ListenAddr(addr string, useTLS bool) (*Listener, error) {
	sock, err := listen.Open(addr, useTLS, s)
	if err != nil {
		return nil, err
	}
	l := &Listener{URL: sock.URL, CAData: sock.CAData, s: s, sock: sock}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sock.Abort()
		return nil, ErrClosed
	}
	s.listeners = append(s.listeners, l)
	s.mu.Unlock()
	sock.Serve(s.log)
	return l, nil
}

// Config returns a client configuration for the listener: its URL, its CA
// and, when tokens are configured, the token [Server.Config] uses.
func (l *Listener) Config() *kube.Config {
	return &kube.Config{Host: l.URL, Namespace: "default", BearerToken: authz.DefaultToken(l.s.opts.Tokens),
		TLS: kube.TLSConfig{CAData: l.CAData}}
}

// Close stops the listener, ends its connections (and so its watches) and
// waits for it to stop serving.
func (l *Listener) Close() { l.sock.Close() }
