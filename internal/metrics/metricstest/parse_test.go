// SPDX-License-Identifier: Apache-2.0

package metricstest

import (
	"strings"
	"testing"
)

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"no type", "a 1\n", "without a TYPE"},
		{"bad name", "# TYPE 1a gauge\n", "invalid metric name"},
		{"untyped", "# TYPE a untyped\n", "unsupported type"},
		{"summary quantile out of range", "# TYPE s summary\ns{quantile=\"1.5\"} 1\n", "not within [0, 1]"},
		{"summary quantiles descending", "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns{quantile=\"0.25\"} 1\n", "not strictly ascending"},
		{"summary without count", "# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 1\n", "missing _sum or _count"},
		{"quantile on sum", "# TYPE s summary\ns_sum{quantile=\"0.5\"} 1\n", `"quantile" label`},
		{"bare summary sample", "# TYPE s summary\ns 1\n", `"quantile" label`},
		{"summary bucket", "# TYPE s summary\ns_bucket{le=\"1\"} 1\n", "without a TYPE"},
		{"type twice", "# TYPE a gauge\n# TYPE a gauge\n", "second TYPE"},
		{"help twice", "# HELP a x\n# HELP a y\n# TYPE a gauge\n", "second HELP"},
		{"help without type", "# HELP a x\n", "HELP for a without a TYPE"},
		{"bad help escape", "# HELP a x\\y\n# TYPE a gauge\n", `unknown escape \y`},
		{"not contiguous", "# TYPE a gauge\n# TYPE b gauge\nb 1\na 1\n", "not contiguous"},
		{"series twice", "# TYPE a gauge\na{k=\"x\"} 1\na{k=\"x\"} 2\n", "series given twice"},
		{"bad value", "# TYPE a gauge\na one\n", "invalid value"},
		{"timestamp", "# TYPE a gauge\na 1 1700000000\n", "timestamps"},
		{"unquoted label", "# TYPE a gauge\na{k=x} 1\n", "not quoted"},
		{"bad label escape", "# TYPE a gauge\na{k=\"\\t\"} 1\n", `unknown escape \t`},
		{"unterminated labels", "# TYPE a gauge\na{k=\"x\" 1\n", "not separated"},
		{"label twice", "# TYPE a gauge\na{k=\"x\",k=\"y\"} 1\n", "given twice"},
		{"no space", "# TYPE a gauge\na{k=\"x\"}1\n", "no space"},
		{"bad label name", "# TYPE a gauge\na{__k=\"x\"} 1\n", "invalid label name"},
		{"no +Inf", "# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_sum 1\nh_count 1\n", `no le="+Inf"`},
		{"count not +Inf", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 1\n", "_count 1 is not the +Inf bucket 2"},
		{"not cumulative", "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"2\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 1\nh_count 2\n", "not ascending and cumulative"},
		{"no sum", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 2\n", "missing _sum"},
		{"le on count", "# TYPE h histogram\nh_count{le=\"1\"} 2\n", `"le" label`},
		{"bare histogram sample", "# TYPE h histogram\nh 2\n", "without _bucket"},
		{"count beyond uint64", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1e20\nh_sum 0\nh_count 1e20\n", "bucket count 1e+20 is not a whole number below 2^64"},
		{"fractional count", "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 1\nh_sum 0\nh_count 1.5\n", "_count 1.5 is not a whole number"},
		{"summary count beyond uint64", "# TYPE s summary\ns_sum 0\ns_count 1e20\n", "summary count 1e+20 is not a whole number below 2^64"},
		{"NaN bound", "# TYPE h histogram\nh_bucket{le=\"NaN\"} 1\n", "NaN is not a bound"},
		{"carriage return", "# TYPE a gauge\r\na 1\r\n", `unsupported type "gauge\r"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse(%q) = %v, want an error containing %q", tt.in, err, tt.want)
			}
		})
	}
}

func TestParseAccepts(t *testing.T) {
	in := "# a comment\n\n# HELP a Help with \\\\ and \\n.\n# TYPE a gauge\na{k=\"v \\\"q\\\" \\\\ \\n\"} NaN\na +Inf\n"
	fams, err := Parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(fams) != 1 || fams[0].Help != "Help with \\ and \n." || len(fams[0].Series) != 2 {
		t.Fatalf("Parse = %+v", fams)
	}
	if got := fams[0].Series[1].Labels[0].Value; got != "v \"q\" \\ \n" {
		t.Errorf("label value = %q, want %q", got, "v \"q\" \\ \n")
	}
}
