// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// authTransport adds the User-Agent and the credentials of a Config to each
// request, on a clone: the caller's request is never modified. It is safe
// for concurrent use. See [Config.HTTPClient] for what it does on a 401.
type authTransport struct {
	next      http.RoundTripper
	userAgent string
	// origin is "scheme://host:port" of the configured server, lower case;
	// credentials are added only to requests for it ("" when Host cannot
	// be parsed: never).
	origin string
	// At most one kind of header credential is set: tokenFile (with token
	// as its fallback), token, or basic auth. exec is set only when none is.
	token              string
	tokenFile          *tokenFile
	username, password string
	exec               *execAuth
}

func newAuthTransport(c *Config, next http.RoundTripper, ex *execAuth) *authTransport {
	t := &authTransport{
		next:      next,
		userAgent: c.UserAgent,
		origin:    originOf(c.Host),
		token:     c.BearerToken,
		username:  c.Username,
		password:  c.Password,
		exec:      ex,
	}
	if t.userAgent == "" {
		t.userAgent = defaultUserAgent
	}
	if c.BearerTokenFile != "" {
		t.tokenFile = &tokenFile{path: c.BearerTokenFile}
	}
	return t
}

// RoundTrip sends a copy of req with the User-Agent and credentials set.
func (t *authTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	r := withOwnHeader(req)
	if r.Header.Get("User-Agent") == "" {
		r.Header.Set("User-Agent", t.userAgent)
	}
	if r.Header.Get("Authorization") != "" || originOfURL(r.URL) != t.origin {
		// The caller's own credentials win; another server, or this one
		// over another scheme, gets none of ours.
		return t.next.RoundTrip(r)
	}
	cred, err := t.authorize(r)
	if err != nil {
		if req.Body != nil {
			req.Body.Close() // a RoundTripper closes the body, even on error
		}
		return nil, err
	}
	resp, err := t.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusUnauthorized || cred == nil {
		return resp, err
	}
	return t.retry(req, resp, cred)
}

// authorize sets the Authorization header of r and returns the exec
// credential it used, if any.
func (t *authTransport) authorize(r *http.Request) (*execCredential, error) {
	switch {
	case t.tokenFile != nil:
		tok, err := t.tokenFile.get(time.Now())
		if err != nil && t.token == "" {
			return nil, err
		}
		if err != nil {
			tok = t.token
		}
		r.Header.Set("Authorization", "Bearer "+tok)
	case t.token != "":
		r.Header.Set("Authorization", "Bearer "+t.token)
	case t.username != "" || t.password != "":
		r.SetBasicAuth(t.username, t.password)
	case t.exec != nil:
		cred, err := t.exec.credential(r.Context())
		if err != nil {
			return nil, err
		}
		if t.exec.takeRotated() {
			t.closeConns()
		}
		if cred.token != "" {
			r.Header.Set("Authorization", "Bearer "+cred.token)
		}
		return cred, nil
	}
	return nil, nil
}

// retry handles a 401 to a request sent with the exec credential used: the
// credential is dropped and the plugin run again; when that gives a new
// credential and the body can be replayed, the request is sent once more.
// Otherwise the 401 response is returned as it is.
func (t *authTransport) retry(req *http.Request, resp *http.Response, used *execCredential) (*http.Response, error) {
	t.exec.invalidate(used)
	if req.Body != nil && req.Body != http.NoBody && req.GetBody == nil {
		return resp, nil // the body is gone; the next request gets the new credential
	}
	fresh, err := t.exec.credential(req.Context())
	if err != nil || fresh.same(used) {
		return resp, nil
	}
	r := withOwnHeader(req)
	if req.GetBody != nil {
		if r.Body, err = req.GetBody(); err != nil {
			return resp, nil
		}
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 4<<10)) // lets the connection be reused
	resp.Body.Close()
	if t.exec.takeRotated() || used.cert != nil || fresh.cert != nil {
		// Pooled connections present the old certificate; the one the
		// 401 came on is back in the pool now.
		t.closeConns()
	}
	if r.Header.Get("User-Agent") == "" {
		r.Header.Set("User-Agent", t.userAgent)
	}
	if fresh.token != "" {
		r.Header.Set("Authorization", "Bearer "+fresh.token)
	}
	return t.next.RoundTrip(r)
}

// originOf returns the origin of a server URL as originOfURL does, "" when
// it cannot be parsed.
func originOf(host string) string {
	if u := serverURL(host); u != nil {
		return originOfURL(u)
	}
	return ""
}

// originOfURL returns "scheme://host:port" of u in lower case, with the
// scheme's default port when u has none; "" when u has no host.
func originOfURL(u *url.URL) string {
	if u.Host == "" {
		return ""
	}
	scheme := strings.ToLower(u.Scheme)
	port := u.Port()
	if port == "" {
		switch scheme {
		case "https":
			port = "443"
		case "http":
			port = "80"
		}
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// closeConns closes every connection, after a change of client
// certificate: the idle ones are taken out of the pool first (closing a
// pooled connection underneath the transport leaves it there, dead, for a
// moment), then those in use are closed.
func (t *authTransport) closeConns() {
	t.CloseIdleConnections()
	t.exec.closeConns()
}

// CloseIdleConnections closes the idle connections of the transport
// underneath, so that [http.Client.CloseIdleConnections] works.
func (t *authTransport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// tokenFileMaxAge bounds how long a token read from a file is used without
// reading the file again, even when it looks unchanged.
const tokenFileMaxAge = time.Minute

// tokenFile caches the bearer token in a file. The file is read again when
// its size or modification time changes, or when the cached token is older
// than tokenFileMaxAge; checking costs one stat per call. When the file
// cannot be read the last token read stays in use, and the file is tried
// again at the next call. The lock is never held while the file is read.
type tokenFile struct {
	path string

	mu     sync.Mutex // guards the fields below
	token  string     // "" until the file was read once
	stamp  fileStamp  // of the file when token was read
	readAt time.Time  // when token was read
}

// get returns the token as of now.
func (f *tokenFile) get(now time.Time) (string, error) {
	stamp, statErr := stampOf(f.path)
	f.mu.Lock()
	tok, cur, readAt := f.token, f.stamp, f.readAt
	f.mu.Unlock()
	if tok != "" && statErr == nil && stamp == cur && now.Sub(readAt) < tokenFileMaxAge {
		return tok, nil
	}
	b, err := os.ReadFile(f.path)
	fresh := strings.TrimSpace(string(b))
	if err == nil && fresh == "" {
		err = errors.New("the file is empty")
	}
	if err != nil {
		if tok != "" {
			return tok, nil
		}
		return "", fmt.Errorf("read bearer token file %s: %w", f.path, unwrapPath(err))
	}
	f.mu.Lock()
	f.token, f.stamp, f.readAt = fresh, stamp, now
	f.mu.Unlock()
	return fresh, nil
}

// unwrapPath drops the *fs.PathError wrapper, whose path the caller's
// message already names.
func unwrapPath(err error) error {
	if pe, ok := errs.As[*os.PathError](err); ok {
		return pe.Err
	}
	return err
}

// withOwnHeader returns a shallow copy of req with a copy of its Header,
// which a RoundTripper may set: it must not change the request it is
// given, and this one changes nothing else. (Request.Clone copies the
// URL, forms and trailers too, and links their copying: 10 kB of every
// program.)
func withOwnHeader(req *http.Request) *http.Request {
	r := new(http.Request)
	*r = *req
	r.Header = req.Header.Clone()
	return r
}
