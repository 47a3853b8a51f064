// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// This file is the member's view of its traffic: a transport that counts
// the bytes read from the API server on its connections: TLS records and
// HTTP/2 frames included, what crosses the socket. (The informer counts its
// own list and watch requests: cache.Stats.)

// countingTransport returns an HTTP/2-capable transport to a server whose
// certificate caFile's CA signed, which adds the bytes it reads to n. kube.Config's
// Transport replaces the transport kube would build from its TLS settings,
// so this one does TLS itself.
func countingTransport(caFile string, n *atomic.Int64) (http.RoundTripper, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", caFile)
	}
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	tr := &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		ForceAttemptHTTP2: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conn, err := d.DialContext(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			return &countingConn{Conn: conn, n: n}, nil
		},
	}
	return tr, nil
}

// countingConn adds the bytes read from its connection to n.
type countingConn struct {
	net.Conn
	n *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.n.Add(int64(n))
	return n, err
}
