// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/queue"
)

// reconcileTimeBuckets is the number of finite buckets of the reconcile
// time histogram: controller-runtime's, from 5ms to 60s.
const reconcileTimeBuckets = 40

// reconcileTimeBounds returns the upper bounds of the reconcile time
// buckets, in seconds (controller-runtime's
// controller_runtime_reconcile_time_seconds buckets).
func reconcileTimeBounds() [reconcileTimeBuckets]float64 {
	return [reconcileTimeBuckets]float64{
		0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
		1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
	}
}

// Metrics is a snapshot of a controller's metrics. Each field is named
// after the metric [Controller.CollectMetrics] emits it as (in its
// comment), with the label controller="<Name>" (and name="<Name>" for the
// queue's).
type Metrics struct {
	Name string // the controller label

	ReconcileTotal ReconcileTotal // controller_runtime_reconcile_total{result}

	ReconcileErrorsTotal         uint64 // controller_runtime_reconcile_errors_total: every error, terminal ones included
	TerminalReconcileErrorsTotal uint64 // controller_runtime_terminal_reconcile_errors_total
	ReconcilePanicsTotal         uint64 // controller_runtime_reconcile_panics_total: recovered or not
	ReconcileTimeoutsTotal       uint64 // controller_runtime_reconcile_timeouts_total: reconciles whose Options.ReconcileTimeout passed
	ReconcileDeferredStaleTotal  uint64 // kubeloop_reconcile_deferred_stale_total: requests set aside until the cache held this process's writes

	ReconcileTimeSeconds queue.Histogram // controller_runtime_reconcile_time_seconds

	ActiveWorkers           int // controller_runtime_active_workers: reconciles running now
	MaxConcurrentReconciles int // controller_runtime_max_concurrent_reconciles

	Queue queue.Metrics // workqueue_*{name}: the controller's queue, named after the controller
}

// ReconcileTotal counts finished reconciles by result, the values of the
// label "result" of controller_runtime_reconcile_total.
type ReconcileTotal struct {
	Success      uint64 // result="success": no error, no requeue
	Error        uint64 // result="error" (terminal errors included)
	Requeue      uint64 // result="requeue": RequeueRateLimited
	RequeueAfter uint64 // result="requeue_after": Result.RequeueAfter > 0
}

// metrics is a controller's bookkeeping. Recording a reconcile costs one
// uncontended lock and a binary search over 40 bounds; no allocation.
type metrics struct {
	bounds [reconcileTimeBuckets]float64 // immutable

	active        atomic.Int64
	panics        atomic.Uint64
	timeouts      atomic.Uint64
	deferredStale atomic.Uint64

	mu       sync.Mutex
	total    ReconcileTotal
	errors   uint64
	terminal uint64
	counts   [reconcileTimeBuckets]uint64 // not cumulative: counts[i] holds (bounds[i-1], bounds[i]]
	count    uint64
	sum      float64
}

func newMetrics() *metrics { return &metrics{bounds: reconcileTimeBounds()} }

// outcome is how a reconcile ended, for the counters.
type outcome uint8

const (
	outcomeSuccess outcome = iota
	outcomeError
	outcomeTerminal
	outcomeRequeue
	outcomeRequeueAfter
)

func (m *metrics) record(o outcome, d time.Duration) {
	s := d.Seconds()
	lo, hi := 0, reconcileTimeBuckets // first bound >= s
	for lo < hi {
		mid := (lo + hi) / 2
		if m.bounds[mid] < s {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	switch o {
	case outcomeSuccess:
		m.total.Success++
	case outcomeTerminal:
		m.terminal++
		fallthrough
	case outcomeError:
		m.errors++
		m.total.Error++
	case outcomeRequeue:
		m.total.Requeue++
	case outcomeRequeueAfter:
		m.total.RequeueAfter++
	}
	if lo < reconcileTimeBuckets {
		m.counts[lo]++
	}
	m.count++
	m.sum += s
}

func (m *metrics) snapshot() Metrics {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := Metrics{
		ReconcileTotal:               m.total,
		ReconcileErrorsTotal:         m.errors,
		TerminalReconcileErrorsTotal: m.terminal,
		ReconcilePanicsTotal:         m.panics.Load(),
		ReconcileTimeoutsTotal:       m.timeouts.Load(),
		ReconcileDeferredStaleTotal:  m.deferredStale.Load(),
		ActiveWorkers:                int(m.active.Load()),
	}
	h := &s.ReconcileTimeSeconds
	h.UpperBounds, h.Counts, h.Count, h.Sum = slices.Clone(m.bounds[:]), make([]uint64, reconcileTimeBuckets), m.count, m.sum
	var cum uint64
	for i, n := range m.counts {
		cum += n
		h.Counts[i] = cum
	}
	return s
}
