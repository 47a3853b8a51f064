// SPDX-License-Identifier: Apache-2.0

// Package metricstest reads what package metrics writes, for tests: [Parse]
// reads the Prometheus text exposition format back into metrics.Family
// values, strictly, so that a test can compare a scrape with what
// metrics.Registry.Gather returned, or look a series up.
//
// It guarantees:
//
//   - Linked by tests alone: no package but a test imports it, so no
//     program links the parser (package metrics has none).
//   - Strict: what it accepts, a metrics.Emitter accepts too (FuzzParse),
//     and an error names the line and quotes it.
package metricstest
