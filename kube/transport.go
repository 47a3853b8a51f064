// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sync"
	"time"
)

// Transport timeouts. There is no overall request timeout: watches last as
// long as their context; Config.Timeout, or else [HeaderTimeout] for the
// headers of what is not a watch, is applied per request by [Client].
const (
	dialTimeout         = 30 * time.Second
	tlsHandshakeTimeout = 10 * time.Second
	idleConnTimeout     = 90 * time.Second
	// TCP keepalive, as HTTP/1.1 has no pings: probe a connection silent
	// for 30s every 10s, and drop it after 3 probes go unanswered, so that
	// a watch or a request on a dead connection fails within about a
	// minute instead of hanging. TCP probes only a connection with nothing
	// unacknowledged: a request whose bytes the server never acknowledged
	// is bounded by its context (Config.Timeout, else HeaderTimeout for
	// what is not a watch) or by TCP's retransmissions, which give up
	// after about 15 minutes on Linux.
	keepAliveIdle     = 30 * time.Second
	keepAliveInterval = 10 * time.Second
	keepAliveCount    = 3
)

// defaultUserAgent is sent when Config.UserAgent is empty.
const defaultUserAgent = "kubeloop"

// HTTPClient returns the HTTP client that carries requests to c.Host:
// TLS from c.TLS (minimum TLS 1.2), the proxy c.ProxyURL, HTTP/1.1 with
// TCP keepalive (see newPools for why not HTTP/2), the User-Agent, and
// the credentials of c (see [Config]). Over HTTP/1.1 each request in
// flight and each open watch holds a connection: requests hold at most
// c.MaxConnections ([DefaultMaxConnections], 64) at once, and wait for
// one beyond that; watches have a pool of their own, one connection
// each, so that they never take the requests' connections.
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
	if c == nil {
		return nil, errors.New("build http client: the Config is nil")
	}
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
		p, err := c.newPools(ex)
		if err != nil {
			return nil, err
		}
		next = p
	}
	return newAuthTransport(c, next, ex), nil
}

// newPools builds the HTTP transports from c's TLS and proxy settings:
// one for watches and one for every other request (see [pools]). With
// ex, they present the plugin's client certificate and track their
// connections so that they can be closed when the certificate changes.
//
// Every request goes over HTTP/1.1, each on a connection of its own, taken
// from a pool of idle ones or dialled: at most c.maxConnections() at once
// for requests (all of them kept when idle), without bound for watches
// (maxIdleWatchConns kept idle). HTTP/2 would
// carry them all on one connection, at a cost paid on every request and
// every answer: each DATA frame of an answer is handed by the connection's
// read loop to the reader through a pipe (a goroutine switch per frame,
// and window updates sent back as frames of their own), and each request's
// headers go through HPACK, whose dynamic table takes in every distinct
// path (an object's name) and evicts an older entry for it. Over HTTP/1.1
// the reader reads its connection itself. Measured on kube-apiserver
// 1.36.3 (testdata/peer): a WatchList sync of 50,000 ConfigMaps used about
// a third more CPU on each side over HTTP/2, and a controller patching
// 10,000 ConfigMaps 10 to 15% more CPU per reconcile. What it costs: a
// connection per request in flight and per open watch, and dead
// connections found by TCP keepalive (a connection silent for 30s is
// probed every 10s and dropped after 3 probes go unanswered, within about
// a minute) rather than by HTTP/2 pings.
func (c *Config) newPools(ex *execAuth) (*pools, error) {
	proxy, err := proxyFunc(c.ProxyURL)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := newTLSSource(c, ex).config()
	if err != nil {
		return nil, err
	}
	dialer := &net.Dialer{Timeout: dialTimeout, KeepAliveConfig: net.KeepAliveConfig{
		Enable: true, Idle: keepAliveIdle, Interval: keepAliveInterval, Count: keepAliveCount}}
	dial := dialer.DialContext
	if ex != nil {
		ex.conns = &connTracker{}
		dial = ex.conns.wrap(dial)
	}
	maxConns := c.maxConnections()
	maxIdle := maxConns
	if maxIdle == 0 { // no bound: keep what the bound would keep
		maxIdle = DefaultMaxConnections
	}
	return &pools{requests: newHTTP1Transport(proxy, dial, tlsCfg, maxConns, maxIdle),
		watches: newHTTP1Transport(proxy, dial, tlsCfg, 0, maxIdleWatchConns)}, nil
}

// newHTTP1Transport is an HTTP/1.1 transport of at most maxConns
// connections (0: no bound), maxIdle of them kept when idle.
func newHTTP1Transport(proxy func(*http.Request) (*url.URL, error), dial dialFunc, tlsCfg *tls.Config, maxConns, maxIdle int) *http.Transport {
	tr := &http.Transport{
		Proxy:                 proxy,
		DialContext:           dial,
		TLSClientConfig:       tlsCfg,
		TLSHandshakeTimeout:   tlsHandshakeTimeout,
		IdleConnTimeout:       idleConnTimeout,
		MaxConnsPerHost:       maxConns,
		MaxIdleConns:          maxIdle,
		MaxIdleConnsPerHost:   maxIdle,
		ExpectContinueTimeout: time.Second,
		Protocols:             new(http.Protocols),
	}
	tr.Protocols.SetHTTP1(true)
	return tr
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
