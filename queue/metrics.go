// SPDX-License-Identifier: Apache-2.0

package queue

// HistogramBuckets is the number of finite buckets of the queue's
// histograms. Their upper bounds are 1e-8 s ×10 each: 10ns, 100ns, ..., 100s, 1000s, the
// buckets controller-runtime uses for its workqueue histograms (client-go's
// stop at 10s, too short for a queue holding an initial list).
const HistogramBuckets = 12

// Metrics is a snapshot of a queue's metrics. Each field is named after the
// metric the manager exports it as (given in its comment, with the label
// name="<Name>").
type Metrics struct {
	Name string // the name label: Options.Name

	Depth        int    // workqueue_depth: items queued now (Len)
	AddsTotal    uint64 // workqueue_adds_total: adds that queued an item, not counting adds of an item already queued
	RetriesTotal uint64 // workqueue_retries_total: rate-limited adds (AddRateLimited or AddOptions.RateLimited)

	QueueDurationSeconds Histogram // workqueue_queue_duration_seconds: from entering the queue to Get
	WorkDurationSeconds  Histogram // workqueue_work_duration_seconds: from Get to Done

	UnfinishedWorkSeconds          float64 // workqueue_unfinished_work_seconds: sum over items being processed of the time since Get
	LongestRunningProcessorSeconds float64 // workqueue_longest_running_processor_seconds: the longest of those times
}

// Histogram is a snapshot of a Prometheus-style histogram of durations in
// seconds, the one histogram type of the module (a queue's durations here,
// a controller's reconcile times, the metrics endpoint's families):
//
//   - UpperBounds are the inclusive upper bounds of the finite buckets,
//     ascending.
//   - Counts[i] is the number of observations <= UpperBounds[i]
//     (cumulative); it has one entry per bound.
//   - Count is the number of observations (the +Inf bucket).
//   - Sum is the sum of the observations in seconds.
//
// It is an alias of a struct type literal, so that the package that
// writes metrics (below this one, importing nothing of it) takes it as it
// is, under a name of its own.
type Histogram = struct {
	UpperBounds []float64
	Counts      []uint64
	Count       uint64
	Sum         float64
}

// metrics is the queue's bookkeeping, guarded by Queue.mu. The counters cost
// an increment; histograms and the processing list are kept only when
// Queue.metricsOn.
type metrics struct {
	adds    uint64
	retries uint64

	queueDuration histogram
	workDuration  histogram

	// head and tail of the processing list: nodes handed out by Get and not
	// yet Done, linked through node.prev/next, oldest Get first; -1 if empty.
	head, tail int32
}

// histogram counts observations per bucket (not cumulative: counts[i] holds
// those in (bound[i-1], bound[i]]) and in total. Observing is O(buckets)
// with no allocation and no floating point but the sum.
type histogram struct {
	counts [HistogramBuckets]uint64
	count  uint64
	sum    float64 // seconds
}

func (h *histogram) observe(ns int64) {
	h.count++
	h.sum += float64(ns) / 1e9
	bound := int64(10) // 1e-8 s
	for i := range HistogramBuckets {
		if ns <= bound {
			h.counts[i]++
			return
		}
		bound *= 10
	}
}

func (h *histogram) snapshot() Histogram {
	s := Histogram{UpperBounds: make([]float64, HistogramBuckets), Counts: make([]uint64, HistogramBuckets), Count: h.count, Sum: h.sum}
	bound, cum := 1e-8, uint64(0)
	for i := range HistogramBuckets {
		cum += h.counts[i]
		s.Counts[i] = cum
		s.UpperBounds[i] = bound
		bound *= 10
	}
	return s
}

// startLocked records that Get handed out node i at now.
func (q *Queue[K]) startLocked(i int32, now int64) {
	n := &q.nodes[i]
	q.m.queueDuration.observe(now - n.at)
	n.at = now
	n.prev, n.next = q.m.tail, -1
	if q.m.tail >= 0 {
		q.nodes[q.m.tail].next = i
	} else {
		q.m.head = i
	}
	q.m.tail = i
}

// finishLocked records that node i was passed to Done at now.
func (q *Queue[K]) finishLocked(i int32, now int64) {
	n := &q.nodes[i]
	q.m.workDuration.observe(now - n.at)
	if n.prev >= 0 {
		q.nodes[n.prev].next = n.next
	} else {
		q.m.head = n.next
	}
	if n.next >= 0 {
		q.nodes[n.next].prev = n.prev
	} else {
		q.m.tail = n.prev
	}
	n.prev, n.next = -1, -1
}

// Metrics returns a snapshot of the queue's metrics, a copy the caller owns.
// It is O(p) for p items being processed and allocates only the
// histograms' buckets.
func (q *Queue[K]) Metrics() Metrics {
	if !q.made() {
		return Metrics{}
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	s := Metrics{
		Name:                 q.name,
		Depth:                q.depth,
		AddsTotal:            q.m.adds,
		RetriesTotal:         q.m.retries,
		QueueDurationSeconds: q.m.queueDuration.snapshot(),
		WorkDurationSeconds:  q.m.workDuration.snapshot(),
	}
	if q.m.head < 0 {
		return s
	}
	now := q.now()
	var sum int64
	for i := q.m.head; i >= 0; i = q.nodes[i].next {
		sum += now - q.nodes[i].at
	}
	s.UnfinishedWorkSeconds = float64(sum) / 1e9
	s.LongestRunningProcessorSeconds = float64(now-q.nodes[q.m.head].at) / 1e9
	return s
}
