// SPDX-License-Identifier: Apache-2.0

package metricstest

import (
	"fmt"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// This file files the samples of summary families.

// summParts is a summary series of the family being parsed.
type summParts struct {
	labels     []metrics.Label
	quantiles  []metrics.Quantile
	sum, count *float64
}

// summarySample files one sample of the current summary family: a
// quantile (suffix ""), its _sum or its _count.
func (p *parser) summarySample(suffix string, labels []metrics.Label, value float64) error {
	quantile, rest := cutLabel(labels, "quantile")
	if (quantile != nil) != (suffix == "") {
		return fmt.Errorf(`the "quantile" label belongs on the summary's own samples, and only there`)
	}
	key := metrics.LabelKey(rest)
	if p.summ == nil {
		p.summ = map[string]*summParts{}
	}
	s := p.summ[key]
	if s == nil {
		s = &summParts{labels: rest}
		p.summ[key] = s
	}
	switch suffix {
	case "_sum":
		return setOnce(&s.sum, value, suffix)
	case "_count":
		if !isCount(value) {
			return fmt.Errorf("summary count %v is not a whole number below 2^64", value)
		}
		return setOnce(&s.count, value, suffix)
	default:
		q, err := parseFloat(quantile.Value)
		if err != nil {
			return fmt.Errorf("quantile: %w", err)
		}
		s.quantiles = append(s.quantiles, metrics.Quantile{Q: q, Value: value})
		if err := metrics.CheckSummary(&metrics.Summary{Quantiles: s.quantiles}); err != nil {
			return err
		}
	}
	return nil
}

// finishSummaries checks and files the summary series of f.
func (p *parser) finishSummaries(f *metrics.Family) error {
	for _, s := range p.summ {
		if s.sum == nil || s.count == nil {
			return fmt.Errorf("summary %s{%s}: missing _sum or _count", f.Name, metrics.LabelKey(s.labels))
		}
		f.Series = append(f.Series, metrics.Series{Labels: s.labels, Summary: &metrics.Summary{Quantiles: s.quantiles, Count: uint64(*s.count), Sum: *s.sum}})
	}
	return nil
}
