// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/queue"
)

// recorded is a MetricsEmitter that keeps what it is given, by name and
// labels.
type recorded map[string]any

func (s recorded) key(name string, labels []string) string {
	return name + "{" + strings.Join(labels, ",") + "}"
}

func (s recorded) Counter(name, _ string, v float64, labels ...string) { s[s.key(name, labels)] = v }
func (s recorded) Gauge(name, _ string, v float64, labels ...string)   { s[s.key(name, labels)] = v }
func (s recorded) Histogram(name, _ string, h queue.Histogram, labels ...string) {
	s[s.key(name, labels)] = h
}

func TestVecsCollect(t *testing.T) {
	c := NewCounterVec("requests_total", "Requests.", "code", "method")
	c.Inc("200", "GET")
	c.Add(2, "500", "PUT")
	c.Inc("200", "GET")
	g := NewGaugeVec("depth", "Depth.", "name")
	g.Set(7, "a")
	g.Add(-2, "a")
	h := NewHistogramVec("latency_seconds", "Latency.", []float64{1, 0.5, 2, 1}, "verb")
	for _, v := range []float64{0.1, 0.5, 0.7, 3, 1} {
		h.Observe(v, "get")
	}
	got := recorded{}
	for _, col := range []MetricsCollector{c, g, h} {
		col.CollectMetrics(got)
	}
	want := recorded{}
	want.Counter("requests_total", "", 2, "code", "200", "method", "GET")
	want.Counter("requests_total", "", 2, "code", "500", "method", "PUT")
	want.Gauge("depth", "", 5, "name", "a")
	// Bounds sorted and deduplicated, counts cumulative, 0.5 in the 0.5
	// bucket (bounds are inclusive), 3 only in the count.
	want.Histogram("latency_seconds", "", queue.Histogram{UpperBounds: []float64{0.5, 1, 2}, Counts: []uint64{2, 4, 4}, Count: 5, Sum: 5.3}, "verb", "get")
	if !reflect.DeepEqual(got, want) {
		t.Errorf("collected %v, want %v", got, want)
	}
}

func TestCounterValue(t *testing.T) {
	c := NewCounterVec("c_total", "c", "reason")
	c.Add(2.5, "a")
	c.Inc("a")
	if got := c.Value("a"); got != 3.5 {
		t.Errorf("Value(a) = %v, want 3.5", got)
	}
	if got := c.Value("b"); got != 0 {
		t.Errorf("Value(b) = %v, want 0", got)
	}
}

func TestVecPanics(t *testing.T) {
	tests := []struct {
		name string
		fn   func()
	}{
		{"too few label values", func() { NewCounterVec("c_total", "c", "a", "b").Inc("x") }},
		{"too many label values", func() { NewGaugeVec("g", "g").Set(1, "x") }},
		{"counter decrease", func() { NewCounterVec("c_total", "c").Add(-1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", tt.name)
				}
			}()
			tt.fn()
		})
	}
}
