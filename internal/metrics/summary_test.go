// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func TestSummaryWriteAndParse(t *testing.T) {
	s := Summary{Quantiles: []Quantile{{0, 0.001}, {0.25, 0.002}, {0.5, 0.003}, {1, 0.01}}, Count: 7, Sum: 0.05}
	reg := NewRegistry(CollectorFunc(func(e *Emitter) {
		e.Summary("gc_seconds", "Pauses.", s)
		e.Summary("rpc_seconds", "RPCs.", Summary{Count: 0}, "op", "get")
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
	fams, err := Parse(strings.NewReader(buf.String()))
	if err != nil {
		t.Fatal(err)
	}
	gathered, _ := reg.Gather()
	if !reflect.DeepEqual(fams, gathered) {
		t.Errorf("Parse = %+v, want what Gather returned, %+v", fams, gathered)
	}
}

func TestSummaryRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		emit func(e *Emitter)
		want string
	}{
		{"quantile label", func(e *Emitter) { e.Summary("s", "", Summary{}, "quantile", "x") }, `label "quantile" is reserved`},
		{"quantile above 1", func(e *Emitter) { e.Summary("s", "", Summary{Quantiles: []Quantile{{2, 1}}}) }, "not within [0, 1]"},
		{"quantiles unsorted", func(e *Emitter) { e.Summary("s", "", Summary{Quantiles: []Quantile{{0.5, 1}, {0.5, 2}}}) }, "not strictly ascending"},
		{"two types", func(e *Emitter) { e.Summary("s", "", Summary{}); e.Gauge("s", "", 1, "a", "b") }, "emitted as summary and as gauge"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewRegistry(CollectorFunc(tc.emit)).Gather()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Gather = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}
