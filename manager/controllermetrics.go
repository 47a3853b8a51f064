// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"reflect"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// This file reads a controller's reconcile metrics without importing
// package controller, which this package must not import (a controller is
// a plain runnable to the manager).
//
// A controller's Metrics method returns a controller.Metrics, a struct
// whose fields are named after the metrics they feed (ReconcileTotal,
// ReconcileErrorsTotal, ReconcileTimeSeconds, ...). The manager cannot
// name that type, so it reads the struct by its documented field names
// with reflection. The method is looked up by a constant name, which keeps
// the linker's dead code elimination working (a variable name would make
// it keep every exported method of every type). A field that is missing
// or of another shape is read as zero.
//
// A controller that would rather not be read this way can write its
// metrics itself: the manager prefers a Collect(*metrics.Emitter) method
// (see collect).

// reconcileMetrics is the part of controller.Metrics the manager exports
// as controller_runtime_*.
type reconcileMetrics struct {
	success, error, requeue, requeueAfter uint64
	errors, terminal, panics              uint64
	time                                  metrics.Histogram
	active, max                           int64
}

// reconcileMetricsOf calls r.Metrics() and reads its result, reporting
// false when r has no such method returning a struct.
func reconcileMetricsOf(r any) (reconcileMetrics, bool) {
	method := reflect.ValueOf(r).MethodByName("Metrics")
	if !method.IsValid() {
		return reconcileMetrics{}, false
	}
	t := method.Type()
	if t.NumIn() != 0 || t.NumOut() != 1 || t.Out(0).Kind() != reflect.Struct {
		return reconcileMetrics{}, false
	}
	v := method.Call(nil)[0]
	total := v.FieldByName("ReconcileTotal")
	s := reconcileMetrics{
		success:      uintField(total, "Success"),
		error:        uintField(total, "Error"),
		requeue:      uintField(total, "Requeue"),
		requeueAfter: uintField(total, "RequeueAfter"),
		errors:       uintField(v, "ReconcileErrorsTotal"),
		terminal:     uintField(v, "TerminalReconcileErrorsTotal"),
		panics:       uintField(v, "ReconcilePanicsTotal"),
		active:       intField(v, "ActiveWorkers"),
		max:          intField(v, "MaxConcurrentReconciles"),
	}
	h := v.FieldByName("ReconcileTimeSeconds")
	if h.IsValid() && h.Kind() == reflect.Struct {
		bounds, counts := h.FieldByName("UpperBounds"), h.FieldByName("Counts")
		if isList(bounds, reflect.Float64) && isList(counts, reflect.Uint64) && bounds.Len() == counts.Len() {
			for i := range bounds.Len() {
				s.time.UpperBounds = append(s.time.UpperBounds, bounds.Index(i).Float())
				s.time.Counts = append(s.time.Counts, counts.Index(i).Uint())
			}
		}
		s.time.Count = uintField(h, "Count")
		if sum := h.FieldByName("Sum"); sum.IsValid() && sum.Kind() == reflect.Float64 {
			s.time.Sum = sum.Float()
		}
	}
	return s, true
}

// uintField reads an unsigned integer field of struct v, or 0.
func uintField(v reflect.Value, name string) uint64 {
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return 0
	}
	switch f := v.FieldByName(name); {
	case !f.IsValid():
		return 0
	case f.CanUint():
		return f.Uint()
	case f.CanInt() && f.Int() >= 0:
		return uint64(f.Int())
	}
	return 0
}

// intField reads an integer field of struct v, or 0.
func intField(v reflect.Value, name string) int64 {
	if !v.IsValid() || v.Kind() != reflect.Struct {
		return 0
	}
	switch f := v.FieldByName(name); {
	case !f.IsValid():
		return 0
	case f.CanInt():
		return f.Int()
	case f.CanUint():
		return int64(f.Uint())
	}
	return 0
}

// isList reports whether v is an array or slice of elem.
func isList(v reflect.Value, elem reflect.Kind) bool {
	return v.IsValid() && (v.Kind() == reflect.Array || v.Kind() == reflect.Slice) && v.Type().Elem().Kind() == elem
}
