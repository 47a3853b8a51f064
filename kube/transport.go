// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Transport timeouts. There is no overall request timeout: watches last as
// long as their context; Config.Timeout is applied per request by [Client].
const (
	dialTimeout         = 30 * time.Second
	tcpKeepAlive        = 30 * time.Second
	tlsHandshakeTimeout = 10 * time.Second
	idleConnTimeout     = 90 * time.Second
	// HTTP/2 health checks: ping a connection that has been silent for
	// sendPingTimeout, and close it when the ping is not answered within
	// pingTimeout, so a watch on a dead connection fails instead of hanging.
	sendPingTimeout = 30 * time.Second
	pingTimeout     = 15 * time.Second
	// TCP keepalive of the HTTP/1.1 connections that carry watches,
	// which have no pings: probe a connection silent for 30s every 10s,
	// and drop it after 3 probes go unanswered, within about a minute.
	watchKeepAliveIdle     = 30 * time.Second
	watchKeepAliveInterval = 10 * time.Second
	watchKeepAliveCount    = 3
)

// defaultUserAgent is sent when Config.UserAgent is empty.
const defaultUserAgent = "kubeloop"

// HTTPClient returns the HTTP client that carries requests to c.Host:
// TLS from c.TLS (minimum TLS 1.2), the proxy c.ProxyURL, HTTP/2 with
// health pings, the User-Agent, and the credentials of c (see [Config]).
// When c.Transport is set it carries the requests instead of a transport
// built from TLS and ProxyURL; credentials are still added on top, except
// client certificates, which only a built transport can present.
//
// Each call reads the CA and client certificate files (to fail early when
// they are wrong) and builds a new connection pool: call it once per
// server and reuse the client, which is safe for concurrent use. It starts
// no goroutine. The client has no timeout: bound each request with its
// context.
//
// Redirects are not followed: a 3xx answer fails the request with an error
// that names the redirect's target (scheme, host and path; never its query
// or user info). kube-apiserver does not redirect the requests a client
// sends, so a redirect comes from something in the way (a proxy, a load
// balancer, an attacker), and following it would at best reach a server
// that was not configured; net/http strips the Authorization header only
// when the caller set it, not when a transport adds it, as this one does.
//
// Credentials (the bearer token, basic auth, the exec plugin's token) go
// only to the configured server: a request whose scheme, host or port
// differs from c.Host's (default ports made explicit, the host compared
// without case) is sent without them, so a caller that wraps the
// transport in its own redirect-following client cannot leak them either,
// not even to c.Host's own host over plain http. A client certificate is
// presented to whichever server the transport connects to, as TLS
// decides; without redirects that is c.Host or the proxy.
//
// On each request the client:
//   - leaves a request that already has an Authorization header as it is,
//     and never modifies the caller's request (it sends a clone);
//   - sends the bearer token, re-reading BearerTokenFile when it changes
//     and at least every minute (one stat per request);
//   - with Exec, runs the plugin when there is no credential yet or it has
//     expired, and caches what it returns. One run at a time, shared by
//     concurrent requests: a run has its own lifetime of at most a minute,
//     which the request that started it does not shorten (a request that
//     gives up returns, the run goes on for the others), and every request
//     waiting for a run that fails gets its error. A plugin that prints
//     more than 1 MiB, or writes more than 1 MiB to its standard error, is
//     stopped at once. The plugin's standard error goes to this process's
//     standard error, as with kubectl and client-go, and never into an
//     error message. The plugin runs in a process group of its own, and a
//     run stopped (at its bound or for writing too much) kills the whole
//     group, children the plugin started included; on Linux the plugin is
//     also killed when this process dies, however it dies. (On Windows
//     only the plugin itself is stopped.) On a 401 answer it forgets the
//     credential, runs the plugin again, and, when that gives a new credential and the request
//     body can be replayed (no body, or req.GetBody set), sends the request
//     once more; otherwise it returns the 401. When the plugin's client
//     certificate changes, every open connection is closed: requests in
//     flight on them, watches included, fail and must be retried.
func (c *Config) HTTPClient() (*http.Client, error) {
	rt, err := c.roundTripper()
	if err != nil {
		return nil, fmt.Errorf("build http client: %w", err)
	}
	return &http.Client{Transport: rt, CheckRedirect: refuseRedirect}, nil
}

// refuseRedirect is the CheckRedirect of the client: it follows no
// redirect. http.Client wraps its error in a *url.Error with the target's
// full URL; [Client] unwraps it.
func refuseRedirect(req *http.Request, via []*http.Request) error {
	from := via[len(via)-1]
	return &redirectError{
		method: from.Method,
		from:   from.URL.Path,
		to:     (&url.URL{Scheme: req.URL.Scheme, Host: req.URL.Host, Path: req.URL.Path}).String(),
	}
}

// redirectError is a redirect that was not followed. It names the target
// by scheme, host and path: its query and user info are left out.
type redirectError struct {
	method, from, to string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("the server redirected %s %s to %s: redirects are not followed", e.method, e.from, e.to)
}

// roundTripper builds the transport and the authentication on top of it.
func (c *Config) roundTripper() (http.RoundTripper, error) {
	hasToken := c.BearerToken != "" || c.BearerTokenFile != ""
	hasBasic := c.Username != "" || c.Password != ""
	hasCert := c.TLS.CertFile != "" || c.TLS.CertData != nil || c.TLS.KeyFile != "" || c.TLS.KeyData != nil
	if hasToken && hasBasic {
		return nil, errors.New("config: a bearer token and a username/password are both set: pick one")
	}
	var ex *execAuth
	if c.Exec != nil && !hasToken && !hasBasic && !hasCert {
		var err error
		if ex, err = newExecAuth(c); err != nil {
			return nil, err
		}
	}
	next := c.Transport
	if next == nil {
		tr, err := c.newTransport(ex)
		if err != nil {
			return nil, err
		}
		next = tr
	}
	return newAuthTransport(c, next, ex), nil
}

