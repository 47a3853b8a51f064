// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"testing"

	"github.com/kubeloop/kubeloop/internal/zerotest"
)

// TestZeroValues: every exported type's zero value works or returns an
// error, and a typed nil is treated as nil (see internal/zerotest).
func TestZeroValues(t *testing.T) {
	zerotest.Walk(t, ".", zerotest.Types{
		Values: []any{
			new(BucketRateLimiter[string]), new(ExponentialRateLimiter[string]), new(FastSlowRateLimiter[string]), new(MaxOfRateLimiter[string]), new(Queue[string]),
		},
		TypedNils: []any{(*ExponentialRateLimiter[string])(nil)},
	})
}

// TestZeroQueueIsShutDown: a Queue that New did not make drops what is
// added and hands nothing out, so a worker's loop over Get ends at once.
func TestZeroQueueIsShutDown(t *testing.T) {
	for name, q := range map[string]*Queue[string]{"zero": new(Queue[string]), "nil": nil} {
		q.Add("a")
		q.AddRateLimited("a")
		if item, ok := q.Get(); ok || q.Len() != 0 {
			t.Errorf("%s queue: Get = %q, %v and Len %d after Add, want nothing handed out", name, item, ok, q.Len())
		}
	}
}
