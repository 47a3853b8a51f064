// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the in-process transport: no socket, each request served by
// a goroutine that writes the response through an io.Pipe. Everything it
// blocks on is a channel or a timer, so code under test can run inside a
// testing/synctest bubble, where time advances when every goroutine
// waits.

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
	return &kube.Config{Host: "https://kubetest.invalid", Namespace: "default", BearerToken: s.defaultToken(),
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
	c.BearerToken = s.tokenFor(user)
	return c
}

type transport struct{ s *Server }

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	closeBody := func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}
	select {
	case <-t.s.done:
		closeBody()
		return nil, ErrClosed
	default:
	}
	ctx, cancel := context.WithCancel(req.Context())
	hreq := req.Clone(ctx)
	if hreq.Body == nil {
		hreq.Body = http.NoBody
	}
	hreq.RequestURI = req.URL.RequestURI()
	hreq.RemoteAddr = "127.0.0.1:1"
	if hreq.Host == "" {
		hreq.Host = req.URL.Host
	}
	pr, pw := io.Pipe()
	rw := &pipeWriter{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	rw.buf = bufio.NewWriterSize(pw, 32<<10)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer cancel()
		defer closeBody()
		t.s.ServeHTTP(rw, hreq)
		rw.finish()
	}()
	select {
	case <-rw.ready:
	case <-req.Context().Done():
		cancel()
		_ = pr.CloseWithError(req.Context().Err())
		<-done
		return nil, req.Context().Err()
	}
	resp := &http.Response{
		Status:        strconv.Itoa(rw.code) + " " + http.StatusText(rw.code),
		StatusCode:    rw.code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rw.sent,
		Body:          &pipeBody{pr: pr, cancel: cancel, done: done},
		ContentLength: -1,
		Request:       req,
	}
	if n, err := strconv.ParseInt(rw.sent.Get("Content-Length"), 10, 64); err == nil {
		resp.ContentLength = n
	} else {
		resp.TransferEncoding = []string{"chunked"}
	}
	return resp, nil
}

// pipeWriter is the http.ResponseWriter of an in-process request.
type pipeWriter struct {
	header http.Header
	pw     *io.PipeWriter
	buf    *bufio.Writer
	// ready is closed when the status and headers are committed; code
	// and sent are set before.
	ready     chan struct{}
	code      int
	sent      http.Header
	committed bool
}

func (w *pipeWriter) Header() http.Header { return w.header }

func (w *pipeWriter) WriteHeader(code int) {
	if w.committed {
		return
	}
	w.committed = true
	w.code = code
	w.sent = w.header.Clone()
	close(w.ready)
}

func (w *pipeWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.buf.Write(p)
}

// FlushError sends what is buffered to the client; it blocks until the
// client has read it. It makes [http.NewResponseController] flush.
func (w *pipeWriter) FlushError() error {
	w.WriteHeader(http.StatusOK)
	return w.buf.Flush()
}

// Flush implements [http.Flusher].
func (w *pipeWriter) Flush() { _ = w.FlushError() }

// finish ends the response after the handler returned.
func (w *pipeWriter) finish() {
	w.WriteHeader(http.StatusOK)
	err := w.buf.Flush()
	_ = w.pw.CloseWithError(err)
}

// pipeBody is the body of an in-process response.
type pipeBody struct {
	pr     *io.PipeReader
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

func (b *pipeBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

// Close ends the request: the handler's context is cancelled, its writes
// fail, and Close waits for it to return.
func (b *pipeBody) Close() error {
	b.once.Do(func() {
		b.cancel()
		_ = b.pr.Close()
		<-b.done
	})
	return nil
}
