// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"github.com/kubeloop/kubeloop/internal/errs"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"

	"github.com/kubeloop/kubeloop/internal/typednil"
)

// This file holds the metrics endpoint's content: what the manager reads
// from its controllers, cache and elector at each scrape, the counts of
// its clients' requests and of the bytes their answers carry, and the
// types through which programs add their own metrics.

// MetricsEmitter is what a [MetricsCollector] writes its series to at a
// scrape: counters, gauges and histograms, each with labels given as
// name, value pairs ("color", "red"). Many collectors may write series of
// one family (every controller writes workqueue_depth, each with its own
// labels): the endpoint writes each family's HELP and TYPE once. A name
// written with two types or two help texts, a series written twice, or a
// label without a value make the scrape fail with a 500 naming the metric,
// so that the mistake shows.
//
// It is an alias of an interface literal so that other packages can
// write collectors without importing this one: a *controller.Controller's
// CollectMetrics method spells the same literal, which makes it a
// MetricsCollector. This is the type's one name.
type MetricsEmitter = interface {
	Counter(name, help string, value float64, labels ...string)
	Gauge(name, help string, value float64, labels ...string)
	Histogram(name, help string, h queue.Histogram, labels ...string)
}

// MetricsCollector adds series to each scrape of the metrics endpoint:
// it is how the manager reads every controller it runs (a
// *controller.Controller writes its controller_runtime_* and workqueue_*
// series), and how a program adds metrics of its own
// ([Manager.AddMetricsCollector]). CollectMetrics is called once per
// scrape, possibly from several goroutines at once, and must not keep e.
type MetricsCollector interface {
	CollectMetrics(e MetricsEmitter)
}

// MetricsCollectorFunc is a [MetricsCollector] made of a func.
type MetricsCollectorFunc func(e MetricsEmitter)

// CollectMetrics implements [MetricsCollector].
func (f MetricsCollectorFunc) CollectMetrics(e MetricsEmitter) {
	if f != nil {
		f(e)
	}
}

// AddMetricsCollector adds c to the metrics endpoint, from the next
// scrape on. A collector that emits a name another one emits with another
// type or help, or a series twice, makes scrapes fail with a 500 naming
// the metric, so that the clash shows.
func (m *Manager) AddMetricsCollector(c MetricsCollector) {
	if !m.made() || typednil.Is(c) {
		return
	}
	m.registry.Register(registered(c))
}

// registered is c as the metrics registry collects it.
func registered(c MetricsCollector) metrics.Collector {
	return metrics.CollectorFunc(func(e *metrics.Emitter) { c.CollectMetrics(e) })
}

// collect emits the metrics the manager reads at scrape time: the Go
// runtime's and the process's, every controller's, the cache's and the
// elector's.
func (m *Manager) collect(e *metrics.Emitter) {
	metrics.GoCollector().Collect(e) // go_* and process_*, as controller-runtime serves them
	metrics.ProcessCollector().Collect(e)
	m.mu.Lock()
	controllers := maps.Clone(m.controllers)
	m.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(controllers)) {
		if c := controllers[name]; c != nil {
			c.CollectMetrics(e)
		}
	}
	m.collectCache(e)
	if m.ring != nil {
		m.ring.collect(e)
	}
	if el := m.election; el != nil {
		_, lease := el.lease()
		v := 0.0
		if el.IsLeader() {
			v = 1
		}
		e.Gauge("leader_election_master_status",
			"Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
			v, "name", lease)
	}
}

