// SPDX-License-Identifier: Apache-2.0

package controller

import "github.com/kubeloop/kubeloop/queue"

// This file names a controller's metrics and emits them, as
// controller-runtime names and documents them, so that dashboards made
// for it work: the controller_runtime_* families of the reconciles and the
// workqueue_* families of its queue.

// CollectMetrics emits the controller's metrics, its
// controller_runtime_* series labelled controller="<Name>" and its
// queue's workqueue_* series labelled controller and name="<Name>": a
// manager calls it at every scrape of its metrics endpoint. The cost is
// two snapshots (two locks) and the series themselves.
//
// e's type is manager.MetricsEmitter (labels are name, value pairs),
// spelled out so that this package does not import manager: the method
// makes a *Controller a manager.MetricsCollector. Every controller
// writes the same families (with its own controller label), so e must
// write each family's HELP and TYPE once for all of them; a manager's
// metrics endpoint does.
func (c *Controller) CollectMetrics(e interface {
	Counter(name, help string, value float64, labels ...string)
	Gauge(name, help string, value float64, labels ...string)
	Histogram(name, help string, h queue.Histogram, labels ...string)
}) {
	if !c.made() {
		return
	}
	m := c.Metrics()
	emitQueue(e, m.Name, m.Queue)
	l := []string{"controller", m.Name}
	for _, r := range []struct {
		result string
		n      uint64
	}{{"success", m.ReconcileTotal.Success}, {"error", m.ReconcileTotal.Error}, {"requeue", m.ReconcileTotal.Requeue}, {"requeue_after", m.ReconcileTotal.RequeueAfter}} {
		e.Counter("controller_runtime_reconcile_total", "Total number of reconciliations per controller",
			float64(r.n), "controller", m.Name, "result", r.result)
	}
	e.Counter("controller_runtime_reconcile_errors_total", "Total number of reconciliation errors per controller", float64(m.ReconcileErrorsTotal), l...)
	e.Counter("controller_runtime_terminal_reconcile_errors_total", "Total number of terminal reconciliation errors per controller", float64(m.TerminalReconcileErrorsTotal), l...)
	e.Counter("controller_runtime_reconcile_panics_total", "Total number of reconciliation panics per controller", float64(m.ReconcilePanicsTotal), l...)
	e.Counter("controller_runtime_reconcile_timeouts_total", "Total number of reconciliation timeouts per controller", float64(m.ReconcileTimeoutsTotal), l...)
	e.Counter("kubeloop_reconcile_deferred_stale_total", "Total number of requests set aside before their reconcile until the cache held this process's own writes to the object, per controller", float64(m.ReconcileDeferredStaleTotal), l...)
	e.Histogram("controller_runtime_reconcile_time_seconds", "Length of time per reconciliation per controller", m.ReconcileTimeSeconds, l...)
	e.Gauge("controller_runtime_active_workers", "Number of currently used workers per controller", float64(m.ActiveWorkers), l...)
	e.Gauge("controller_runtime_max_concurrent_reconciles", "Maximum number of concurrent reconciles per controller", float64(m.MaxConcurrentReconciles), l...)
}

// emitQueue emits a queue's workqueue_* series, labelled controller and
// name as controller-runtime labels them; name is the queue's, or the
// controller's when the queue has none.
func emitQueue(e interface {
	Counter(name, help string, value float64, labels ...string)
	Gauge(name, help string, value float64, labels ...string)
	Histogram(name, help string, h queue.Histogram, labels ...string)
}, controller string, q queue.Metrics) {
	name := q.Name
	if name == "" {
		name = controller
	}
	l := []string{"controller", controller, "name", name}
	e.Gauge("workqueue_depth", "Current depth of workqueue", float64(q.Depth), l...)
	e.Counter("workqueue_adds_total", "Total number of adds handled by workqueue", float64(q.AddsTotal), l...)
	e.Counter("workqueue_retries_total", "Total number of retries handled by workqueue", float64(q.RetriesTotal), l...)
	e.Histogram("workqueue_queue_duration_seconds", "How long in seconds an item stays in workqueue before being requested",
		q.QueueDurationSeconds, l...)
	e.Histogram("workqueue_work_duration_seconds", "How long in seconds processing an item from workqueue takes.",
		q.WorkDurationSeconds, l...)
	e.Gauge("workqueue_unfinished_work_seconds", "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
		q.UnfinishedWorkSeconds, l...)
	e.Gauge("workqueue_longest_running_processor_seconds", "How many seconds has the longest running processor for workqueue been running.",
		q.LongestRunningProcessorSeconds, l...)
}
