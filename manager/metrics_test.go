// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/internal/metrics/metricstest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// fakeController looks like a *controller.Controller from the manager's
// side: a named runnable that collects its own metrics, as a controller
// does (the real one's are tested in join_test.go).
type fakeController struct {
	name string
}

func (f *fakeController) Name() string             { return f.name }
func (f *fakeController) NeedLeaderElection() bool { return true }
func (f *fakeController) Start(ctx context.Context) error {
	<-ctx.Done()
	return nil
}

// CollectMetrics writes the fake's metrics as a controller does.
func (f *fakeController) CollectMetrics(e MetricsEmitter) {
	q := []string{"controller", f.name, "name", f.name}
	e.Gauge("workqueue_depth", "Current depth of workqueue", 3, q...)
	e.Counter("workqueue_adds_total", "Total number of adds handled by workqueue", 10, q...)
	e.Counter("workqueue_retries_total", "Total number of retries handled by workqueue", 2, q...)
	e.Gauge("workqueue_unfinished_work_seconds", "Unfinished work.", 1.5, q...)
	e.Gauge("workqueue_longest_running_processor_seconds", "Longest running.", 1, q...)
	bounds := make([]float64, queue.HistogramBuckets)
	counts := make([]uint64, queue.HistogramBuckets)
	for i := range bounds {
		bounds[i], counts[i] = float64(i+1)/10, 7
	}
	e.Histogram("workqueue_queue_duration_seconds", "Queue duration.", queue.Histogram{UpperBounds: bounds, Counts: counts, Count: 7, Sum: 0.7}, q...)
	c := []string{"controller", f.name}
	for result, n := range map[string]float64{"success": 5, "error": 2, "requeue": 1, "requeue_after": 4} {
		e.Counter("controller_runtime_reconcile_total", "Reconciles.", n, "controller", f.name, "result", result)
	}
	e.Counter("controller_runtime_reconcile_errors_total", "Errors.", 2, c...)
	e.Counter("controller_runtime_terminal_reconcile_errors_total", "Terminal errors.", 1, c...)
	e.Counter("controller_runtime_reconcile_panics_total", "Panics.", 1, c...)
	e.Histogram("controller_runtime_reconcile_time_seconds", "Reconcile time.",
		queue.Histogram{UpperBounds: []float64{0.1, 1, 10}, Counts: []uint64{6, 11, 12}, Count: 12, Sum: 3.5}, c...)
	e.Gauge("controller_runtime_active_workers", "Workers.", 1, c...)
	e.Gauge("controller_runtime_max_concurrent_reconciles", "Max workers.", 4, c...)
}

// scrape reads the metrics endpoint and parses it strictly.
func scrape(t *testing.T, m *Manager) []metrics.Family {
	t.Helper()
	code, body := get(m.metricsHandler(), "/metrics")
	if code != http.StatusOK {
		t.Fatalf("GET /metrics = %d %q", code, body)
	}
	fams, err := metricstest.Parse(strings.NewReader(body))
	if err != nil {
		t.Fatalf("GET /metrics does not parse: %v\n%s", err, body)
	}
	return fams
}

// sample finds the series of family name whose labels include want.
func sample(fams []metrics.Family, name string, want ...string) (metrics.Series, bool) {
	for _, f := range fams {
		if f.Name != name {
			continue
		}
	series:
		for _, s := range f.Series {
			for i := 0; i+1 < len(want); i += 2 {
				found := false
				for _, l := range s.Labels {
					if l.Name == want[i] && l.Value == want[i+1] {
						found = true
					}
				}
				if !found {
					continue series
				}
			}
			return s, true
		}
	}
	return metrics.Series{}, false
}