// collectCache emits the objects and bytes the cache holds per kind, its
// reads' waits for the manager's own writes (summed over the Go types a
// kind is read as), and what it remembers of those writes.
func (m *Manager) collectCache(e *metrics.Emitter) {
	type kindKey struct{ group, version, kind string }
	type sums struct {
		objects, bytes         float64
		waited, gaveUp, opaque uint64
		wait                   cache.Histogram
	}
	per := map[kindKey]*sums{}
	for _, s := range m.Cache().Stats() {
		k := kindKey{s.Kind.Group, s.Kind.Version, s.Kind.Kind}
		sum := per[k]
		if sum == nil {
			sum = &sums{wait: cache.Histogram{UpperBounds: s.Fresh.WaitSeconds.UpperBounds, Counts: make([]uint64, len(s.Fresh.WaitSeconds.Counts))}}
			per[k] = sum
		}
		sum.objects += float64(s.Objects)
		sum.bytes += float64(s.Bytes)
		f := s.Fresh
		sum.waited, sum.gaveUp, sum.opaque = sum.waited+f.Waited, sum.gaveUp+f.GaveUp, sum.opaque+f.Opaque
		for n, c := range f.WaitSeconds.Counts {
			sum.wait.Counts[n] += c
		}
		sum.wait.Count += f.WaitSeconds.Count
		sum.wait.Sum += f.WaitSeconds.Sum
	}
	for k, sum := range per {
		labels := []string{"group", k.group, "version", k.version, "kind", k.kind}
		e.Gauge("kubeloop_cache_objects", "Objects held in the manager's cache, by kind.", sum.objects, labels...)
		e.Gauge("kubeloop_cache_bytes", "Approximate bytes of the objects held in the manager's cache (the size of the JSON they were decoded from), by kind.", sum.bytes, labels...)
		e.Counter("kubeloop_cache_fresh_waits_total", "Reads from the manager's cache that waited until it held the manager's own writes, by kind.", float64(sum.waited), labels...)
		e.Histogram("kubeloop_cache_fresh_wait_seconds", "How long reads from the manager's cache waited until it held the manager's own writes, by kind.", sum.wait, labels...)
		e.Counter("kubeloop_cache_fresh_gave_up_total", "Reads from the manager's cache that waited for the manager's own writes past the bound (Options.Cache.MaxFreshWait) and answered from the cache as it was, by kind.", float64(sum.gaveUp), labels...)
		e.Counter("kubeloop_cache_fresh_unknown_total", "Reads from the manager's cache that could not wait for the manager's own writes because the server's resourceVersions are not decimal integers, by kind.", float64(sum.opaque), labels...)
	}
	r := m.Cache().FreshRecords()
	e.Gauge("kubeloop_cache_fresh_records", "Writes of the manager's client its cache remembers, not yet seen to hold them, for the reads that wait for them.", float64(r.Records))
	e.Gauge("kubeloop_cache_fresh_record_bytes", "Approximate bytes of the writes the manager's cache remembers (kubeloop_cache_fresh_records).", float64(r.Bytes))
	e.Counter("kubeloop_cache_fresh_records_dropped_total", "Writes the manager's cache forgot unseen, oldest first, because its records passed their bounds (cache.DefaultMaxFreshRecords, cache.DefaultMaxFreshRecordBytes): reads no longer wait for them.", float64(r.Dropped))
}

// restMetrics counts the requests of the manager's clients, as client-go's
// rest_client_* metrics do, and the bytes of their answers' bodies.
type restMetrics struct {
	requests *CounterVec
	latency  *HistogramVec
	// responseBytes counts body bytes as they are read, watches included.
	responseBytes *CounterVec
	// responseSize observes each body's size when it ends (its end read
	// or its close): a watch's when the watch ends.
	responseSize *HistogramVec
}

func newRESTMetrics() *restMetrics {
	return &restMetrics{
		requests: NewCounterVec("rest_client_requests_total",
			"Number of HTTP requests, partitioned by status code, method, and host.", "code", "method", "host"),
		latency: NewHistogramVec("rest_client_request_duration_seconds",
			"Request latency in seconds. Broken down by verb, and host.",
			[]float64{0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60}, "verb", "host"),
		responseBytes: NewCounterVec("kubeloop_rest_client_response_bytes_total",
			"Bytes of response bodies read from the API server (after decompression), as they are read, watch streams included; by verb (LIST, WATCH, GET, ...) and resource.",
			"verb", "resource"),
		responseSize: NewHistogramVec("kubeloop_rest_client_response_size_bytes",
			"Size of each response body read from the API server (after decompression), observed when the body ends (a watch's when the watch ends); by verb and resource.",
			metrics.ExponentialBuckets(64, 4, 10), "verb", "resource"),
	}
}

// CollectMetrics implements [MetricsCollector].
func (r *restMetrics) CollectMetrics(e MetricsEmitter) {
	r.requests.CollectMetrics(e)
	r.latency.CollectMetrics(e)
	r.responseBytes.CollectMetrics(e)
	r.responseSize.CollectMetrics(e)
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
		return nil, errs.Errorf("instrument client: %w", err)
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
// answer's headers arrive (a watch is timed until it is established). It
// counts the bytes of the answer's body as the caller reads them, by the
// request's verb and resource (see restVerb), buffering nothing.
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
	if err == nil && resp.Body != nil && resp.StatusCode != http.StatusSwitchingProtocols {
		verb, resource := restVerb(req.Method, req.URL, req.Header.Get("Content-Type"))
		resp.Body = &countedBody{ReadCloser: resp.Body, m: t.m, verb: verb, resource: resource}
	}
	return resp, err
}

// countedBody adds what is read from a body to the byte counter, and its
// size to the histogram once, at its end or close, whichever comes first.
// Read and Close may be called concurrently (a close aborts a read).
type countedBody struct {
	io.ReadCloser
	m              *restMetrics
	verb, resource string
	n              atomic.Int64 // bytes read so far
	ended          sync.Once
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.n.Add(int64(n))
		b.m.responseBytes.Add(float64(n), b.verb, b.resource)
	}
	if err == io.EOF {
		b.end()
	}
	return n, err
}

func (b *countedBody) Close() error {
	b.end()
	return b.ReadCloser.Close()
}

func (b *countedBody) end() {
	b.ended.Do(func() { b.m.responseSize.Observe(float64(b.n.Load()), b.verb, b.resource) })
}
