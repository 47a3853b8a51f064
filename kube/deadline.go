// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
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

// errNoHeaders is the cause of an attempt canceled at HeaderTimeout, and
// wrapped by its error. It is not retried: a read is tried again by its
// caller (an informer after its backoff).
var errNoHeaders = errors.New("no answer headers in time")

// headerDeadline bounds one attempt at r: it returns the context to send
// it with and a function to call with what the client's Do returned. That
// function stops the deadline and returns the answer or error to use: a
// successful answer's body then releases the context when closed; an
// attempt canceled at the deadline becomes an error saying so. Requests
// with nothing to bound (a watch, or a client with Config.Timeout) get
// ctx itself.
func (c *Client) headerDeadline(ctx context.Context, r *request) (context.Context, func(*http.Response, error) (*http.Response, error)) {
	if r.watch || c.cfg.Timeout > 0 {
		return ctx, func(resp *http.Response, err error) (*http.Response, error) { return resp, err }
	}
	ctx, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(HeaderTimeout, func() { cancel(errNoHeaders) })
	return ctx, func(resp *http.Response, err error) (*http.Response, error) {
		inTime := t.Stop()
		if err == nil && inTime {
			resp.Body = &releasingBody{ReadCloser: resp.Body, release: func() { cancel(nil) }}
			return resp, nil
		}
		if err == nil {
			resp.Body.Close() // the deadline passed as the headers came
		}
		cancel(nil)
		if !inTime {
			return nil, fmt.Errorf("%w: the server sent no answer to %s %s within %v (kube.HeaderTimeout, the wait when Config.Timeout is zero)",
				errNoHeaders, r.method, r.path, HeaderTimeout)
		}
		return nil, err
	}
}

// releasingBody is an answer's body that calls release once closed.
type releasingBody struct {
	io.ReadCloser
	release func()
}

func (b *releasingBody) Close() error {
	err := b.ReadCloser.Close()
	b.release()
	return err
}
