// SPDX-License-Identifier: Apache-2.0

package metrics_test

import (
	"log"
	"os"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// A registry with counters and a gauge read from snapshots at scrape
// time.
func Example() {
	requests := map[string]int{"200": 2, "404": 1} // some state owned elsewhere
	queueLen := func() int { return 3 }
	reg := metrics.NewRegistry(metrics.CollectorFunc(func(e *metrics.Emitter) {
		for code, n := range requests {
			e.Counter("requests_total", "Requests served, by code.", float64(n), "code", code)
		}
	}), metrics.CollectorFunc(func(e *metrics.Emitter) {
		e.Gauge("queue_depth", "Items waiting.", float64(queueLen()), "name", "default")
	}))
	if err := reg.Write(os.Stdout); err != nil {
		log.Fatal(err)
	}
	// Output:
	// # HELP queue_depth Items waiting.
	// # TYPE queue_depth gauge
	// queue_depth{name="default"} 3
	// # HELP requests_total Requests served, by code.
	// # TYPE requests_total counter
	// requests_total{code="200"} 2
	// requests_total{code="404"} 1
}
