// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"math/rand/v2"
	"time"

	"github.com/kubeloop/kubeloop/internal/wait"
)

// Conflict retry bounds, as client-go's retry.DefaultRetry: 5 tries, 10ms
// apart with 10% jitter.
const (
	conflictTries = 5
	conflictDelay = 10 * time.Millisecond
)

// RetryOnConflict calls fn until it returns nil or an error other than a
// Conflict ([IsConflict]), at most 5 times, 10ms (±10%) apart, or until ctx
// is done. fn must read the object afresh each time: a conflict means the
// copy it wrote was stale. The last error is returned.
func RetryOnConflict(ctx context.Context, fn func() error) error {
	var err error
	for try := range conflictTries {
		if err = fn(); !IsConflict(err) {
			return err
		}
		if try == conflictTries-1 {
			break
		}
		jitter := time.Duration(rand.Int64N(int64(conflictDelay / 5)))
		if !wait.Sleep(ctx, conflictDelay-conflictDelay/10+jitter) {
			return err
		}
	}
	return err
}
