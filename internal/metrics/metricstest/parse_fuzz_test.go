// SPDX-License-Identifier: Apache-2.0

package metricstest

import (
	"bytes"
	"math"
	"testing"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// FuzzParse checks that whatever Parse accepts (histograms and summaries
// included) is what a Registry could have written: an Emitter takes every
// series without error, and metrics.WriteText of the families parses back to
// equal families (NaN equal to NaN) and writes the same bytes again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		goldenText(f),
		"# a comment\n\n# HELP a Help with \\\\ and \\n.\n# TYPE a gauge\na{k=\"v \\\"q\\\" \\\\ \\n\"} NaN\na +Inf\n",
		"# TYPE h histogram\nh_bucket{le=\"+Inf\"} 0\nh_sum 0\nh_count 0\n",
		"# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum NaN\nh_count 2\n# TYPE h_bucket gauge\nh_bucket 1\n",
		"# TYPE h histogram\n",
		"# HELP a x\n# HELP a y\n# TYPE a gauge\n",
		"# TYPE a gauge\n# TYPE b gauge\nb 1\na 1\n",
		"# TYPE a gauge\na 1 1700000000\n",
		"# TYPE a gauge\na{k=\"x\",k=\"y\"} 1\n",
		"# TYPE a gauge\na -0\na{b=\"\"} 0x1p-2\n",
		"# TYPE a counter\r\na 1\r\n",
		"# HELP go_gc_duration_seconds A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.\n# TYPE go_gc_duration_seconds summary\ngo_gc_duration_seconds{quantile=\"0\"} 1.2e-05\ngo_gc_duration_seconds{quantile=\"0.5\"} 3e-05\ngo_gc_duration_seconds{quantile=\"1\"} NaN\ngo_gc_duration_seconds_sum 0.001\ngo_gc_duration_seconds_count 40\n",
		"# TYPE s summary\ns{a=\"b\",quantile=\"0.9\"} 1\ns_sum{a=\"b\"} 2\ns_count{a=\"b\"} 1e20\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		fams, err := Parse(bytes.NewReader(in))
		if err != nil {
			return
		}
		emit := metrics.CollectorFunc(func(e *metrics.Emitter) {
			for _, fam := range fams {
				for _, s := range fam.Series {
					var labels []string
					for _, l := range s.Labels {
						labels = append(labels, l.Name, l.Value)
					}
					switch fam.Type {
					case metrics.TypeCounter:
						e.Counter(fam.Name, fam.Help, s.Value, labels...)
					case metrics.TypeGauge:
						e.Gauge(fam.Name, fam.Help, s.Value, labels...)
					case metrics.TypeHistogram:
						e.Histogram(fam.Name, fam.Help, *s.Histogram, labels...)
					case metrics.TypeSummary:
						e.Summary(fam.Name, fam.Help, *s.Summary, labels...)
					}
				}
			}
		})

		if _, err := metrics.NewRegistry(emit).Gather(); err != nil {
			t.Fatalf("Parse(%q) accepts what an Emitter refuses: %v", in, err)
		}
		var out bytes.Buffer
		if err := metrics.WriteText(&out, fams); err != nil {
			t.Fatal(err)
		}
		again, err := Parse(bytes.NewReader(out.Bytes()))
		if err != nil {
			t.Fatalf("Parse(%q) accepts, but not its metrics.WriteText:\n%s\n%v", in, out.Bytes(), err)
		}
		if !sameFamilies(fams, again) {
			t.Fatalf("Parse(%q) =\n%+v\nParse(metrics.WriteText of it) =\n%+v", in, fams, again)
		}
		var out2 bytes.Buffer
		if err := metrics.WriteText(&out2, again); err != nil || out2.String() != out.String() {
			t.Fatalf("WriteText is not stable: %q then %q (%v)", out.Bytes(), out2.Bytes(), err)
		}
	})
}

// sameFamilies compares families value by value, NaN equal to NaN.
func sameFamilies(a, b []metrics.Family) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		fa, fb := a[i], b[i]
		if fa.Name != fb.Name || fa.Help != fb.Help || fa.Type != fb.Type || len(fa.Series) != len(fb.Series) {
			return false
		}
		for j := range fa.Series {
			sa, sb := fa.Series[j], fb.Series[j]
			if metrics.CompareLabels(sa.Labels, sb.Labels) != 0 || !sameFloat(sa.Value, sb.Value) ||
				(sa.Histogram == nil) != (sb.Histogram == nil) || (sa.Summary == nil) != (sb.Summary == nil) {
				return false
			}
			if qa, qb := sa.Summary, sb.Summary; qa != nil {
				if qa.Count != qb.Count || !sameFloat(qa.Sum, qb.Sum) || len(qa.Quantiles) != len(qb.Quantiles) {
					return false
				}
				for k := range qa.Quantiles {
					if !sameFloat(qa.Quantiles[k].Q, qb.Quantiles[k].Q) || !sameFloat(qa.Quantiles[k].Value, qb.Quantiles[k].Value) {
						return false
					}
				}
			}
			if ha, hb := sa.Histogram, sb.Histogram; ha != nil {
				if ha.Count != hb.Count || !sameFloat(ha.Sum, hb.Sum) || len(ha.UpperBounds) != len(hb.UpperBounds) {
					return false
				}
				for k := range ha.UpperBounds {
					if !sameFloat(ha.UpperBounds[k], hb.UpperBounds[k]) || ha.Counts[k] != hb.Counts[k] {
						return false
					}
				}
			}
		}
	}
	return true
}

func sameFloat(a, b float64) bool {
	return a == b && math.Signbit(a) == math.Signbit(b) || math.IsNaN(a) && math.IsNaN(b)
}

// goldenText is what a registry writes with every kind of family,
// escapes in help and label values and infinities (metrics'
// TestWriteTextGolden checks those bytes).
func goldenText(f *testing.F) string {
	reg := metrics.NewRegistry(metrics.CollectorFunc(func(e *metrics.Emitter) {
		e.Gauge("b_gauge", "A gauge.\nSecond line with a \\ backslash.", 1.5, "z", "last", "a", `quote " and \ and`+"\nnewline")
		e.Gauge("b_gauge", "A gauge.\nSecond line with a \\ backslash.", math.Inf(-1), "a", "0", "z", "")
		e.Counter("a_total", "", 3)
		e.Histogram("c_seconds", "Latency.", metrics.Histogram{UpperBounds: []float64{0.1, 1}, Counts: []uint64{1, 2}, Count: 3, Sum: 12.25}, "name", "q")
	}))
	var buf bytes.Buffer
	if err := reg.Write(&buf); err != nil {
		f.Fatal(err)
	}
	return buf.String()
}
