// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"math"
	"slices"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// Summary is a snapshot of a summary: quantiles computed elsewhere (this
// package does not estimate them), with the count and sum of the
// observations. The Go collector's go_gc_duration_seconds is one.
type Summary struct {
	// Quantiles are strictly ascending by Q, each Q within [0, 1].
	Quantiles []Quantile
	Count     uint64
	Sum       float64
}

// Quantile is one quantile of a [Summary]: Value is the Q-quantile of the
// observations (0.5 for the median).
type Quantile struct {
	Q, Value float64
}

// Summary emits one series of a summary family; labels are name, value
// pairs. s is copied.
func (e *Emitter) Summary(name, help string, s Summary, labels ...string) {
	s.Quantiles = slices.Clone(s.Quantiles)
	e.add(name, help, TypeSummary, Series{Summary: &s}, labels)
}

// CheckSummary reports quantiles outside [0, 1] or not strictly ascending.
func CheckSummary(s *Summary) error {
	for i, q := range s.Quantiles {
		switch {
		case math.IsNaN(q.Q) || q.Q < 0 || q.Q > 1:
			return errs.Errorf("summary quantile %v is not within [0, 1]", q.Q)
		case i > 0 && q.Q <= s.Quantiles[i-1].Q:
			return errs.Errorf("summary quantiles are not strictly ascending: %v after %v", q.Q, s.Quantiles[i-1].Q)
		}
	}
	return nil
}

// appendSummary writes a summary series: one sample per quantile (the
// quantile label last), then name_sum and name_count.
func appendSummary(buf []byte, name string, s Series) []byte {
	q := s.Summary
	if q == nil {
		q = &Summary{}
	}
	for _, x := range q.Quantiles {
		buf = appendSample(buf, name, s.Labels, Label{"quantile", formatFloat(x.Q)}, x.Value)
	}
	buf = appendSample(buf, name+"_sum", s.Labels, Label{}, q.Sum)
	return appendSample(buf, name+"_count", s.Labels, Label{}, float64(q.Count))
}
