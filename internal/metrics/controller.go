// SPDX-License-Identifier: Apache-2.0

package metrics

import "github.com/kubeloop/kubeloop/queue"

// The controller metrics, named and documented as controller-runtime names
// them, so that dashboards made for it work: a controller writes them
// (package controller), the manager exposes them (package manager), and
// neither needs to know the other.

// Workqueue emits a queue's workqueue_* series, labelled controller and
// name as controller-runtime labels them; name is the queue's, or the
// controller's when the queue has none.
func Workqueue(e *Emitter, controller string, q queue.Metrics) {
	name := q.Name
	if name == "" {
		name = controller
	}
	l := []Label{{Name: "controller", Value: controller}, {Name: "name", Value: name}}
	e.Gauge("workqueue_depth", "Current depth of workqueue", float64(q.Depth), l...)
	e.Counter("workqueue_adds_total", "Total number of adds handled by workqueue", float64(q.AddsTotal), l...)
	e.Counter("workqueue_retries_total", "Total number of retries handled by workqueue", float64(q.RetriesTotal), l...)
	e.Histogram("workqueue_queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested",
		queueHistogram(q.QueueDurationSeconds), l...)
	e.Histogram("workqueue_work_duration_seconds", "How long in seconds processing an item from workqueue takes.",
		queueHistogram(q.WorkDurationSeconds), l...)
	e.Gauge("workqueue_unfinished_work_seconds", "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
		q.UnfinishedWorkSeconds, l...)
	e.Gauge("workqueue_longest_running_processor_seconds", "How many seconds has the longest running processor for workqueue been running.",
		q.LongestRunningProcessorSeconds, l...)
}

func queueHistogram(h queue.Histogram) Histogram {
	return Histogram{UpperBounds: h.UpperBounds[:], Counts: h.Counts[:], Count: h.Count, Sum: h.Sum}
}

// Reconciles are a controller's reconcile counts at one moment.
type Reconciles struct {
	// Success, Error, Requeue and RequeueAfter count reconciles by result.
	Success, Error, Requeue, RequeueAfter uint64
	// Errors counts reconcile errors; Terminal those that were terminal;
	// Panics the reconciles that panicked.
	Errors, Terminal, Panics uint64
	// Time is the histogram of reconcile durations in seconds.
	Time Histogram
	// ActiveWorkers are reconciling now, of at most MaxWorkers.
	ActiveWorkers, MaxWorkers int
}

// Reconcile emits a controller's controller_runtime_* series.
func Reconcile(e *Emitter, controller string, r Reconciles) {
	l := Label{Name: "controller", Value: controller}
	for _, res := range []struct {
		result string
		n      uint64
	}{{"success", r.Success}, {"error", r.Error}, {"requeue", r.Requeue}, {"requeue_after", r.RequeueAfter}} {
		e.Counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller",
			float64(res.n), l, Label{Name: "result", Value: res.result})
	}
	e.Counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller", float64(r.Errors), l)
	e.Counter("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller", float64(r.Terminal), l)
	e.Counter("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller", float64(r.Panics), l)
	e.Histogram("controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller", r.Time, l)
	e.Gauge("controller_runtime_active_workers", "Number of currently used workers per controller", float64(r.ActiveWorkers), l)
	e.Gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller", float64(r.MaxWorkers), l)
}
