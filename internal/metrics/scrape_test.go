// SPDX-License-Identifier: Apache-2.0

package metrics_test

// The tests that read what a Registry writes back with metricstest.Parse,
// as Prometheus would: an external test package, as metricstest imports
// metrics.

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/internal/metrics/metricstest"
)

// TestRoundTrip writes a registry with awkward values and reads it back
// with Parse: what Gather returned must come back.
func TestRoundTrip(t *testing.T) {
	reg := metrics.NewRegistry(metrics.CollectorFunc(func(e *metrics.Emitter) {
		e.Counter("requests_total", "Requests by code.\\n is not a newline", 1, "code", "200", "method", "GET")
		e.Counter("requests_total", "Requests by code.\\n is not a newline", 2, "code", "500", "method", "PUT")
		e.Counter("requests_total", "Requests by code.\\n is not a newline", 1, "code", "", "method", `we"ird\`)
		e.Gauge("depth", "Depth", 5, "name", "a\nb")
		e.Gauge("depth", "Depth", 1e-9, "name", "tiny")
		e.Gauge("depth", "Depth", 123456789012, "name", "big")
		e.Histogram("latency_seconds", "Latency", metrics.Histogram{UpperBounds: []float64{0.5, 1, 2}, Counts: []uint64{2, 4, 4}, Count: 5, Sum: 5.3}, "verb", "get")
		e.Histogram("latency_seconds", "Latency", metrics.Histogram{UpperBounds: []float64{0.5, 1, 2}, Counts: []uint64{0, 0, 0}, Count: 1, Sum: 100}, "verb", "put")
	}))
	want, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := reg.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := metricstest.Parse(&buf)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, buf.String())
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse(Write) = %+v\nwant %+v", got, want)
	}
}

func TestEmitterRefusesWhatBreaksTheFormat(t *testing.T) {
	tests := []struct {
		name string
		emit func(e *metrics.Emitter)
		want string
	}{
		{"bad metric name", func(e *metrics.Emitter) { e.Gauge("1abc", "h", 1) }, "invalid metric name"},
		{"dash in name", func(e *metrics.Emitter) { e.Gauge("a-b", "h", 1) }, "invalid metric name"},
		{"bad label name", func(e *metrics.Emitter) { e.Gauge("a", "h", 1, "a.b", "x") }, `invalid label name "a.b"`},
		{"reserved label name", func(e *metrics.Emitter) { e.Gauge("a", "h", 1, "__name__", "x") }, `invalid label name "__name__"`},
		{"label twice", func(e *metrics.Emitter) { e.Gauge("a", "h", 1, "k", "x", "k", "y") }, `label "k" given twice`},
		{"label without value", func(e *metrics.Emitter) { e.Counter("a_total", "h", 1, "k", "x", "code") }, `label "code" has no value`},
		{"series twice", func(e *metrics.Emitter) { e.Gauge("a", "h", 1, "k", "x"); e.Gauge("a", "h", 2, "k", "x") }, `series {k="x"} emitted twice`},
		{"two types", func(e *metrics.Emitter) { e.Gauge("a", "h", 1); e.Counter("a", "h", 1, "k", "x") }, "emitted as gauge and as counter"},
		{"two helps", func(e *metrics.Emitter) { e.Gauge("a", "h", 1); e.Gauge("a", "other", 1, "k", "x") }, "two help texts"},
		{"le on histogram", func(e *metrics.Emitter) {
			e.Histogram("h", "h", metrics.Histogram{}, "le", "1")
		}, `"le" is reserved`},
		{"bounds and counts", func(e *metrics.Emitter) {
			e.Histogram("h", "h", metrics.Histogram{UpperBounds: []float64{1, 2}, Counts: []uint64{1}})
		}, "2 bounds and 1 counts"},
		{"descending bounds", func(e *metrics.Emitter) {
			e.Histogram("h", "h", metrics.Histogram{UpperBounds: []float64{2, 1}, Counts: []uint64{1, 1}, Count: 1})
		}, "not strictly ascending"},
		{"not cumulative", func(e *metrics.Emitter) {
			e.Histogram("h", "h", metrics.Histogram{UpperBounds: []float64{1, 2}, Counts: []uint64{2, 1}, Count: 2})
		}, "not cumulative"},
		{"count below buckets", func(e *metrics.Emitter) {
			e.Histogram("h", "h", metrics.Histogram{UpperBounds: []float64{1}, Counts: []uint64{3}, Count: 2})
		}, "below its last bucket"},
		{"infinite bound", func(e *metrics.Emitter) {
			e.Histogram("h", "h", metrics.Histogram{UpperBounds: []float64{math.Inf(1)}, Counts: []uint64{3}, Count: 3})
		}, "not finite"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := metrics.NewRegistry(metrics.CollectorFunc(tt.emit), metrics.CollectorFunc(func(e *metrics.Emitter) { e.Gauge("fine", "ok", 1) }))
			var buf bytes.Buffer
			err := reg.Write(&buf)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Write error = %v, want one containing %q", err, tt.want)
			}
			fams, perr := metricstest.Parse(&buf)
			if perr != nil {
				t.Fatalf("what was written does not parse: %v\n%s", perr, buf.String())
			}
			if !hasFamily(fams, "fine") {
				t.Errorf("the valid family was not written:\n%s", buf.String())
			}
			rec := httptest.NewRecorder()
			reg.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), tt.want) {
				t.Errorf("ServeHTTP = %d %q, want 500 naming %q", rec.Code, rec.Body.String(), tt.want)
			}
		})
	}
}

func hasFamily(fams []metrics.Family, name string) bool {
	for _, f := range fams {
		if f.Name == name {
			return true
		}
	}
	return false
}

func TestSummaryWriteAndParse(t *testing.T) {
	s := metrics.Summary{Quantiles: []metrics.Quantile{{0, 0.001}, {0.25, 0.002}, {0.5, 0.003}, {1, 0.01}}, Count: 7, Sum: 0.05}
	reg := metrics.NewRegistry(metrics.CollectorFunc(func(e *metrics.Emitter) {
		e.Summary("gc_seconds", "Pauses.", s)
		e.Summary("rpc_seconds", "RPCs.", metrics.Summary{Count: 0}, "op", "get")
	}))
	var buf bytes.Buffer
	if err := reg.Write(&buf); err != nil {
		t.Fatal(err)
	}
	want := `# HELP gc_seconds Pauses.
# TYPE gc_seconds summary
gc_seconds{quantile="0"} 0.001
gc_seconds{quantile="0.25"} 0.002
gc_seconds{quantile="0.5"} 0.003
gc_seconds{quantile="1"} 0.01
gc_seconds_sum 0.05
gc_seconds_count 7
# HELP rpc_seconds RPCs.
# TYPE rpc_seconds summary
rpc_seconds_sum{op="get"} 0
rpc_seconds_count{op="get"} 0
`
	if buf.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", buf.String(), want)
	}
	fams, err := metricstest.Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	gathered, _ := reg.Gather()
	if !reflect.DeepEqual(fams, gathered) {
		t.Errorf("Parse = %+v, want what Gather returned, %+v", fams, gathered)
	}
}

// scrape writes reg and parses it back, as Prometheus would read it.
func scrape(t *testing.T, reg *metrics.Registry) map[string]metrics.Family {
	t.Helper()
	var buf bytes.Buffer
	if err := reg.Write(&buf); err != nil {
		t.Fatal(err)
	}
	fams, err := metricstest.Parse(&buf)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	out := map[string]metrics.Family{}
	for _, f := range fams {
		out[f.Name] = f
	}
	return out
}

func TestGoCollector(t *testing.T) {
	runtime.GC() // so that there is a pause to summarize
	fams := scrape(t, metrics.NewRegistry(metrics.GoCollector()))

	// The default set of client_golang's Go collector, with its types.
	want := map[string]metrics.Type{
		"go_goroutines": metrics.TypeGauge, "go_threads": metrics.TypeGauge, "go_info": metrics.TypeGauge,
		"go_gc_duration_seconds": metrics.TypeSummary, "go_memstats_last_gc_time_seconds": metrics.TypeGauge,
		"go_gc_gogc_percent": metrics.TypeGauge, "go_gc_gomemlimit_bytes": metrics.TypeGauge, "go_sched_gomaxprocs_threads": metrics.TypeGauge,
		"go_memstats_alloc_bytes": metrics.TypeGauge, "go_memstats_alloc_bytes_total": metrics.TypeCounter, "go_memstats_sys_bytes": metrics.TypeGauge,
		"go_memstats_mallocs_total": metrics.TypeCounter, "go_memstats_frees_total": metrics.TypeCounter,
		"go_memstats_heap_alloc_bytes": metrics.TypeGauge, "go_memstats_heap_sys_bytes": metrics.TypeGauge, "go_memstats_heap_idle_bytes": metrics.TypeGauge,
		"go_memstats_heap_inuse_bytes": metrics.TypeGauge, "go_memstats_heap_released_bytes": metrics.TypeGauge, "go_memstats_heap_objects": metrics.TypeGauge,
		"go_memstats_stack_inuse_bytes": metrics.TypeGauge, "go_memstats_stack_sys_bytes": metrics.TypeGauge,
		"go_memstats_mspan_inuse_bytes": metrics.TypeGauge, "go_memstats_mspan_sys_bytes": metrics.TypeGauge,
		"go_memstats_mcache_inuse_bytes": metrics.TypeGauge, "go_memstats_mcache_sys_bytes": metrics.TypeGauge,
		"go_memstats_buck_hash_sys_bytes": metrics.TypeGauge, "go_memstats_gc_sys_bytes": metrics.TypeGauge,
		"go_memstats_other_sys_bytes": metrics.TypeGauge, "go_memstats_next_gc_bytes": metrics.TypeGauge,
	}
	for name, typ := range want {
		f, ok := fams[name]
		switch {
		case !ok:
			t.Errorf("%s missing", name)
		case f.Type != typ:
			t.Errorf("%s is a %s, want a %s", name, f.Type, typ)
		case f.Help == "":
			t.Errorf("%s has no help", name)
		}
	}
	for name := range fams {
		if _, ok := want[name]; !ok {
			t.Errorf("%s emitted, not in the Go client's default set", name)
		}
	}

	value := func(name string) float64 { return fams[name].Series[0].Value }
	if n := value("go_goroutines"); n < 1 {
		t.Errorf("go_goroutines = %v, want > 0", n)
	}
	if n := value("go_threads"); n < 1 {
		t.Errorf("go_threads = %v, want > 0", n)
	}
	if l := fams["go_info"].Series[0].Labels; len(l) != 1 || l[0] != (metrics.Label{"version", runtime.Version()}) {
		t.Errorf("go_info labels = %v, want version=%s", l, runtime.Version())
	}
	if n := value("go_sched_gomaxprocs_threads"); n != float64(runtime.GOMAXPROCS(0)) {
		t.Errorf("go_sched_gomaxprocs_threads = %v, want %d", n, runtime.GOMAXPROCS(0))
	}
	if h := fams["go_gc_gogc_percent"].Help; !strings.HasSuffix(h, " Sourced from /gc/gogc:percent.") {
		t.Errorf("go_gc_gogc_percent help = %q, want the runtime's description and its source", h)
	}
	gc := fams["go_gc_duration_seconds"].Series[0].Summary
	var qs []float64
	for _, q := range gc.Quantiles {
		qs = append(qs, q.Q)
	}
	if !slices.Equal(qs, []float64{0, 0.25, 0.5, 0.75, 1}) || gc.Count < 1 || gc.Sum <= 0 {
		t.Errorf("go_gc_duration_seconds = %+v, want quantiles 0..1 by 0.25 and at least one pause", gc)
	}
	if last := value("go_memstats_last_gc_time_seconds"); math.Abs(last-float64(time.Now().Unix())) > 600 {
		t.Errorf("go_memstats_last_gc_time_seconds = %v, want about now", last)
	}
	if a, s := value("go_memstats_heap_alloc_bytes"), value("go_memstats_heap_sys_bytes"); a <= 0 || s < a {
		t.Errorf("heap alloc %v, sys %v: want 0 < alloc <= sys", a, s)
	}
	if value("go_memstats_alloc_bytes") != value("go_memstats_heap_alloc_bytes") {
		t.Errorf("go_memstats_alloc_bytes differs from go_memstats_heap_alloc_bytes")
	}
	if m, f := value("go_memstats_mallocs_total"), value("go_memstats_frees_total"); m < f || m-f < value("go_memstats_heap_objects")/2 {
		t.Errorf("mallocs %v, frees %v, heap objects %v: want mallocs - frees about the live objects", m, f, value("go_memstats_heap_objects"))
	}
}

func TestProcessCollector(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process metrics come from /proc")
	}
	fams := scrape(t, metrics.NewRegistry(metrics.ProcessCollector()))
	want := map[string]metrics.Type{
		"process_cpu_seconds_total": metrics.TypeCounter, "process_open_fds": metrics.TypeGauge, "process_max_fds": metrics.TypeGauge,
		"process_virtual_memory_bytes": metrics.TypeGauge, "process_virtual_memory_max_bytes": metrics.TypeGauge,
		"process_resident_memory_bytes": metrics.TypeGauge, "process_start_time_seconds": metrics.TypeGauge,
		"process_network_receive_bytes_total": metrics.TypeCounter, "process_network_transmit_bytes_total": metrics.TypeCounter,
	}
	if len(fams) != len(want) {
		t.Errorf("%d families, want %d", len(fams), len(want))
	}
	for name, typ := range want {
		if f, ok := fams[name]; !ok || f.Type != typ || f.Help == "" {
			t.Errorf("%s = %+v, want a %s with help", name, f, typ)
		}
	}
	value := func(name string) float64 { return fams[name].Series[0].Value }
	// The test binary started moments ago.
	if start := value("process_start_time_seconds"); math.Abs(start-float64(time.Now().Unix())) > 600 {
		t.Errorf("process_start_time_seconds = %v, want within 10 minutes of now (%d)", start, time.Now().Unix())
	}
	if rss := value("process_resident_memory_bytes"); rss < 1<<20 {
		t.Errorf("process_resident_memory_bytes = %v, want at least 1 MiB", rss)
	}
	if v, rss := value("process_virtual_memory_bytes"), value("process_resident_memory_bytes"); v < rss {
		t.Errorf("virtual memory %v below resident %v", v, rss)
	}
	if open, max := value("process_open_fds"), value("process_max_fds"); open < 3 || max < open {
		t.Errorf("open fds %v, max %v: want 3 <= open <= max", open, max)
	}
	if cpu := value("process_cpu_seconds_total"); cpu < 0 {
		t.Errorf("process_cpu_seconds_total = %v", cpu)
	}
}
