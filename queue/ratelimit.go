// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"fmt"
	"math"
	"sync"
	"time"
)

// RateLimiter decides how long a failed item waits before it is retried.
// Implementations must be safe for concurrent use.
type RateLimiter[K comparable] interface {
	// When records an attempt for item and returns how long to wait before
	// the item is added again.
	When(item K) time.Duration
	// Forget clears item's history; call it when the item succeeded.
	Forget(item K)
	// NumRequeues returns the number of attempts recorded for item.
	NumRequeues(item K) int
}

// NewDefaultRateLimiter returns the limiter controllers use by default: the
// longer of a per-item exponential backoff from 5ms to 1000s and an overall
// token bucket of 10 qps with a burst of 100 (controller-runtime's defaults).
func NewDefaultRateLimiter[K comparable]() *MaxOfRateLimiter[K] {
	return NewMaxOfRateLimiter(
		NewExponentialRateLimiter[K](5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter[K](10, 100),
	)
}

// ExponentialRateLimiter delays an item by base·2^n after its n-th recorded
// attempt (n counted from 0), capped at maxDelay. It keeps one counter per item
// until Forget; When and Forget are O(1).
type ExponentialRateLimiter[K comparable] struct {
	base, maxDelay time.Duration
	failures       failures[K]
}

// NewExponentialRateLimiter returns a limiter whose delays go base, 2·base,
// 4·base, ... up to maxDelay. It panics unless 0 < base <= maxDelay.
func NewExponentialRateLimiter[K comparable](base, maxDelay time.Duration) *ExponentialRateLimiter[K] {
	if base <= 0 || maxDelay < base {
		panic(fmt.Sprintf("queue: NewExponentialRateLimiter(%v, %v): want 0 < base <= maxDelay", base, maxDelay))
	}
	return &ExponentialRateLimiter[K]{base: base, maxDelay: maxDelay}
}

// When returns min(base·2^n, maxDelay) for the item's n-th attempt.
func (r *ExponentialRateLimiter[K]) When(item K) time.Duration {
	if r == nil {
		return 0
	}
	return backoff(r.base, r.maxDelay, r.failures.next(item)-1)
}

// Forget clears item's attempt count.
func (r *ExponentialRateLimiter[K]) Forget(item K) {
	if r == nil {
		return
	}
	r.failures.forget(item)
}

// NumRequeues returns item's attempt count.
func (r *ExponentialRateLimiter[K]) NumRequeues(item K) int {
	if r == nil {
		return 0
	}
	return r.failures.count(item)
}

// failures counts the attempts of each item since its last forget: the
// per-item state of [ExponentialRateLimiter] and [FastSlowRateLimiter].
// Its zero value is ready; it is safe for concurrent use, and each method
// is O(1).
type failures[K comparable] struct {
	mu sync.Mutex
	n  map[K]int // attempts since the last forget; absent means 0; saturates at math.MaxInt
}

// Its methods unlock without defer (nothing between Lock and Unlock can
// panic for a comparable key of a concrete type): small enough to inline,
// they add no functions to a program, whose binary would otherwise grow
// for the fold of the two limiters' copies.

// next records an attempt of item and returns the count with it: 1 for
// the first attempt.
func (f *failures[K]) next(item K) int {
	f.mu.Lock()
	if f.n == nil {
		f.n = make(map[K]int)
	}
	n := f.n[item]
	if n < math.MaxInt {
		n++
		f.n[item] = n
	}
	f.mu.Unlock()
	return n
}

func (f *failures[K]) forget(item K) {
	f.mu.Lock()
	delete(f.n, item)
	f.mu.Unlock()
}

func (f *failures[K]) count(item K) int {
	f.mu.Lock()
	n := f.n[item]
	f.mu.Unlock()
	return n
}

// backoff returns min(base·2^n, maxDelay) for 0 < base <= maxDelay and
// n >= 0, without overflow: base·2^n > maxDelay exactly when
// base > maxDelay>>n, which is also true for every n >= 63.
func backoff(base, maxDelay time.Duration, n int) time.Duration {
	if n >= 63 || base > maxDelay>>n {
		return maxDelay
	}
	return base << n
}

// BucketRateLimiter is a token bucket shared by all items: it holds up to
// burst tokens and gains qps tokens per second. Each When takes a token,
// reserving one that is not there yet if it must, and returns how long until
// that token is available. It keeps no per-item state: Forget does nothing
// and NumRequeues is 0.
type BucketRateLimiter[K comparable] struct {
	qps   float64
	burst float64

	mu     sync.Mutex
	tokens float64   // tokens at last; negative when tokens are reserved ahead
	last   time.Time // when tokens was computed; zero before the first When
}

// NewBucketRateLimiter returns a full bucket of burst tokens refilled at qps
// tokens per second. It panics unless qps > 0 and burst >= 1.
func NewBucketRateLimiter[K comparable](qps float64, burst int) *BucketRateLimiter[K] {
	if !(qps > 0) || math.IsInf(qps, 1) || burst < 1 {
		panic(fmt.Sprintf("queue: NewBucketRateLimiter(%v, %v): want qps > 0 and burst >= 1", qps, burst))
	}
	return &BucketRateLimiter[K]{qps: qps, burst: float64(burst)}
}

// When takes a token and returns the time until it is available: 0 while the
// bucket has tokens, then 1/qps, 2/qps, ... for the reservations behind it.
func (r *BucketRateLimiter[K]) When(K) time.Duration {
	if r == nil {
		return 0
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now() // under the lock, so successive calls see time move forward
	if r.last.IsZero() {
		r.tokens = r.burst
	} else {
		r.tokens = min(r.burst, r.tokens+now.Sub(r.last).Seconds()*r.qps)
	}
	r.last = now
	r.tokens--
	if r.tokens >= 0 {
		return 0
	}
	return time.Duration(math.Ceil(-r.tokens * float64(time.Second) / r.qps))
}

// Forget does nothing: the bucket is shared.
func (r *BucketRateLimiter[K]) Forget(K) {}

// NumRequeues returns 0: the bucket counts no items.
func (r *BucketRateLimiter[K]) NumRequeues(K) int {
	if r == nil {
		return 0
	}
	return 0
}

// MaxOfRateLimiter combines limiters: When asks each of them (so each records
// the attempt) and returns the longest delay; NumRequeues is the largest
// count; Forget forgets in all of them.
type MaxOfRateLimiter[K comparable] struct {
	limiters []RateLimiter[K] // not changed after construction
}

// NewMaxOfRateLimiter returns the combination of limiters.
func NewMaxOfRateLimiter[K comparable](limiters ...RateLimiter[K]) *MaxOfRateLimiter[K] {
	return &MaxOfRateLimiter[K]{limiters: append([]RateLimiter[K](nil), limiters...)}
}

// When returns the longest delay of the limiters.
func (r *MaxOfRateLimiter[K]) When(item K) time.Duration {
	if r == nil {
		return 0
	}
	var d time.Duration
	for _, l := range r.limiters {
		d = max(d, l.When(item))
	}
	return d
}

// Forget forgets item in every limiter.
func (r *MaxOfRateLimiter[K]) Forget(item K) {
	if r == nil {
		return
	}
	for _, l := range r.limiters {
		l.Forget(item)
	}
}

// NumRequeues returns the largest count of the limiters.
func (r *MaxOfRateLimiter[K]) NumRequeues(item K) int {
	if r == nil {
		return 0
	}
	n := 0
	for _, l := range r.limiters {
		n = max(n, l.NumRequeues(item))
	}
	return n
}

// FastSlowRateLimiter delays an item by fast for its first fastAttempts
// attempts and by slow after that. It keeps one counter per item until
// Forget; When and Forget are O(1).
type FastSlowRateLimiter[K comparable] struct {
	fast, slow   time.Duration
	fastAttempts int
	failures     failures[K]
}

// NewFastSlowRateLimiter returns a limiter that waits fast for the first
// fastAttempts attempts of an item and slow after. It panics unless
// 0 <= fast <= slow and fastAttempts >= 0.
func NewFastSlowRateLimiter[K comparable](fast, slow time.Duration, fastAttempts int) *FastSlowRateLimiter[K] {
	if fast < 0 || slow < fast || fastAttempts < 0 {
		panic(fmt.Sprintf("queue: NewFastSlowRateLimiter(%v, %v, %d): want 0 <= fast <= slow and fastAttempts >= 0", fast, slow, fastAttempts))
	}
	return &FastSlowRateLimiter[K]{fast: fast, slow: slow, fastAttempts: fastAttempts}
}

// When returns fast for the item's first fastAttempts attempts, then slow.
func (r *FastSlowRateLimiter[K]) When(item K) time.Duration {
	if r == nil {
		return 0
	}
	if r.failures.next(item) <= r.fastAttempts {
		return r.fast
	}
	return r.slow
}

// Forget clears item's attempt count.
func (r *FastSlowRateLimiter[K]) Forget(item K) {
	if r == nil {
		return
	}
	r.failures.forget(item)
}

// NumRequeues returns item's attempt count.
func (r *FastSlowRateLimiter[K]) NumRequeues(item K) int {
	if r == nil {
		return 0
	}
	return r.failures.count(item)
}
