// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"math"
	"testing"
	"testing/synctest"
	"time"
)

func TestHistogram(t *testing.T) {
	tests := []struct {
		d          time.Duration
		wantBucket int // index of the first bucket that counts it; HistogramBuckets for +Inf only
	}{
		{0, 0},
		{10 * time.Nanosecond, 0},
		{11 * time.Nanosecond, 1},
		{time.Microsecond, 2},
		{1500 * time.Microsecond, 6},
		{time.Second, 8},
		{1000 * time.Second, 11},
		{1001 * time.Second, HistogramBuckets},
	}
	for _, tt := range tests {
		var h histogram
		h.observe(int64(tt.d))
		s := h.snapshot()
		for i := range HistogramBuckets {
			want := uint64(0)
			if i >= tt.wantBucket {
				want = 1
			}
			if s.Counts[i] != want {
				t.Errorf("observe(%v): Counts[%d] (le %g) = %d, want %d", tt.d, i, s.UpperBounds[i], s.Counts[i], want)
			}
		}
		if s.Count != 1 || s.Sum != tt.d.Seconds() {
			t.Errorf("observe(%v): Count, Sum = %d, %g, want 1, %g", tt.d, s.Count, s.Sum, tt.d.Seconds())
		}
	}
	var h histogram
	if got := h.snapshot().UpperBounds; got[0] != 1e-8 || got[HistogramBuckets-1] != 1e3 {
		t.Errorf("UpperBounds = %v, want 1e-8 ... 1e3", got)
	}
}

func TestMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{Name: "pods"})
		defer q.ShutDown()
		q.Add("a")
		q.Add("a") // deduplicated: not an add
		q.Add("b")
		time.Sleep(2 * time.Second)
		a, _ := q.Get()
		time.Sleep(time.Second)
		b, _ := q.Get()
		time.Sleep(time.Second)

		m := q.Metrics()
		if m.Name != "pods" || m.Depth != 0 || m.AddsTotal != 2 || m.RetriesTotal != 0 {
			t.Errorf("Metrics() Name, Depth, AddsTotal, RetriesTotal = %q, %d, %d, %d, want %q, 0, 2, 0",
				m.Name, m.Depth, m.AddsTotal, m.RetriesTotal, "pods")
		}
		// a has run 2s, b 1s.
		if m.UnfinishedWorkSeconds != 3 || m.LongestRunningProcessorSeconds != 2 {
			t.Errorf("Metrics() UnfinishedWorkSeconds, LongestRunningProcessorSeconds = %g, %g, want 3, 2",
				m.UnfinishedWorkSeconds, m.LongestRunningProcessorSeconds)
		}
		// Waited 2s and 3s: both in the 10s bucket, not in the 1s one.
		if h := m.QueueDurationSeconds; h.Count != 2 || h.Sum != 5 || h.Counts[8] != 0 || h.Counts[9] != 2 {
			t.Errorf("QueueDurationSeconds = %+v, want Count 2, Sum 5, Counts[8] (le 1) 0, Counts[9] (le 10) 2", h)
		}

		q.Done(a)
		q.Add(b) // while processing: an add, queued at Done
		q.AddRateLimited("c")
		time.Sleep(time.Second)
		q.Done(b)
		m = q.Metrics()
		if m.Depth != 2 || m.AddsTotal != 4 || m.RetriesTotal != 1 {
			t.Errorf("Metrics() Depth, AddsTotal, RetriesTotal = %d, %d, %d, want 2, 4, 1", m.Depth, m.AddsTotal, m.RetriesTotal)
		}
		if h := m.WorkDurationSeconds; h.Count != 2 || h.Sum != 4 {
			t.Errorf("WorkDurationSeconds Count, Sum = %d, %g, want 2, 4 (a and b ran 2s each)", h.Count, h.Sum)
		}
		if m.UnfinishedWorkSeconds != 0 || m.LongestRunningProcessorSeconds != 0 {
			t.Errorf("Metrics() with nothing processing: UnfinishedWorkSeconds, LongestRunningProcessorSeconds = %g, %g, want 0, 0",
				m.UnfinishedWorkSeconds, m.LongestRunningProcessorSeconds)
		}
		// c entered the queue 5ms after its AddRateLimited (the backoff), b at
		// its Done, a second later.
		time.Sleep(500 * time.Millisecond)
		var got []string
		for range 2 {
			item, _ := q.Get()
			q.Done(item)
			got = append(got, item)
		}
		h := q.Metrics().QueueDurationSeconds
		want := 2 + 3 + 1.495 + 0.5
		if got[0] != "c" || got[1] != "b" || h.Count != 4 || math.Abs(h.Sum-want) > 1e-9 {
			t.Errorf("Get() x2 = %q, QueueDurationSeconds Count, Sum = %d, %g, want [c b], 4, %g", got, h.Count, h.Sum, want)
		}
	})
}

func TestDisableMetrics(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{DisableMetrics: true})
		q.Add("a")
		time.Sleep(time.Second)
		item, _ := q.Get()
		time.Sleep(time.Second)
		m := q.Metrics()
		if m.AddsTotal != 1 || m.QueueDurationSeconds.Count != 0 || m.UnfinishedWorkSeconds != 0 {
			t.Errorf("Metrics() with DisableMetrics: AddsTotal, QueueDurationSeconds.Count, UnfinishedWorkSeconds = %d, %d, %g, want 1, 0, 0",
				m.AddsTotal, m.QueueDurationSeconds.Count, m.UnfinishedWorkSeconds)
		}
		q.Add(item)
		q.Done(item)
		if got := q.Len(); got != 1 {
			t.Errorf("Len() after a requeue with DisableMetrics = %d, want 1", got)
		}
		if m := q.Metrics(); m.WorkDurationSeconds.Count != 0 {
			t.Errorf("WorkDurationSeconds.Count with DisableMetrics = %d, want 0", m.WorkDurationSeconds.Count)
		}
	})
}
