// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/internal/wait"
)

// request is one call to the server before it is sent.
type request struct {
	method      string
	path        string
	query       url.Values
	body        []byte
	contentType string
	accept      string
	// maxBody bounds the answer when it is not one object (a discovery
	// document, a list); zero means the client's object limit.
	maxBody int
	// cancel, when set, cancels the request's context: a request that
	// is not a watch, of a client without Config.Timeout, whose answer's
	// headers do not come within HeaderTimeout (see requestContext).
	cancel context.CancelFunc
	// list says the answer is a list, which maxBody bounds: a larger one
	// is ErrListTooLarge.
	list bool
	// safe marks reads: they are retried after a connection error and
	// after any 429 Too Many Requests (writes only after one that says
	// when: see do).
	safe bool
	// discoveryRoot marks /api and /apis, which every Kubernetes API
	// server serves: a 404 without a Status there is a server that is
	// not one (see plainNotFound).
	discoveryRoot bool
	// warnings, when not nil, receives the Warning headers of the answer
	// (else they are logged); see WriteOptions.Warnings.
	warnings *[]string
}

// Retry bounds. Reads are retried after a dropped connection and after
// 429 Too Many Requests (waiting the server's Retry-After, at most
// maxRetryAfter). Writes are retried only after a 429 that says when to
// come back (a Retry-After header or retryAfterSeconds), as client-go
// retries them: the server's Priority and Fairness and its max-in-flight
// limit answer so before they run the request, and a client without a
// rate limit of its own (the default) meets them under load. A write is
// never retried after a dropped connection, since the server may have
// applied it.
const (
	maxConnRetries = 3
	maxThrottled   = 10
	maxRetryAfter  = time.Minute
	connRetryBase  = 200 * time.Millisecond
)

// HeaderTimeout bounds how long a request that is not a watch waits for
// its answer's headers when [Config.Timeout] is zero (the default), so
// that a server (or a proxy in the way) that never answers does not hold
// the caller, or an informer's list, for ever. It is counted from the
// moment the request is sent, after the client's rate limit; the body
// that follows the headers (a long list streams for as long as it takes)
// is not bounded by it.
//
// kube-apiserver answers every request that is not long-running (not a
// watch, a log follow, an exec or a proxy) within its --request-timeout,
// 60 seconds unless set otherwise: past it, its timeout filter answers
// 504 Timeout. A healthy server has therefore always sent its headers
// by 60 seconds; 70 leaves ten for the network and a credential plugin's
// run, and never cuts an answer such a server gives. Watches have no
// header deadline here: cache's informers reopen a watch that stays
// silent past its timeoutSeconds (see package cache).
const HeaderTimeout = 70 * time.Second

// errNoHeaders is the error of a request whose answer's headers did not
// come within HeaderTimeout. It is not retried: a read is tried again by
// its caller (an informer after its backoff).
var errNoHeaders = errors.New("the server sent no answer headers within 70s (kube.HeaderTimeout, the wait when Config.Timeout is zero)")

// call sends r and decodes a successful answer into out (ignored when nil),
// within the configured per-request timeout. The answer is read whole,
// up to r.maxBody or the client's object limit.
func (c *Client) call(ctx context.Context, r *request, out any) error {
	ctx, cancel := c.requestContext(ctx, r)
	defer cancel()
	resp, err := c.do(ctx, r)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
		return nil
	}
	limit := r.maxBody
	if limit == 0 {
		limit = c.maxObject()
	}
	body, whole, err := readLimited(resp.Body, limit)
	switch {
	case err != nil:
		return fmt.Errorf("read response: %w", err)
	case !whole && r.maxBody == 0:
		return tooLarge("", limit)
	case !whole && r.list:
		return listTooLarge("the answer", int64(limit), int64(len(body)))
	case !whole:
		return fmt.Errorf("%s %s: the answer is larger than %d bytes", r.method, r.path, limit)
	}
	resetObject(out)
	if err := unmarshal(c.dec.all, body, out); err != nil {
		return fmt.Errorf("decode response (%s): %w", answerShape(body), err)
	}
	return nil
}

// requestContext bounds ctx, the context of r (not a watch), by the
// configured per-request timeout; without one, it makes a context that
// do cancels when the answer's headers do not come within
// [HeaderTimeout]. The caller cancels it once done with the answer.
func (c *Client) requestContext(ctx context.Context, r *request) (context.Context, context.CancelFunc) {
	if c.cfg.Timeout > 0 {
		return context.WithTimeout(ctx, c.cfg.Timeout)
	}
	ctx, r.cancel = context.WithCancel(ctx)
	return ctx, r.cancel
}

// do sends r, waiting for the rate limit first and retrying safe requests
// as the constants above say. A response with status >= 400 becomes a
// *StatusError; a successful response is the caller's to close.
func (c *Client) do(ctx context.Context, r *request) (*http.Response, error) {
	u := *c.base
	u.Path += r.path
	u.RawQuery = r.query.Encode()
	target := u.String()
	connFailures, throttled := 0, 0
	for {
		if err := c.limiter.wait(ctx); err != nil {
			return nil, err
		}
		req, err := http.NewRequestWithContext(ctx, r.method, target, bytes.NewReader(r.body))
		if err != nil {
			return nil, err
		}
		if r.contentType != "" {
			req.Header.Set("Content-Type", r.contentType)
		}
		accept := r.accept
		if accept == "" {
			accept = "application/json"
		}
		req.Header.Set("Accept", accept)

		var deadline *time.Timer
		if r.cancel != nil {
			deadline = time.AfterFunc(HeaderTimeout, r.cancel)
		}
		resp, err := c.http.Do(req)
		if deadline != nil && !deadline.Stop() { // the headers did not come in time
			if err == nil {
				resp.Body.Close()
			}
			return nil, errNoHeaders
		}
		if re, ok := errs.As[*redirectError](err); ok {
			return nil, re // without the *url.Error that quotes the target's query
		}
		if err != nil {
			if r.safe && connFailures < maxConnRetries && ctx.Err() == nil && isConnectionError(err) {
				delay := connRetryBase << connFailures
				connFailures++
				c.log.Debug("retrying after connection error", "method", r.method, "path", r.path, "err", err, "delay", delay)
				if !wait.Sleep(ctx, delay) {
					return nil, ctx.Err()
				}
				continue
			}
			return nil, err
		}
		if len(resp.Header["Warning"]) > 0 {
			c.warned(r, resp.Header)
		}
		if resp.StatusCode < 400 {
			return resp, nil
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		se := errorFromResponse(c.dec.all, resp.StatusCode, resp.Header, body)
		if resp.StatusCode == http.StatusTooManyRequests && (r.safe || se.RetryAfter > 0) && throttled < maxThrottled {
			throttled++
			delay := min(max(se.RetryAfter, time.Second), maxRetryAfter)
			c.log.Debug("server throttled request", "method", r.method, "path", r.path, "delay", delay)
			if !wait.Sleep(ctx, delay) {
				return nil, ctx.Err()
			}
			continue
		}
		if se.plain && resp.StatusCode == http.StatusNotFound {
			return nil, c.plainNotFound(r, se)
		}
		return nil, se
	}
}

// isConnectionError reports errors where the request most likely never
// reached the server or its answer was cut: worth retrying a read.
func isConnectionError(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		isTimeout(err)
}

// isTimeout reports whether err is a net.Error that timed out.
func isTimeout(err error) bool {
	ne, ok := errs.As[net.Error](err)
	return ok && ne.Timeout()
}
