// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/kube"
)

// restMetrics counts the requests of the manager's clients, as client-go's
// rest_client_* metrics do.
type restMetrics struct {
	requests *metrics.CounterVec
	latency  *metrics.HistogramVec
}

func newRESTMetrics() *restMetrics {
	return &restMetrics{
		requests: metrics.NewCounterVec("rest_client_requests_total",
			"Number of HTTP requests, partitioned by status code, method, and host.", "code", "method", "host"),
		latency: metrics.NewHistogramVec("rest_client_request_duration_seconds",
			"Request latency in seconds. Broken down by verb, and host.",
			[]float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}, "verb", "host"),
	}
}

// Collect implements metrics.Collector.
func (r *restMetrics) Collect(e *metrics.Emitter) {
	r.requests.Collect(e)
	r.latency.Collect(e)
}

// instrument returns a copy of cfg whose requests go through a counting
// transport. kube has no hook for this, so the copy's Transport is cfg's
// own complete HTTP client transport (TLS, proxy and credentials, built
// once here) wrapped by the counter, and its credential fields are
// cleared: the inner transport adds them. It reads the files cfg names
// (CA, certificates), as [kube.Config.HTTPClient] does.
func (r *restMetrics) instrument(cfg *kube.Config) (*kube.Config, error) {
	hc, err := cfg.HTTPClient()
	if err != nil {
		return nil, fmt.Errorf("instrument client: %w", err)
	}
	c := *cfg
	c.Transport = &countingTransport{next: hc.Transport, m: r}
	c.BearerToken, c.BearerTokenFile, c.Username, c.Password, c.Exec = "", "", "", "", nil
	c.TLS = kube.TLSConfig{}
	c.ProxyURL = ""
	return &c, nil
}

// countingTransport counts each request by its answer's status code
// ("<error>" when there is none), method and host, and times it until the
// answer's headers arrive (a watch is timed until it is established).
type countingTransport struct {
	next http.RoundTripper
	m    *restMetrics
}

func (t *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	code := "<error>"
	if err == nil {
		code = strconv.Itoa(resp.StatusCode)
	}
	t.m.requests.Inc(code, req.Method, req.URL.Host)
	t.m.latency.Observe(time.Since(start).Seconds(), req.Method, req.URL.Host)
	return resp, err
}
