// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"sync"
	"time"
)

// tokenBucket is the client-side rate limit: tokens refill at qps per
// second up to burst, and every request takes one, waiting if none is left.
// Waiters reserve their token, so the order is first come, first served.
type tokenBucket struct {
	qps   float64
	burst float64

	mu     sync.Mutex
	tokens float64   // may go negative: tokens reserved by waiters
	last   time.Time // when tokens was last brought up to date
}

func newTokenBucket(qps float64, burst int) *tokenBucket {
	return &tokenBucket{qps: qps, burst: float64(burst), tokens: float64(burst)}
}

// wait takes a token, sleeping until it is due or ctx is done. The cost is
// one lock and, when the bucket is empty, one timer.
func (b *tokenBucket) wait(ctx context.Context) error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	now := time.Now()
	if !b.last.IsZero() {
		b.tokens = min(b.burst, b.tokens+now.Sub(b.last).Seconds()*b.qps)
	}
	b.last = now
	b.tokens--
	deficit := -b.tokens
	b.mu.Unlock()
	if deficit <= 0 {
		return nil
	}
	t := time.NewTimer(time.Duration(deficit / b.qps * float64(time.Second)))
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		b.mu.Lock()
		b.tokens++ // give the reservation back
		b.mu.Unlock()
		return ctx.Err()
	}
}
