// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"errors"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/inprocess"
)

// This file is the in-process transport: no socket, each request served by
// a goroutine that writes the response through an io.Pipe
// (internal/inprocess). Everything it blocks on is a channel or a timer,
// so code under test can run inside a testing/synctest bubble, where time
// advances when every goroutine waits.

// ErrClosed is returned by the in-process transport once the server is
// closed.
var ErrClosed = errors.New("kubetest: server closed")

// Transport returns an [http.RoundTripper] that serves requests in-process.
// Each request runs in its own goroutine, started by RoundTrip and ended
// when the handler returns, which it does when the response is complete,
// when the client closes the body or cancels the request, or when the
// server is closed. Closing a response body waits for its handler to end.
func (s *Server) Transport() http.RoundTripper { return &transport{s: s} }

// Config returns a client configuration that reaches the server through
// [Server.Transport], with the bearer token of user "admin" (or another
// configured token) when tokens are configured. The host is a placeholder
// that is never resolved.
func (s *Server) Config() *kube.Config {
	return &kube.Config{Host: "https://kubetest.invalid", Namespace: "default", BearerToken: authz.DefaultToken(s.opts.Tokens),
		Transport: s.Transport()}
}

// Client returns a client of the server made from [Server.Config] with
// opts, without client-side rate limit (QPS -1, whatever kube's default
// may become): tests count requests and need no pacing. It works inside a synctest bubble when the server was
// made in it.
func (s *Server) Client(opts kube.ClientOptions) (*kube.Client, error) {
	cfg := s.Config()
	cfg.QPS = -1
	return kube.NewClient(cfg, opts)
}

// ConfigFor is [Server.Config] with a token of user (none if user has no
// token).
func (s *Server) ConfigFor(user string) *kube.Config {
	c := s.Config()
	c.BearerToken = authz.TokenFor(s.opts.Tokens, user)
	return c
}

type transport struct{ s *Server }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	select {
	case <-t.s.done:
		if req.Body != nil {
			_ = req.Body.Close()
		}
		return nil, ErrClosed
	default:
	}
	return inprocess.RoundTrip(req, t.s.ServeHTTP)
}
