// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// This file holds the metrics endpoint's content: what the manager reads
// from its controllers, cache and elector at each scrape, the counts of
// its clients' requests, and the types through which programs add their
// own metrics.

// The types of the metrics endpoint, for metrics of your own (see
// [Manager.AddMetricsCollector]). They are those of kubeloop's internal
// Prometheus text-format package.
type (
	// MetricsCollector adds samples to each scrape.
	MetricsCollector = metrics.Collector
	// MetricsCollectorFunc is a MetricsCollector made of a func.
	MetricsCollectorFunc = metrics.CollectorFunc
	// MetricsEmitter is what a collector emits samples to: Counter, Gauge
	// and Histogram.
	MetricsEmitter = metrics.Emitter
	// MetricLabel is one label of a sample.
	MetricLabel = metrics.Label
	// HistogramSnapshot is a histogram's buckets, as emitted.
	HistogramSnapshot = metrics.Histogram
	// CounterVec, GaugeVec and HistogramVec are metrics your code updates;
	// each is a MetricsCollector.
	CounterVec   = metrics.CounterVec
	GaugeVec     = metrics.GaugeVec
	HistogramVec = metrics.HistogramVec
)

// NewCounterVec returns a counter family with the given label names.
func NewCounterVec(name, help string, labelNames ...string) *CounterVec {
	return metrics.NewCounterVec(name, help, labelNames...)
}

// NewGaugeVec returns a gauge family with the given label names.
func NewGaugeVec(name, help string, labelNames ...string) *GaugeVec {
	return metrics.NewGaugeVec(name, help, labelNames...)
}

// NewHistogramVec returns a histogram family with the given bucket upper
// bounds and label names.
func NewHistogramVec(name, help string, bounds []float64, labelNames ...string) *HistogramVec {
	return metrics.NewHistogramVec(name, help, bounds, labelNames...)
}

// AddMetricsCollector adds c to the metrics endpoint, from the next
// scrape on. A collector that emits a name another one emits with another
// type or help, or a series twice, makes scrapes fail with a 500 naming
// the metric, so that the clash shows.
func (m *Manager) AddMetricsCollector(c MetricsCollector) {
	m.registry.Register(c)
}

// collect emits the metrics the manager reads at scrape time.
func (m *Manager) collect(e *metrics.Emitter) {
	metrics.GoCollector().Collect(e) // go_* and process_*, as controller-runtime serves them
	metrics.ProcessCollector().Collect(e)
	m.mu.Lock()
	controllers := maps.Clone(m.controllers)
	m.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(controllers)) {
		r := controllers[name]
		if c, ok := r.(metrics.Collector); ok {
			c.Collect(e) // a controller writes its own metrics
			continue
		}
		if q, ok := r.(interface{ QueueMetrics() queue.Metrics }); ok {
			metrics.Workqueue(e, name, q.QueueMetrics())
		}
	}
	m.collectCache(e)
	if el := m.elector; el != nil {
		v := 0.0
		if el.IsLeader() {
			v = 1
		}
		e.Gauge("leader_election_master_status",
			"Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
			v, metrics.Label{Name: "name", Value: m.opts.LeaderElection.ID})
	}
}

// collectCache emits the objects and bytes the cache holds per kind
// (summed over the Go types a kind is read as).
func (m *Manager) collectCache(e *metrics.Emitter) {
	type kindKey struct{ group, version, kind string }
	objects, bytes := map[kindKey]float64{}, map[kindKey]float64{}
	for _, s := range m.cache.Stats() {
		k := kindKey{s.Kind.Group, s.Kind.Version, s.Kind.Kind}
		objects[k] += float64(s.Objects)
		bytes[k] += float64(s.Bytes)
	}
	for k := range objects {
		labels := []metrics.Label{{Name: "group", Value: k.group}, {Name: "version", Value: k.version}, {Name: "kind", Value: k.kind}}
		e.Gauge("kubeloop_cache_objects", "Objects held in the manager's cache, by kind.", objects[k], labels...)
		e.Gauge("kubeloop_cache_bytes", "Approximate bytes of the objects held in the manager's cache (the size of the JSON they were decoded from), by kind.", bytes[k], labels...)
	}
}

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
