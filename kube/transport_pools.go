// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"net/http"
	"strings"
)

// DefaultMaxConnections is the most connections a client's requests that
// are not watches hold open to its server at once ([Config.MaxConnections]
// when zero). Over HTTP/1.1 a request in flight takes a connection of its
// own (and two goroutines of net/http's), so without a bound N requests
// at once open N connections: 500 concurrent Gets opened 500 and ran
// about 1,950 goroutines. With it, requests beyond the bound wait for a
// connection to come free, as long as their context allows. 64 is more
// than a controller's workers usually are (each worker has one request
// in flight at a time: 50 workers reading and writing in turn open 50
// connections and keep them), so that the bound costs such a controller
// nothing, and it keeps a burst from opening hundreds.
const DefaultMaxConnections = 64

// maxIdleWatchConns is how many connections of watches that ended (a
// server ends each at its timeoutSeconds, and the connection can carry
// the next) are kept idle, for the watches reopened after them.
const maxIdleWatchConns = 16

// pools carries watches and every other request over two connection
// pools of one dialer and one TLS configuration: a watch holds its
// connection for as long as it is open (5 to 10 minutes for an
// informer's), so watches are not counted against the bound on requests,
// and a cache of many kinds, namespaces or shards cannot take every
// connection a request could use. The watches' pool has no bound: the
// watches a program opens are as many as its informers read (one per
// kind, namespace and shard), which its structure bounds.
type pools struct {
	requests, watches *http.Transport
}

// RoundTrip sends a watch through the watches' pool, anything else
// through the requests'.
func (p *pools) RoundTrip(req *http.Request) (*http.Response, error) {
	tr := p.requests
	if isWatchQuery(req.URL.RawQuery) {
		tr = p.watches
	}
	return tr.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of both pools.
func (p *pools) CloseIdleConnections() {
	p.requests.CloseIdleConnections()
	p.watches.CloseIdleConnections()
}

// isWatchQuery reports whether a raw query asks for a watch with
// watch=true, as [Client.Watch] does, without decoding the query. (A
// watch asked for otherwise, watch=1, goes through the requests' pool.)
func isWatchQuery(raw string) bool {
	return strings.HasPrefix(raw, "watch=true") || strings.Contains(raw, "&watch=true")
}

// maxConnections is the bound on c's requests' connections: zero means
// DefaultMaxConnections, negative none.
func (c *Config) maxConnections() int {
	switch {
	case c.MaxConnections == 0:
		return DefaultMaxConnections
	case c.MaxConnections < 0:
		return 0 // http.Transport's for none
	}
	return c.MaxConnections
}
