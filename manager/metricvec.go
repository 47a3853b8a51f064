// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/queue"
)

// This file holds the metrics a program owns and updates as things happen:
// counters, gauges and histograms, each a family of series told apart by
// label values. Each is a [MetricsCollector]: add it to the manager with
// [Manager.AddMetricsCollector], and each scrape emits its series. The
// manager counts its own requests, events and ring handovers with them.

// vec is the label bookkeeping the three kinds share: one cell per
// combination of label values, made on first use.
type vec[C any] struct {
	name, help string
	labels     []string // names, in the order values are given

	mu    sync.Mutex
	cells map[string]*cell[C] // by label values joined with "\xff"
}

type cell[C any] struct {
	values []string
	c      C
}

// newVec returns a family with no cells yet; it keeps a copy of labels.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func newVec[C any](name, help string, labels []string) vec[C] {
	return vec[C]{name: name, help: help, labels: slices.Clone(labels), cells: map[string]*cell[C]{}}
}

// with calls fn on the cell of values, under the lock, making it with mk
// on first use. It panics when the number of values is not the number of
// label names: that is a programming mistake, as in Prometheus' client.
func (v *vec[C]) with(values []string, mk func() C, fn func(c *C)) {
	if len(values) != len(v.labels) {
		panic(fmt.Sprintf("metric %s: %d label values for %d labels %v", v.name, len(values), len(v.labels), v.labels))
	}
	key := strings.Join(values, "\xff")
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.cells == nil { // a zero vec: a family without labels
		v.cells = map[string]*cell[C]{}
	}
	c := v.cells[key]
	if c == nil {
		c = &cell[C]{values: slices.Clone(values), c: mk()}
		v.cells[key] = c
	}
	fn(&c.c)
}

// each calls fn for every cell with its labels as name, value pairs,
// under the lock.
func (v *vec[C]) each(fn func(labels []string, c *C)) {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, c := range v.cells {
		labels := make([]string, 0, 2*len(v.labels))
		for i, n := range v.labels {
			labels = append(labels, n, c.values[i])
		}
		fn(labels, &c.c)
	}
}

// CounterVec is a counter family: a value per combination of label values
// that only goes up. It is safe for concurrent use; each update costs a
// lock and, for a new combination of label values, an allocation.
type CounterVec struct{ v vec[float64] }

// NewCounterVec returns a counter family; names are checked at scrape time.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func NewCounterVec(name, help string, labelNames ...string) *CounterVec {
	return &CounterVec{v: newVec[float64](name, help, labelNames)}
}

// Inc adds 1 to the series of labelValues, given in the order of the
// label names.
func (c *CounterVec) Inc(labelValues ...string) {
	if c != nil {
		c.Add(1, labelValues...)
	}
}

// Add adds delta, which must not be negative, to the series of
// labelValues.
func (c *CounterVec) Add(delta float64, labelValues ...string) {
	if c == nil {
		return
	}
	if delta < 0 || math.IsNaN(delta) {
		panic(fmt.Sprintf("metric %s: counter decreased by %v", c.v.name, -delta))
	}
	c.v.with(labelValues, func() float64 { return 0 }, func(x *float64) { *x += delta })
}

// Value returns the value of the series of labelValues (0 if unused).
func (c *CounterVec) Value(labelValues ...string) float64 {
	var out float64
	if c == nil {
		return out
	}
	c.v.mu.Lock()
	defer c.v.mu.Unlock()
	if cl := c.v.cells[strings.Join(labelValues, "\xff")]; cl != nil {
		out = cl.c
	}
	return out
}

// CollectMetrics implements [MetricsCollector]: it emits the family's
// series to e.
func (c *CounterVec) CollectMetrics(e MetricsEmitter) {
	if c == nil || e == nil {
		return
	}
	c.v.each(func(labels []string, x *float64) { e.Counter(c.v.name, c.v.help, *x, labels...) })
}

// GaugeVec is a gauge family: a value per combination of label values
// that goes up and down. It is safe for concurrent use.
type GaugeVec struct{ v vec[float64] }

// NewGaugeVec returns a gauge family; names are checked at scrape time.
func NewGaugeVec(name, help string, labelNames ...string) *GaugeVec {
	return &GaugeVec{v: newVec[float64](name, help, labelNames)}
}

// Set sets the series of labelValues to value.
func (g *GaugeVec) Set(value float64, labelValues ...string) {
	if g == nil {
		return
	}
	g.v.with(labelValues, func() float64 { return 0 }, func(x *float64) { *x = value })
}

// Add adds delta (which may be negative) to the series of labelValues.
func (g *GaugeVec) Add(delta float64, labelValues ...string) {
	if g == nil {
		return
	}
	g.v.with(labelValues, func() float64 { return 0 }, func(x *float64) { *x += delta })
}

// CollectMetrics implements [MetricsCollector]: it emits the family's
// series to e.
func (g *GaugeVec) CollectMetrics(e MetricsEmitter) {
	if g == nil || e == nil {
		return
	}
	g.v.each(func(labels []string, x *float64) { e.Gauge(g.v.name, g.v.help, *x, labels...) })
}

// HistogramVec is a histogram family: the distribution of observations per
// combination of label values, in fixed buckets. It is safe for
// concurrent use.
type HistogramVec struct {
	v      vec[histCell]
	bounds []float64
}

type histCell struct {
	counts []uint64 // not cumulative: counts[i] holds (bounds[i-1], bounds[i]]
	count  uint64
	sum    float64
}

// NewHistogramVec returns a histogram family with the given finite bucket
// upper bounds (sorted here, duplicates dropped).
func NewHistogramVec(name, help string, bounds []float64, labelNames ...string) *HistogramVec {
	b := slices.Clone(bounds)
	sort.Sort(sort.Float64Slice(b)) // not slices.Sort: a sort of its own for float64 adds 12 kB to a program
	return &HistogramVec{v: newVec[histCell](name, help, labelNames), bounds: slices.Compact(b)}
}

// Observe records value in the series of labelValues. The cost is a binary
// search over the bounds.
func (h *HistogramVec) Observe(value float64, labelValues ...string) {
	if h == nil {
		return
	}
	i := sort.SearchFloat64s(h.bounds, value) // first bound >= value
	h.v.with(labelValues, func() histCell { return histCell{counts: make([]uint64, len(h.bounds))} }, func(c *histCell) {
		if i < len(c.counts) {
			c.counts[i]++
		}
		c.count++
		c.sum += value
	})
}

// CollectMetrics implements [MetricsCollector]: it emits the family's
// series to e, with cumulative bucket counts.
func (h *HistogramVec) CollectMetrics(e MetricsEmitter) {
	if h == nil || e == nil {
		return
	}
	h.v.each(func(labels []string, c *histCell) {
		s := queue.Histogram{UpperBounds: h.bounds, Counts: make([]uint64, len(c.counts)), Count: c.count, Sum: c.sum}
		var cum uint64
		for i, n := range c.counts {
			cum += n
			s.Counts[i] = cum
		}
		e.Histogram(h.v.name, h.v.help, s, labels...)
	})
}
