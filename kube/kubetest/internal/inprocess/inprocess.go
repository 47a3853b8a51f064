// SPDX-License-Identifier: Apache-2.0

// Package inprocess is an http.RoundTripper's work done without a
// socket: [RoundTrip] serves a request with a handler in a goroutine that
// writes the response through an io.Pipe. Everything it blocks on is a
// channel, so code under test can run inside a testing/synctest bubble,
// where time advances when every goroutine waits.
//
// Guarantees:
//   - No goroutine outlives its request: the one RoundTrip starts ends
//     when the handler returns, and closing the response body waits for
//     it.
//   - A request cancelled before the headers are written returns the
//     context's error, after the handler returned.
package inprocess

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strconv"
	"sync"
)

// RoundTrip serves req with serve in a goroutine of its own, and returns
// the response as soon as serve has written its status and headers; the
// body is what serve writes, through an io.Pipe (a Flush sends what is
// buffered, and blocks until the client has read it). The goroutine ends
// when serve returns, which it must when its request's context is done:
// when the client cancels the request or closes the body. Closing the
// body waits for serve to return. req's body is closed when serve returns.
func RoundTrip(req *http.Request, serve http.HandlerFunc) (*http.Response, error) {
	closeBody := func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
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
		serve(rw, hreq)
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
