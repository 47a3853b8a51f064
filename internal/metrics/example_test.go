// SPDX-License-Identifier: Apache-2.0

package metrics_test

import (
	"log"
	"os"

	"github.com/kubeloop/kubeloop/internal/metrics"
)

// A registry with a counter the program updates and a gauge read from a
// snapshot at scrape time.
func Example() {
	requests := metrics.NewCounterVec("requests_total", "Requests served, by code.", "code")
	requests.Inc("200")
	requests.Inc("200")
	requests.Inc("404")

	queueLen := func() int { return 3 } // some state owned elsewhere
	reg := metrics.NewRegistry(metrics.SinkCollector(requests), metrics.CollectorFunc(func(e *metrics.Emitter) {
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