func TestMetricsEndpoint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createCM(t, srv, "default", "a")
		createCM(t, srv, "kube-system", "b")
		m := electing(t, srv, "a", &ledger{}, nil)
		// Two controllers write series of the same families: each
		// family's HELP and TYPE once (scrape parses strictly).
		for _, name := range []string{"widget", "gadget"} {
			if err := m.Add(&fakeController{name: name}); err != nil {
				t.Fatal(err)
			}
		}
		mine := NewCounterVec("widgets_painted_total", "Widgets painted, by color.", "color")
		mine.Inc("red")
		m.AddMetricsCollector(mine)
		run := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		fams := scrape(t, m)

		values := []struct {
			name   string
			labels []string
			want   float64
		}{
			{"workqueue_depth", []string{"controller", "widget", "name", "widget"}, 3},
			{"workqueue_depth", []string{"controller", "gadget", "name", "gadget"}, 3},
			{"workqueue_adds_total", []string{"controller", "widget", "name", "widget"}, 10},
			{"workqueue_retries_total", []string{"name", "widget"}, 2},
			{"workqueue_unfinished_work_seconds", []string{"name", "widget"}, 1.5},
			{"workqueue_longest_running_processor_seconds", []string{"name", "widget"}, 1},
			{"controller_runtime_reconcile_total", []string{"controller", "widget", "result", "success"}, 5},
			{"controller_runtime_reconcile_total", []string{"controller", "widget", "result", "error"}, 2},
			{"controller_runtime_reconcile_total", []string{"controller", "widget", "result", "requeue"}, 1},
			{"controller_runtime_reconcile_total", []string{"controller", "widget", "result", "requeue_after"}, 4},
			{"controller_runtime_reconcile_total", []string{"controller", "gadget", "result", "requeue_after"}, 4},
			{"controller_runtime_reconcile_errors_total", []string{"controller", "widget"}, 2},
			{"controller_runtime_terminal_reconcile_errors_total", []string{"controller", "widget"}, 1},
			{"controller_runtime_reconcile_panics_total", []string{"controller", "widget"}, 1},
			{"controller_runtime_active_workers", []string{"controller", "widget"}, 1},
			{"controller_runtime_max_concurrent_reconciles", []string{"controller", "widget"}, 4},
			{"leader_election_master_status", []string{"name", testLease}, 1},
			{"kubeloop_cache_objects", []string{"group", "", "version", "v1", "kind", "ConfigMap"}, 2},
			{"widgets_painted_total", []string{"color", "red"}, 1},
		}
		for _, v := range values {
			s, ok := sample(fams, v.name, v.labels...)
			if !ok || s.Value != v.want {
				t.Errorf("%s%v = %v (found %v), want %v", v.name, v.labels, s.Value, ok, v.want)
			}
		}
		if s, ok := sample(fams, "controller_runtime_reconcile_time_seconds", "controller", "widget"); !ok ||
			s.Histogram.Count != 12 || s.Histogram.Sum != 3.5 || len(s.Histogram.Counts) != 3 || s.Histogram.Counts[1] != 11 {
			t.Errorf("controller_runtime_reconcile_time_seconds = %+v, want the controller's histogram", s.Histogram)
		}
		if s, ok := sample(fams, "workqueue_queue_duration_seconds", "name", "widget"); !ok || s.Histogram.Count != 7 ||
			len(s.Histogram.Counts) != queue.HistogramBuckets {
			t.Errorf("workqueue_queue_duration_seconds = %+v, want the queue's histogram", s.Histogram)
		}
		// The Go and process collectors' series, as controller-runtime
		// serves them.
		if s, ok := sample(fams, "go_goroutines"); !ok || s.Value < 1 {
			t.Errorf("go_goroutines = %v (found %v), want > 0", s.Value, ok)
		}
		if s, ok := sample(fams, "process_resident_memory_bytes"); runtime.GOOS == "linux" && (!ok || s.Value <= 0) {
			t.Errorf("process_resident_memory_bytes = %v (found %v), want > 0", s.Value, ok)
		}
		if s, ok := sample(fams, "kubeloop_cache_bytes", "kind", "ConfigMap"); !ok || s.Value <= 0 {
			t.Errorf("kubeloop_cache_bytes{kind=ConfigMap} = %v, want > 0", s.Value)
		}
		// The informer listed (or watch-listed) ConfigMaps and the elector
		// wrote the Lease, through the counting transport.
		host := testConfig(srv).Host
		host = host[strings.Index(host, "//")+2:]
		if s, ok := sample(fams, "rest_client_requests_total", "code", "200", "method", "GET", "host", host); !ok || s.Value < 1 {
			t.Errorf("rest_client_requests_total{code=200,method=GET} = %v, want >= 1", s.Value)
		}
		if s, ok := sample(fams, "rest_client_requests_total", "code", "201", "method", "POST"); !ok || s.Value < 1 {
			t.Errorf("rest_client_requests_total{code=201,method=POST} = %v (the Lease's create), want >= 1", s.Value)
		}
		if s, ok := sample(fams, "rest_client_request_duration_seconds", "verb", "GET"); !ok || s.Histogram.Count < 1 {
			t.Errorf("rest_client_request_duration_seconds{verb=GET} = %+v, want observations", s.Histogram)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestMetricsServedOnStandby(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		a := electing(t, srv, "a", &ledger{}, nil)
		b := electing(t, srv, "b", &ledger{}, nil)
		start(t, a)
		time.Sleep(time.Second)
		start(t, b)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if s, ok := sample(scrape(t, b), "leader_election_master_status", "name", testLease); !ok || s.Value != 0 {
			t.Errorf("standby leader_election_master_status = %v (found %v), want 0", s.Value, ok)
		}
	})
}

