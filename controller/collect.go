// SPDX-License-Identifier: Apache-2.0

package controller

import promtext "github.com/kubeloop/kubeloop/internal/metrics"

// Collect writes the controller's metrics, its controller_runtime_* and
// its queue's workqueue_* series, labelled with its name: a manager calls
// it at every scrape of its metrics endpoint. The cost is two snapshots
// (two locks) and the series themselves.
func (c *Controller) Collect(e *promtext.Emitter) {
	m := c.Metrics()
	promtext.Workqueue(e, c.name, c.QueueMetrics())
	promtext.Reconcile(e, c.name, promtext.Reconciles{
		Success:       m.ReconcileTotal.Success,
		Error:         m.ReconcileTotal.Error,
		Requeue:       m.ReconcileTotal.Requeue,
		RequeueAfter:  m.ReconcileTotal.RequeueAfter,
		Errors:        m.ReconcileErrorsTotal,
		Terminal:      m.TerminalReconcileErrorsTotal,
		Panics:        m.ReconcilePanicsTotal,
		Time:          promtext.Histogram{UpperBounds: m.ReconcileTimeSeconds.UpperBounds[:], Counts: m.ReconcileTimeSeconds.Counts[:], Count: m.ReconcileTimeSeconds.Count, Sum: m.ReconcileTimeSeconds.Sum},
		ActiveWorkers: m.ActiveWorkers,
		MaxWorkers:    m.MaxConcurrentReconciles,
	})
}
