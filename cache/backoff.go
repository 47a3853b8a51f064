// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"math/rand/v2"
	"time"
)

// Timing of the reflector, as client-go's: failed requests are retried after
// an exponential backoff from 800ms to 30s, reset once two minutes pass
// without a failure; watches ask the server to end them after a random
// 5 to 10 minutes, so that many clients do not reconnect together.
const (
	backoffInitial  = 800 * time.Millisecond
	backoffMax      = 30 * time.Second
	backoffReset    = 2 * time.Minute
	minWatchTimeout = 5 * time.Minute
)

// DefaultResyncPeriod is the resync period of informers that do not set
// one, as controller-runtime's default SyncPeriod. Each period is drawn
// anew within ±10% of it.
const DefaultResyncPeriod = 10 * time.Hour

// backoff spaces retries after failures. The zero value is ready to use.
//
// The n-th failure in a row waits a delay drawn uniformly from [d/2, d],
// with d = min(800ms·2ⁿ⁻¹, 30s) ("equal jitter": never more than the cap,
// never less than half the nominal delay, and spread even at the cap). A
// failure more than two minutes after the previous one starts again at
// 800ms.
type backoff struct {
	// failures counts failures since the last reset; it stops growing
	// once the delay reaches the cap.
	failures int
	// last is when the last failure happened; zero before the first.
	last time.Time
}

// next records a failure at now and returns how long to wait before the
// next attempt. r must be in [0, 1); it is the jitter.
func (b *backoff) next(now time.Time, r float64) time.Duration {
	if !b.last.IsZero() && now.Sub(b.last) >= backoffReset {
		b.failures = 0
	}
	b.last = now
	d := backoffInitial << b.failures
	if d >= backoffMax || d <= 0 {
		d = backoffMax
	} else {
		b.failures++
	}
	return d/2 + time.Duration(r*float64(d/2))
}

// resyncDelay returns the time to the next resync: period ±10%, with r in
// [0, 1) the jitter.
func resyncDelay(period time.Duration, r float64) time.Duration {
	return time.Duration(float64(period) * (0.9 + 0.2*r))
}

// watchTimeout returns the timeoutSeconds of a watch: [5min, 10min) with r
// in [0, 1) the jitter.
func watchTimeout(r float64) int64 {
	return int64((minWatchTimeout + time.Duration(r*float64(minWatchTimeout))) / time.Second)
}

// sleep waits d or until ctx is done, and reports whether it waited d.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// jitter returns a random number in [0, 1) for the functions above.
func jitter() float64 { return rand.Float64() }
