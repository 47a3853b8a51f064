// SPDX-License-Identifier: Apache-2.0

// Package wait holds the one wait that the retry and backoff loops of
// kube, cache and leader share: a sleep that ends early when its context
// does. It imports only the standard library.
package wait

import (
	"context"
	"time"
)

// Sleep waits d and reports true, or reports false as soon as ctx is done
// (also when d has passed but ctx is done too): a loop that sleeps between
// attempts stops when it is told to. Its timer is stopped on return.
func Sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return ctx.Err() == nil
	case <-ctx.Done():
		return false
	}
}
