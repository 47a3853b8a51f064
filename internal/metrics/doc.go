// SPDX-License-Identifier: Apache-2.0

// Package metrics writes metrics in the Prometheus text exposition format
// (version 0.0.4), with the standard library alone: counters, gauges and
// histograms with labels, collected from snapshots at scrape time.
//
// It guarantees:
//
//   - Valid output: every line is a "# HELP", a "# TYPE" or a sample line
//     of the format. Metric and label names are checked at each scrape;
//     label values are escaped (backslash, double quote, newline), and so is
//     help text (backslash, newline).
//   - Stable order: families sorted by name, series sorted by their labels
//     (each series' labels sorted by name), histogram buckets by bound, so
//     two scrapes of the same state are byte-identical.
//   - Nothing global: a [Registry] is a value its owner makes and passes on;
//     there is no default registry.
//   - Snapshots at scrape time: a [Collector] is asked for its samples only
//     when the registry is scraped, so the code it reads (a queue, a cache)
//     need not import this package or know about metrics at all.
//   - Primitives only: it knows no metric of kubeloop's. The families a
//     controller and its queue produce (workqueue_*,
//     controller_runtime_*) are named and collected by package controller,
//     and the vectors a program updates are package manager's; both
//     reach an [Emitter] through the manager's collectors. Many
//     collectors may emit series of one family, whose HELP and TYPE are
//     written once.
//   - Mistakes surface: a scrape reports, instead of writing, samples that
//     break the format (a bad name, a series emitted twice, a family emitted
//     with two types or two help texts); [Registry.ServeHTTP] answers them
//     with a 500, as Prometheus' client does, so that they are seen.
//
// Usage:
//
//  1. Make a [Registry] with [NewRegistry].
//  2. Register collectors: a [CollectorFunc] that reads a snapshot (or
//     a vector's cells) and emits samples through an [Emitter].
//  3. Serve the registry (it is a [net/http.Handler]) or call
//     [Registry.Write]. In tests, package metricstest reads the format
//     back (Parse), strictly.
package metrics
