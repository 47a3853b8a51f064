// SPDX-License-Identifier: Apache-2.0

package metricstest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// Parse reads the text exposition format strictly, as a test of what a
// [metrics.Registry] writes: every line (ended by '\n' alone; a '\r' belongs to
// the line) must be empty, a comment, a "# HELP", a "# TYPE" or a sample;
// a family's TYPE comes before its samples and its lines are contiguous;
// a histogram has ascending, cumulative buckets (bounds that are not NaN,
// counts that are whole numbers a uint64 holds) ending in le="+Inf" that
// equals its _count, and a _sum; a summary has ascending quantiles within
// [0, 1], a _sum and a _count (a whole number a uint64 holds). Samples
// without a TYPE are refused (this package never writes untyped metrics),
// and so are timestamps. Series are returned sorted by their labels, and labels
// by name, as [metrics.Registry.Gather] sorts them; a histogram's series carries
// its buckets in Histogram, a summary's its quantiles in Summary.
//
// An error names the line number and quotes the line.
func Parse(r io.Reader) ([]metrics.Family, error) {
	p := parser{byName: map[string]*metrics.Family{}, done: map[string]bool{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	sc.Split(scanLF)
	for sc.Scan() {
		p.line++
		if err := p.parseLine(sc.Text()); err != nil {
			return nil, fmt.Errorf("line %d %q: %w", p.line, sc.Text(), err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read metrics: %w", err)
	}
	if err := p.finish(); err != nil {
		return nil, err
	}
	out := make([]metrics.Family, len(p.out))
	for i, f := range p.out {
		out[i] = *f
	}
	return out, nil
}

// scanLF splits lines at '\n' alone, the format's line end: unlike
// bufio.ScanLines it keeps a '\r' before it, which belongs to the line
// (and is refused there, or kept in help text and label values).
func scanLF(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

type parser struct {
	line   int
	out    []*metrics.Family // in the order of their TYPE lines
	byName map[string]*metrics.Family
	cur    string          // the family whose lines are being read
	done   map[string]bool // families whose lines have ended
	help   map[string]string
	// hist holds the histogram series of cur being assembled, by label key.
	hist map[string]*histParts
	// summ does the same for summaries.
	summ map[string]*summParts
}

type histParts struct {
	labels          []metrics.Label
	bounds          []float64
	counts          []uint64
	inf, sum, count *float64
}

func (p *parser) parseLine(line string) error {
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "# HELP "), strings.HasPrefix(line, "# TYPE "):
		return p.parseMeta(line)
	case strings.HasPrefix(line, "#"):
		return nil
	}
	return p.parseSample(line)
}

func (p *parser) parseMeta(line string) error {
	kind, rest := line[2:6], line[7:]
	name, text, _ := strings.Cut(rest, " ")
	if !metrics.ValidMetricName(name) {
		return fmt.Errorf("invalid metric name %q", name)
	}
	if err := p.enter(name); err != nil {
		return err
	}
	f := p.byName[name]
	if kind == "HELP" {
		if p.help == nil {
			p.help = map[string]string{}
		}
		if _, ok := p.help[name]; ok {
			return errors.New("second HELP line for the family")
		}
		h, err := unescapeHelp(text)
		if err != nil {
			return err
		}
		p.help[name] = h
		if f != nil {
			f.Help = h
		}
		return nil
	}
	if f != nil {
		return errors.New("second TYPE line for the family")
	}
	var typ metrics.Type
	switch text {
	case "counter":
		typ = metrics.TypeCounter
	case "gauge":
		typ = metrics.TypeGauge
	case "histogram":
		typ = metrics.TypeHistogram
	case "summary":
		typ = metrics.TypeSummary
	default:
		return fmt.Errorf("unsupported type %q", text)
	}
	f = &metrics.Family{Name: name, Help: p.help[name], Type: typ}
	p.out = append(p.out, f)
	p.byName[name] = f
	return nil
}

// enter makes name the current family, finishing the previous one.
func (p *parser) enter(name string) error {
	if name == p.cur {
		return nil
	}
	if p.done[name] {
		return fmt.Errorf("lines of family %s are not contiguous", name)
	}
	if p.cur != "" {
		if err := p.finishFamily(); err != nil {
			return err
		}
		p.done[p.cur] = true
	}
	p.cur = name
	return nil
}

func (p *parser) parseSample(line string) error {
	name, labels, value, err := splitSample(line)
	if err != nil {
		return err
	}
	family, suffix := name, ""
	if p.byName[name] == nil {
		for _, s := range []string{"_bucket", "_sum", "_count"} {
			base, ok := strings.CutSuffix(name, s)
			if f := p.byName[base]; ok && f != nil && (f.Type == metrics.TypeHistogram || f.Type == metrics.TypeSummary && s != "_bucket") {
				family, suffix = base, s
			}
		}
	}
	f := p.byName[family]
	if f == nil {
		return fmt.Errorf("sample of %s without a TYPE line", name)
	}
	if err := p.enter(family); err != nil {
		return err
	}
	if f.Type == metrics.TypeSummary {
		return p.summarySample(suffix, labels, value)
	}
	if f.Type != metrics.TypeHistogram {
		for _, s := range f.Series {
			if metrics.CompareLabels(s.Labels, labels) == 0 {
				return errors.New("series given twice")
			}
		}
		f.Series = append(f.Series, metrics.Series{Labels: labels, Value: value})
		return nil
	}
	if suffix == "" {
		return errors.New("histogram sample without _bucket, _sum or _count")
	}
	le, rest := cutLabel(labels, "le")
	if (le != nil) != (suffix == "_bucket") {
		return errors.New(`the "le" label belongs on _bucket samples, and only there`)
	}
	key := metrics.LabelKey(rest)
	if p.hist == nil {
		p.hist = map[string]*histParts{}
	}
	h := p.hist[key]
	if h == nil {
		h = &histParts{labels: rest}
		p.hist[key] = h
	}
	switch suffix {
	case "_sum":
		return setOnce(&h.sum, value, suffix)
	case "_count":
		if !isCount(value) {
			return fmt.Errorf("_count %v is not a whole number below 2^64", value)
		}
		return setOnce(&h.count, value, suffix)
	default:
		b, err := parseFloat(le.Value)
		if err != nil {
			return fmt.Errorf("le: %w", err)
		}
		if math.IsNaN(b) {
			return errors.New(`le: NaN is not a bound`)
		}
		if h.inf != nil {
			return errors.New(`bucket after le="+Inf"`)
		}
		if !isCount(value) {
			return fmt.Errorf("bucket count %v is not a whole number below 2^64", value)
		}
		if n := len(h.counts); n > 0 && (b <= h.bounds[n-1] || uint64(value) < h.counts[n-1]) {
			return errors.New("buckets are not ascending and cumulative")
		}
		if math.IsInf(b, +1) {
			h.inf = &value
			return nil
		}
		h.bounds = append(h.bounds, b)
		h.counts = append(h.counts, uint64(value))
	}
	return nil
}

// cutLabel takes the label named name out of labels: it returns that label
// (nil when absent) and the others (nil when there are none, as the
// Emitter has it).
func cutLabel(labels []metrics.Label, name string) (*metrics.Label, []metrics.Label) {
	var cut *metrics.Label
	var rest []metrics.Label
	for i := range labels {
		if labels[i].Name == name {
			cut = &labels[i]
		} else {
			rest = append(rest, labels[i])
		}
	}
	return cut, rest
}

// setOnce records the value of a _sum or _count sample, which a series has
// once.
func setOnce(dst **float64, v float64, suffix string) error {
	if *dst != nil {
		return fmt.Errorf("second %s", suffix)
	}
	*dst = &v
	return nil
}

// finishFamily checks and files the histogram series of the current
// family, and sorts its series.
func (p *parser) finishFamily() error {
	f := p.byName[p.cur]
	defer func() { p.hist, p.summ = nil, nil }()
	if f == nil {
		return nil
	}
	if err := p.finishSummaries(f); err != nil {
		return err
	}
	for _, h := range p.hist {
		switch {
		case h.inf == nil:
			return fmt.Errorf("histogram %s{%s}: no le=\"+Inf\" bucket", f.Name, metrics.LabelKey(h.labels))
		case h.sum == nil || h.count == nil:
			return fmt.Errorf("histogram %s{%s}: missing _sum or _count", f.Name, metrics.LabelKey(h.labels))
		case *h.count != *h.inf:
			return fmt.Errorf("histogram %s{%s}: _count %v is not the +Inf bucket %v", f.Name, metrics.LabelKey(h.labels), *h.count, *h.inf)
		case len(h.counts) > 0 && float64(h.counts[len(h.counts)-1]) > *h.inf:
			return fmt.Errorf("histogram %s{%s}: +Inf bucket below the last", f.Name, metrics.LabelKey(h.labels))
		}
		f.Series = append(f.Series, metrics.Series{Labels: h.labels, Histogram: &metrics.Histogram{
			UpperBounds: h.bounds, Counts: h.counts, Count: uint64(*h.count), Sum: *h.sum}})
	}
	slices.SortFunc(f.Series, func(a, b metrics.Series) int { return metrics.CompareLabels(a.Labels, b.Labels) })
	return nil
}

func (p *parser) finish() error {
	if p.cur != "" {
		if err := p.finishFamily(); err != nil {
			return err
		}
	}
	for name := range p.help {
		if p.byName[name] == nil {
			return fmt.Errorf("HELP for %s without a TYPE", name)
		}
	}
	return nil
}