// watchSplit sends watches over HTTP/1.1 and every other request over
// HTTP/2. A watch is a long stream of small writes: over HTTP/2 each
// event arrives as a DATA frame that the connection's read loop hands to
// the reader through a pipe, a goroutine switch per event, and the
// window updates go back as frames of their own; over HTTP/1.1 the
// reader reads its connection itself. Measured on kube-apiserver 1.36.3,
// syncing 50,000 ConfigMaps by WatchList (testdata/peer), it takes about
// a third of the client's CPU and of the server's. The cost is a
// connection per open watch (one per informer and namespace) where HTTP/2
// carries them all on one, and dead connections found by TCP keepalive
// (within about a minute) instead of HTTP/2 pings.
type watchSplit struct {
	requests, watches *http.Transport
}

func (t watchSplit) RoundTrip(r *http.Request) (*http.Response, error) {
	if q := r.URL.RawQuery; strings.HasPrefix(q, "watch=true") || strings.Contains(q, "&watch=true") {
		return t.watches.RoundTrip(r)
	}
	return t.requests.RoundTrip(r)
}

// CloseIdleConnections closes the idle connections of both transports.
func (t watchSplit) CloseIdleConnections() {
	t.requests.CloseIdleConnections()
	t.watches.CloseIdleConnections()
}

// newTransport builds the HTTP transports from c's TLS and proxy
// settings, one for watches and one for the rest (see watchSplit). With
// ex, they present the plugin's client certificate and track their
// connections so that they can be closed when the certificate changes.
func (c *Config) newTransport(ex *execAuth) (watchSplit, error) {
	proxy, err := proxyFunc(c.ProxyURL)
	if err != nil {
		return watchSplit{}, err
	}
	tlsCfg, err := newTLSSource(c, ex).config()
	if err != nil {
		return watchSplit{}, err
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAlive: tcpKeepAlive}
	watchDialer := &net.Dialer{Timeout: dialTimeout, KeepAliveConfig: net.KeepAliveConfig{
		Enable: true, Idle: watchKeepAliveIdle, Interval: watchKeepAliveInterval, Count: watchKeepAliveCount}}
	dial, watchDial := dialer.DialContext, watchDialer.DialContext
	if ex != nil {
		ex.conns = &connTracker{}
		dial, watchDial = ex.conns.wrap(dial), ex.conns.wrap(watchDial)
	}
	requests := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dial,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		IdleConnTimeout:       idleConnTimeout,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   25,
		ExpectContinueTimeout: time.Second,
		ForceAttemptHTTP2:     true,
		HTTP2: &http.HTTP2Config{
			SendPingTimeout: sendPingTimeout,
			PingTimeout:     pingTimeout,
		},
	}
	watches := &http.Transport{
		Proxy:               proxy,
		DialContext:         watchDial,
		TLSClientConfig:     tlsCfg.Clone(),
		TLSHandshakeTimeout: tlsHandshakeTimeout,
		IdleConnTimeout:     idleConnTimeout,
		MaxIdleConnsPerHost: 25,
		Protocols:           new(http.Protocols),
	}
	watches.Protocols.SetHTTP1(true)
	return watchSplit{requests: requests, watches: watches}, nil
}

// proxyFunc returns the Proxy function of a transport for raw: nil (no
// proxy at all, not even the environment's) when raw is empty. Errors quote
// the URL with its user info redacted: it may hold a password.
func proxyFunc(raw string) (func(*http.Request) (*url.URL, error), error) {
	if raw == "" {
		return nil, nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("config: parse ProxyURL %q: %w", redactURL(raw), urlParseReason(raw, err))
	}
	switch u.Scheme {
	case "http", "https", "socks5", "socks5h":
	default:
		return nil, fmt.Errorf("config: ProxyURL %q: want an http, https or socks5 URL", redactURL(raw))
	}
	if u.Host == "" {
		return nil, fmt.Errorf("config: ProxyURL %q has no host", redactURL(raw))
	}
	return http.ProxyURL(u), nil
}

// connTracker remembers the open connections of a transport so that they
// can all be closed when the client certificate they were opened with is
// no longer good (an exec plugin rotated it). Closing a connection fails
// the requests in flight on it, watches included; their callers retry on a
// new connection, which presents the new certificate.
type connTracker struct {
	mu    sync.Mutex
	conns map[*trackedConn]struct{} // the connections not yet closed
}

// trackedConn removes itself from its tracker when closed.
type trackedConn struct {
	net.Conn
	tracker *connTracker
	once    sync.Once
}

// Close closes the connection and forgets it.
func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.tracker.mu.Lock()
		delete(c.tracker.conns, c)
		c.tracker.mu.Unlock()
	})
	return c.Conn.Close()
}

// dialFunc is the signature of net.Dialer.DialContext.
type dialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// wrap returns a dial function that tracks the connections dial opens.
func (t *connTracker) wrap(dial dialFunc) dialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		tc := &trackedConn{Conn: conn, tracker: t}
		t.mu.Lock()
		if t.conns == nil {
			t.conns = make(map[*trackedConn]struct{})
		}
		t.conns[tc] = struct{}{}
		t.mu.Unlock()
		return tc, nil
	}
}

// closeAll closes every tracked connection. It costs O(open connections).
func (t *connTracker) closeAll() {
	t.mu.Lock()
	conns := make([]*trackedConn, 0, len(t.conns))
	for c := range t.conns {
		conns = append(conns, c)
	}
	t.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
}
