// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"strings"
	"testing"
)

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
