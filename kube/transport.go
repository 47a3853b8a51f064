// SPDX-License-Identifier: Apache-2.0

package kube

import "net/http"

// HTTPClient returns the HTTP client for c.
//
// Placeholder until the TLS and authentication transport lands: it honours
// Config.Transport and the bearer token only. The transport's author
// replaces this file.
func (c *Config) HTTPClient() (*http.Client, error) {
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if c.BearerToken != "" {
		rt = &bearer{token: c.BearerToken, next: rt}
	}
	return &http.Client{Transport: rt}, nil
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b *bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
