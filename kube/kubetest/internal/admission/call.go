// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Resolver maps a webhook's clientConfig.service to the address (host:port)
// that serves it, as kube-apiserver finds a Service's endpoints.
type Resolver func(namespace, name string, port int32) (string, error)

// maxResponseBytes bounds the answer read from a webhook.
const maxResponseBytes = 16 << 20

// Post sends body to w's clientConfig (its url, or its service through
// resolve, trusting its caBundle) and answers the response body, or an
// error worded as client-go words it, prefixed "failed to call webhook: "
// (the reason of a "failed calling webhook"). It takes at most w.Timeout,
// retries included. Package conversion calls conversion webhooks with it.
func Post(ctx context.Context, w *Webhook, resolve Resolver, body []byte) ([]byte, error) {
	target, serverName, dial, err := endpoint(w, resolve)
	if err != nil {
		return nil, err
	}
	timeout := "?timeout=" + strconv.Itoa(int(w.Timeout/time.Second)) + "s"
	if strings.Contains(target, "?") {
		timeout = "&" + timeout[1:]
	}
	target += timeout
	ctx, cancel := context.WithTimeout(ctx, w.Timeout)
	defer cancel()
	tr, err := transport(w, serverName, dial)
	if err != nil {
		return nil, err
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, */*")
		resp, err := client.Do(req)
		if err != nil {
			return nil, fmt.Errorf("failed to call webhook: %w", err)
		}
		out, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("failed to call webhook: %w", err)
		}
		if wait, retry := retryAfter(resp); retry {
			select {
			case <-ctx.Done():
				return nil, fmt.Errorf("failed to call webhook: Post %q: %w", target, ctx.Err())
			case <-time.After(wait):
				continue
			}
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			return nil, fmt.Errorf("failed to call webhook: %s", statusMessage(resp.StatusCode, out))
		}
		return out, nil
	}
}

// retryAfter says whether client-go would send the request again: 429 or
// 5xx with a Retry-After of whole seconds.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp.StatusCode != http.StatusTooManyRequests && resp.StatusCode < 500 {
		return 0, false
	}
	n, err := strconv.Atoi(resp.Header.Get("Retry-After"))
	if err != nil || n < 0 {
		return 0, false
	}
	return time.Duration(n) * time.Second, true
}

// statusMessage is client-go's message for an answer of code that is not
// a Status (NewGenericServerResponse).
func statusMessage(code int, body []byte) string {
	switch code {
	case http.StatusConflict:
		return "the server reported a conflict"
	case http.StatusNotFound:
		return "the server could not find the requested resource"
	case http.StatusBadRequest:
		return "the server rejected our request for an unknown reason"
	case http.StatusUnauthorized:
		return "the server has asked for the client to provide credentials"
	case http.StatusForbidden:
		return string(bytes.TrimSpace(body))
	case http.StatusMethodNotAllowed:
		return "the server does not allow this method on the requested resource"
	case http.StatusUnprocessableEntity:
		return "the server rejected our request due to an error in our request"
	case http.StatusServiceUnavailable:
		return "the server is currently unable to handle the request"
	case http.StatusGatewayTimeout:
		return "the server was unable to return a response in the time allotted, but may still be processing the request"
	case http.StatusTooManyRequests:
		return "the server has received too many requests and has asked us to try again later"
	}
	if code >= 500 {
		return fmt.Sprintf("an error on the server (%q) has prevented the request from succeeding", strings.TrimSpace(string(body)))
	}
	return fmt.Sprintf("the server responded with the status code %d but did not return more information", code)
}

// endpoint is where w is reached: its url, or for a service the URL
// https://name.namespace.svc:port/path dialled at the address resolve
// gives, with the certificate checked for name.namespace.svc as the real
// server checks it.
func endpoint(w *Webhook, resolve Resolver) (target, serverName string, dial func(ctx context.Context, network, addr string) (net.Conn, error), err error) {
	if w.Service == nil {
		return w.URL, "", nil, nil
	}
	svc := w.Service
	host := svc.Name + "." + svc.Namespace + ".svc"
	target = "https://" + host + ":" + strconv.Itoa(int(svc.Port)) + svc.Path
	if resolve == nil {
		return "", "", nil, fmt.Errorf("failed to call webhook: Post %q: no endpoints available for service %q "+
			"(kubetest runs no pods: set kubetest.Options.WebhookServices)", target+"?timeout="+strconv.Itoa(int(w.Timeout/time.Second))+"s", svc.Name)
	}
	addr, err := resolve(svc.Namespace, svc.Name, svc.Port)
	if err != nil {
		return "", "", nil, fmt.Errorf("failed to call webhook: %w", err)
	}
	var d net.Dialer
	dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, addr)
	}
	return target, host, dial, nil
}

// transport is a TLS transport that trusts w's caBundle (the system's
// roots when it has none).
func transport(w *Webhook, serverName string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) (*http.Transport, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: serverName}
	if len(w.CABundle) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(w.CABundle) {
			return nil, errors.New("could not get REST client: unable to load root certificates: unable to parse bytes as PEM block")
		}
		cfg.RootCAs = pool
	}
	return &http.Transport{TLSClientConfig: cfg, DialContext: dial, ForceAttemptHTTP2: true, DisableKeepAlives: true}, nil
}
