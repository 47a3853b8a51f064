// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"log/slog"
	"sync"
	"time"
)

// FreshWaitBounds are the upper bounds, in seconds, of the buckets of
// [FreshStats].WaitSeconds.
var FreshWaitBounds = []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Histogram is a histogram of observations: cumulative counts per upper
// bound, their number and sum (the type queue's metrics use, so that a
// manager emits it as it is).
type Histogram = struct {
	UpperBounds []float64
	Counts      []uint64
	Count       uint64
	Sum         float64
}

// FreshStats count an informer's waits for this process's own writes
// (see "Reading your own writes" in the package doc).
type FreshStats struct {
	// Waited counts the reads (and controllers' checks) that waited and
	// then saw the write; WaitSeconds is the histogram of their waits.
	Waited      uint64
	WaitSeconds Histogram
	// GaveUp counts the waits that passed Options.MaxFreshWait: the read
	// answered from the cache as it was.
	GaveUp uint64
	// Opaque counts the reads that could not wait because the server's
	// resourceVersions are not decimal integers.
	Opaque uint64
}

// freshStats are an informer's FreshStats as they grow, and whether the
// two ways a wait fails have been logged (once each per informer).
type freshStats struct {
	mu                   sync.Mutex
	s                    FreshStats
	counts               []uint64 // per bucket, not cumulative
	loggedGaveUp, logged bool     // whether gaveUp and opaqueVersion logged
}

func (f *freshStats) waited(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.s.Waited++
	f.observe(d)
}

func (f *freshStats) gaveUp(d time.Duration, log *slog.Logger) {
	f.countOnce(&f.s.GaveUp, &f.loggedGaveUp, log,
		"a read waited for this process's own write past the bound and answered from the cache as it was; later ones are counted, not logged", "waited", d)
}

func (f *freshStats) opaqueVersion(log *slog.Logger) {
	f.countOnce(&f.s.Opaque, &f.logged, log,
		"the server's resourceVersions are not decimal integers: reads cannot wait for this process's own writes and answer from the cache as it is; later ones are counted, not logged")
}

// countOnce adds one to *n and logs msg the first time (*logged unset).
func (f *freshStats) countOnce(n *uint64, logged *bool, log *slog.Logger, msg string, args ...any) {
	f.mu.Lock()
	*n++
	first := !*logged
	*logged = true
	f.mu.Unlock()
	if first {
		log.Warn(msg, args...)
	}
}

// observe adds d to the histogram. Call with f.mu held.
func (f *freshStats) observe(d time.Duration) {
	if f.counts == nil {
		f.counts = make([]uint64, len(FreshWaitBounds)+1)
	}
	s := d.Seconds()
	n := 0
	for n < len(FreshWaitBounds) && s > FreshWaitBounds[n] {
		n++
	}
	f.counts[n]++
	f.s.WaitSeconds.Count++
	f.s.WaitSeconds.Sum += s
}

// snapshot returns the stats, with the histogram's cumulative counts.
func (f *freshStats) snapshot() FreshStats {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.s
	s.WaitSeconds.UpperBounds = FreshWaitBounds
	s.WaitSeconds.Counts = make([]uint64, len(FreshWaitBounds))
	var sum uint64
	for n := range FreshWaitBounds {
		if f.counts != nil {
			sum += f.counts[n]
		}
		s.WaitSeconds.Counts[n] = sum
	}
	return s
}
