// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// Type is the type of a metric family, as "# TYPE" names it.
type Type uint8

// The metric types this package writes.
const (
	TypeCounter Type = iota + 1
	TypeGauge
	TypeHistogram
	TypeSummary
)

// String returns the name the format uses: "counter", "gauge",
// "histogram" or "summary".
func (t Type) String() string {
	switch t {
	case TypeCounter:
		return "counter"
	case TypeGauge:
		return "gauge"
	case TypeHistogram:
		return "histogram"
	case TypeSummary:
		return "summary"
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// Label is one label of a series: name="value".
type Label struct {
	Name, Value string
}

// Histogram is a snapshot of a histogram: cumulative counts per bucket.
//
// It is an alias of a struct type literal, identical to queue.Histogram:
// the one histogram type of the module, which a queue and a controller
// fill and this package writes, without this package importing theirs.
//
//   - UpperBounds are the inclusive upper bounds of the finite buckets,
//     strictly ascending.
//   - Counts[i] is the number of observations <= UpperBounds[i]
//     (cumulative, so non-decreasing); it has one entry per bound.
//   - Count is the number of observations: the "+Inf" bucket.
//   - Sum is the sum of the observations.
type Histogram = struct {
	UpperBounds []float64
	Counts      []uint64
	Count       uint64
	Sum         float64
}

// Family is one metric family of a scrape: its name, help, type and
// series, in the order they are written.
type Family struct {
	Name, Help string
	Type       Type
	Series     []Series
}

// Series is one labelled value of a family. Histogram is set, and Value
// unused, for histogram families; Summary likewise for summary families.
type Series struct {
	// Labels are sorted by name.
	Labels    []Label
	Value     float64
	Histogram *Histogram
	Summary   *Summary
}

// Collector adds samples to a scrape. Collect is called once per scrape,
// possibly from several goroutines at once (concurrent scrapes), and must
// not keep e.
type Collector interface {
	Collect(e *Emitter)
}

// CollectorFunc is a [Collector] made of a func.
type CollectorFunc func(e *Emitter)

// Collect implements [Collector].
func (f CollectorFunc) Collect(e *Emitter) { f(e) }

// Emitter gathers the samples of one scrape. Collectors call its methods;
// it is not safe for concurrent use, and a scrape gives each collector the
// same one in turn.
type Emitter struct {
	families map[string]*Family
	seen     map[string]bool // family name + "\xff" + label key of every series
	errs     []error
}

func newEmitter() *Emitter {
	return &Emitter{families: map[string]*Family{}, seen: map[string]bool{}}
}

// Counter emits one series of a counter family; labels are name, value
// pairs. Prometheus counters conventionally end in "_total".
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (e *Emitter) Counter(name, help string, value float64, labels ...string) {
	e.add(name, help, TypeCounter, Series{Value: value}, labels)
}

// Gauge emits one series of a gauge family; labels are name, value pairs.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (e *Emitter) Gauge(name, help string, value float64, labels ...string) {
	e.add(name, help, TypeGauge, Series{Value: value}, labels)
}

// Histogram emits one series of a histogram family; labels are name,
// value pairs. h is copied.
func (e *Emitter) Histogram(name, help string, h Histogram, labels ...string) {
	h.UpperBounds = slices.Clone(h.UpperBounds)
	h.Counts = slices.Clone(h.Counts)
	e.add(name, help, TypeHistogram, Series{Histogram: &h}, labels)
}

// add checks a series with the labels given as pairs and files it under
// its family; a series that would break the format is recorded as an
// error instead.
func (e *Emitter) add(name, help string, typ Type, s Series, pairs []string) {
	if len(pairs)%2 != 0 {
		e.errs = append(e.errs, errs.Errorf("metric %s: label %q has no value: labels are name, value pairs", name, pairs[len(pairs)-1]))
		return
	}
	for i := 0; i < len(pairs); i += 2 {
		s.Labels = append(s.Labels, Label{Name: pairs[i], Value: pairs[i+1]})
	}
	if err := e.check(name, help, typ, &s); err != nil {
		e.errs = append(e.errs, errs.Errorf("metric %s: %w", name, err))
		return
	}
	f := e.families[name]
	if f == nil {
		f = &Family{Name: name, Help: help, Type: typ}
		e.families[name] = f
	}
	f.Series = append(f.Series, s)
}

// check validates a series and sorts its labels.
func (e *Emitter) check(name, help string, typ Type, s *Series) error {
	if !ValidMetricName(name) {
		return errors.New("invalid metric name: want [a-zA-Z_:][a-zA-Z0-9_:]*")
	}
	if f := e.families[name]; f != nil {
		if f.Type != typ {
			return errs.Errorf("emitted as %s and as %s", f.Type, typ)
		}
		if f.Help != help {
			return errs.Errorf("emitted with two help texts, %q and %q", f.Help, help)
		}
	}
	sort.SliceStable(s.Labels, func(i, j int) bool { return s.Labels[i].Name < s.Labels[j].Name }) // see result
	for i, l := range s.Labels {
		switch {
		case !ValidLabelName(l.Name):
			return errs.Errorf("invalid label name %q: want [a-zA-Z_][a-zA-Z0-9_]*, not starting with __", l.Name)
		case i > 0 && s.Labels[i-1].Name == l.Name:
			return errs.Errorf("label %q given twice", l.Name)
		case typ == TypeHistogram && l.Name == "le":
			return errors.New(`label "le" is reserved for histogram buckets`)
		case typ == TypeSummary && l.Name == "quantile":
			return errors.New(`label "quantile" is reserved for summary quantiles`)
		}
	}
	if h := s.Histogram; h != nil {
		if err := checkHistogram(h); err != nil {
			return err
		}
	}
	if q := s.Summary; q != nil {
		if err := CheckSummary(q); err != nil {
			return err
		}
	}
	key := name + "\xff" + LabelKey(s.Labels)
	if e.seen[key] {
		return errs.Errorf("series {%s} emitted twice", LabelKey(s.Labels))
	}
	e.seen[key] = true
	return nil
}

func checkHistogram(h *Histogram) error {
	if len(h.Counts) != len(h.UpperBounds) {
		return errs.Errorf("histogram has %d bounds and %d counts", len(h.UpperBounds), len(h.Counts))
	}
	for i, b := range h.UpperBounds {
		switch {
		case math.IsNaN(b) || math.IsInf(b, +1):
			return errs.Errorf("histogram bound %v is not finite (the +Inf bucket is implicit)", b)
		case i > 0 && b <= h.UpperBounds[i-1]:
			return errs.Errorf("histogram bounds are not strictly ascending: %v after %v", b, h.UpperBounds[i-1])
		case i > 0 && h.Counts[i] < h.Counts[i-1]:
			return errs.Errorf("histogram counts are not cumulative: %d after %d", h.Counts[i], h.Counts[i-1])
		}
	}
	if n := len(h.Counts); n > 0 && h.Counts[n-1] > h.Count {
		return errs.Errorf("histogram count %d is below its last bucket's %d", h.Count, h.Counts[n-1])
	}
	return nil
}

// LabelKey renders sorted labels as the text format writes them
// (name="value",...): a key for duplicate detection and messages.
func LabelKey(labels []Label) string {
	var b strings.Builder
	for i, l := range labels {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(l.Name)
		b.WriteString(`="`)
		b.WriteString(escapeLabelValue(l.Value))
		b.WriteByte('"')
	}
	return b.String()
}

// result returns the families sorted by name, their series sorted by
// labels, and the errors met.
func (e *Emitter) result() ([]Family, error) {
	out := make([]Family, 0, len(e.families))
	for _, f := range e.families {
		sort.SliceStable(f.Series, func(i, j int) bool { return CompareLabels(f.Series[i].Labels, f.Series[j].Labels) < 0 })
		out = append(out, *f)
	}
	// sort.SliceStable, not slices.SortFunc: the generic sort is compiled
	// anew for each element type (some 10 kB of code each, twice that in
	// the binary), sort.SliceStable once for all of them, and the standard
	// packages every program links have it already (sort.Slice would add
	// its own quicksort: 11 kB).
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errors.Join(e.errs...)
}

// CompareLabels orders label lists as series are sorted: by name, then
// value, label by label; a shorter list first.
func CompareLabels(a, b []Label) int {
	for i := range min(len(a), len(b)) {
		if c := cmp.Compare(a[i].Name, b[i].Name); c != 0 {
			return c
		}
		if c := cmp.Compare(a[i].Value, b[i].Value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// ValidMetricName reports whether s matches [a-zA-Z_:][a-zA-Z0-9_:]*.
func ValidMetricName(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(isLetter(c) || c == '_' || c == ':' || i > 0 && isDigit(c)) {
			return false
		}
	}
	return true
}

// ValidLabelName reports whether s matches [a-zA-Z_][a-zA-Z0-9_]* and does
// not start with "__" (reserved for Prometheus' own use).
func ValidLabelName(s string) bool {
	if s == "" || strings.HasPrefix(s, "__") {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !(isLetter(c) || c == '_' || i > 0 && isDigit(c)) {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