func TestMetricsClashIsA500(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, nil)
	if err := m.Add(&fakeController{name: "widget"}); err != nil {
		t.Fatal(err)
	}
	m.AddMetricsCollector(MetricsCollectorFunc(func(e MetricsEmitter) {
		e.Counter("workqueue_depth", "Mine.", 1, "name", "x")
	}))
	code, body := get(m.metricsHandler(), "/metrics")
	if code != http.StatusInternalServerError || !strings.Contains(body, "workqueue_depth") {
		t.Errorf("GET /metrics = %d %q, want 500 naming the clashing metric", code, body)
	}
}

// TestMetricsResponseBytes: a list through the manager's client shows up
// with its body's bytes, by verb and resource, and a watch's bytes show as
// they are read, its size when it ends.
func TestMetricsResponseBytes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createCM(t, srv, "default", "a")
		createCM(t, srv, "default", "b")
		m := newTestManager(t, srv, nil)
		ctx := t.Context()
		var list kube.List[kube.ConfigMap]
		if err := m.APIClient().List(ctx, &list, kube.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		// The same answer, read past the manager's client.
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, testConfig(srv).Host+"/api/v1/namespaces/default/configmaps", nil)
		req.Header.Set("Accept", "application/json")
		resp, err := srv.Transport().RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := float64(len(body))

		fams := scrape(t, m)
		if s, ok := sample(fams, "kubeloop_rest_client_response_bytes_total", "verb", "LIST", "resource", "configmaps"); !ok || s.Value != want {
			t.Errorf("kubeloop_rest_client_response_bytes_total{verb=LIST,resource=configmaps} = %v (found %v), want %v, the list's body", s.Value, ok, want)
		}
		if s, ok := sample(fams, "kubeloop_rest_client_response_size_bytes", "verb", "LIST", "resource", "configmaps"); !ok || s.Histogram.Count != 1 || s.Histogram.Sum != want {
			t.Errorf("kubeloop_rest_client_response_size_bytes{verb=LIST,resource=configmaps} = %+v, want one list of %v bytes", s.Histogram, want)
		}
		if s, ok := sample(fams, "kubeloop_rest_client_response_bytes_total", "verb", "GET", "resource", "<discovery>"); !ok || s.Value <= 0 {
			t.Errorf("kubeloop_rest_client_response_bytes_total{verb=GET,resource=<discovery>} = %v (found %v), want the discovery the list needed", s.Value, ok)
		}

		w, err := m.APIClient().Watch(ctx, kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			kube.ListOptions{Namespace: "default", ResourceVersion: list.ResourceVersion})
		if err != nil {
			t.Fatal(err)
		}
		createCM(t, srv, "default", "c")
		if _, err := w.Next(); err != nil {
			t.Fatal(err)
		}
		fams = scrape(t, m)
		if s, ok := sample(fams, "kubeloop_rest_client_response_bytes_total", "verb", "WATCH", "resource", "configmaps"); !ok || s.Value <= 0 {
			t.Errorf("kubeloop_rest_client_response_bytes_total{verb=WATCH} with an event read = %v (found %v), want > 0 while the watch is open", s.Value, ok)
		}
		if s, ok := sample(fams, "kubeloop_rest_client_response_size_bytes", "verb", "WATCH"); ok {
			t.Errorf("kubeloop_rest_client_response_size_bytes{verb=WATCH} = %+v while the watch is open, want none", s.Histogram)
		}
		w.Stop()
		fams = scrape(t, m)
		read, _ := sample(fams, "kubeloop_rest_client_response_bytes_total", "verb", "WATCH", "resource", "configmaps")
		if s, ok := sample(fams, "kubeloop_rest_client_response_size_bytes", "verb", "WATCH", "resource", "configmaps"); !ok || s.Histogram.Count != 1 || s.Histogram.Sum != read.Value {
			t.Errorf("kubeloop_rest_client_response_size_bytes{verb=WATCH} after the watch = %+v, want one of %v bytes", s.Histogram, read.Value)
		}
	})
}
