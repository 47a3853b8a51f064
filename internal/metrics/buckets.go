// SPDX-License-Identifier: Apache-2.0

package metrics

import "fmt"

// This file holds bucket layouts for histograms.

// ExponentialBuckets returns n bounds: start, start×factor, start×factor²…
// It panics unless start > 0, factor > 1 and n >= 1.
func ExponentialBuckets(start, factor float64, n int) []float64 {
	if start <= 0 || factor <= 1 || n < 1 {
		panic(fmt.Sprintf("ExponentialBuckets(%v, %v, %d): want start > 0, factor > 1, n >= 1", start, factor, n))
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = start
		start *= factor
	}
	return out
}
