// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"math"
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// whens calls When(item) n times and returns the delays.
func whens(r RateLimiter[string], item string, n int) []time.Duration {
	var ds []time.Duration
	for range n {
		ds = append(ds, r.When(item))
	}
	return ds
}

func TestExponentialSequence(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		base, max time.Duration
		want      []time.Duration
	}{
		{"defaults start", 5 * ms, 1000 * time.Second, []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms, 160 * ms}},
		{"capped", ms, 10 * ms, []time.Duration{ms, 2 * ms, 4 * ms, 8 * ms, 10 * ms, 10 * ms}},
		{"base equals max", time.Second, time.Second, []time.Duration{time.Second, time.Second, time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewExponentialRateLimiter[string](tt.base, tt.max)
			if got := whens(r, "a", len(tt.want)); !slices.Equal(got, tt.want) {
				t.Errorf("When(%q) x%d = %v, want %v", "a", len(tt.want), got, tt.want)
			}
			if got := r.NumRequeues("a"); got != len(tt.want) {
				t.Errorf("NumRequeues(%q) = %d, want %d", "a", got, len(tt.want))
			}
			if got := r.When("b"); got != tt.base {
				t.Errorf("When(%q) of another item = %v, want %v (per-item)", "b", got, tt.base)
			}
			r.Forget("a")
			if got := r.NumRequeues("a"); got != 0 {
				t.Errorf("NumRequeues(%q) after Forget = %d, want 0", "a", got)
			}
			if got := r.When("a"); got != tt.base {
				t.Errorf("When(%q) after Forget = %v, want %v", "a", got, tt.base)
			}
		})
	}
}

func TestExponentialDefaultReachesCap(t *testing.T) {
	r := NewExponentialRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	// 5ms·2^17 = 655.36s, 5ms·2^18 = 1310.72s > 1000s.
	ds := whens(r, "a", 20)
	if got, want := ds[17], 655360*time.Millisecond; got != want {
		t.Errorf("18th When = %v, want %v", got, want)
	}
	for i, got := range ds[18:] {
		if got != 1000*time.Second {
			t.Errorf("When #%d = %v, want the cap %v", 19+i, got, 1000*time.Second)
		}
	}
}

func TestBackoffOverflow(t *testing.T) {
	tests := []struct {
		base, max time.Duration
		n         int
		want      time.Duration
	}{
		{5 * time.Millisecond, 1000 * time.Second, 62, 1000 * time.Second},
		{5 * time.Millisecond, 1000 * time.Second, 63, 1000 * time.Second},
		{5 * time.Millisecond, 1000 * time.Second, 64, 1000 * time.Second},
		{5 * time.Millisecond, 1000 * time.Second, 1 << 40, 1000 * time.Second},
		{5 * time.Millisecond, 1000 * time.Second, math.MaxInt, 1000 * time.Second},
		{1, math.MaxInt64, 62, 1 << 62},
		{1, math.MaxInt64, 63, math.MaxInt64},
		{3, math.MaxInt64, 62, math.MaxInt64}, // 3·2^62 overflows int64
		{3, math.MaxInt64, 61, 3 << 61},
		{math.MaxInt64, math.MaxInt64, 1, math.MaxInt64},
	}
	for _, tt := range tests {
		if got := backoff(tt.base, tt.max, tt.n); got != tt.want {
			t.Errorf("backoff(%v, %v, %d) = %v, want %v", tt.base, tt.max, tt.n, got, tt.want)
		}
	}
}

func TestExponentialHugeFailureCount(t *testing.T) {
	r := NewExponentialRateLimiter[string](5*time.Millisecond, 1000*time.Second)
	for _, n := range []int{63, 64, 1 << 32, math.MaxInt - 1, math.MaxInt} {
		r.failures.n = map[string]int{"a": n}
		if got := r.When("a"); got != 1000*time.Second {
			t.Errorf("When(%q) after %d failures = %v, want %v", "a", n, got, 1000*time.Second)
		}
		if got := r.NumRequeues("a"); got < n || got < 0 {
			t.Errorf("NumRequeues(%q) after %d failures and one When = %d, want >= %d (saturating)", "a", n, got, n)
		}
	}
}

func TestBucket(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewBucketRateLimiter[string](10, 100)
		for i := range 100 {
			if got := r.When("x"); got != 0 {
				t.Fatalf("When #%d with a full bucket = %v, want 0", i+1, got)
			}
		}
		// Empty: each When reserves the next token, 100ms apart.
		want := []time.Duration{100 * time.Millisecond, 200 * time.Millisecond, 300 * time.Millisecond}
		if got := whens(r, "y", 3); !slices.Equal(got, want) {
			t.Errorf("When x3 on an empty bucket = %v, want %v", got, want)
		}
		// After 1s: 10 tokens minted, 3 of them already reserved.
		time.Sleep(time.Second)
		for i := range 7 {
			if got := r.When("z"); got != 0 {
				t.Fatalf("When #%d a second later = %v, want 0", i+1, got)
			}
		}
		if got := r.When("z"); got != 100*time.Millisecond {
			t.Errorf("When after the refill is used = %v, want %v", got, 100*time.Millisecond)
		}
		// The bucket never holds more than burst.
		time.Sleep(time.Hour)
		if got := whens(r, "z", 101); got[99] != 0 || got[100] != 100*time.Millisecond {
			t.Errorf("When #100, #101 after an hour = %v, %v, want 0, 100ms", got[99], got[100])
		}
		if got := r.NumRequeues("z"); got != 0 {
			t.Errorf("NumRequeues = %d, want 0 (the bucket keeps no per-item count)", got)
		}
	})
}

func TestMaxOf(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := NewDefaultRateLimiter[string]()
		// The per-item backoff dominates for one item.
		want := []time.Duration{5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond}
		if got := whens(r, "a", 3); !slices.Equal(got, want) {
			t.Errorf("When(%q) x3 = %v, want %v", "a", got, want)
		}
		if got := r.NumRequeues("a"); got != 3 {
			t.Errorf("NumRequeues(%q) = %d, want 3", "a", got)
		}
		// The bucket dominates across many items: 3 tokens used, 97 left.
		for i := range 97 {
			r.When("item" + string(rune(i)))
		}
		if got := r.When("new"); got != 100*time.Millisecond {
			t.Errorf("When(%q) with the bucket empty = %v, want %v", "new", got, 100*time.Millisecond)
		}
		r.Forget("a")
		if got := r.NumRequeues("a"); got != 0 {
			t.Errorf("NumRequeues(%q) after Forget = %d, want 0", "a", got)
		}
	})
}

func TestFastSlow(t *testing.T) {
	r := NewFastSlowRateLimiter[string](time.Millisecond, time.Minute, 3)
	want := []time.Duration{time.Millisecond, time.Millisecond, time.Millisecond, time.Minute, time.Minute}
	if got := whens(r, "a", 5); !slices.Equal(got, want) {
		t.Errorf("When(%q) x5 = %v, want %v", "a", got, want)
	}
	if got := r.NumRequeues("a"); got != 5 {
		t.Errorf("NumRequeues(%q) = %d, want 5", "a", got)
	}
	r.Forget("a")
	if got := r.When("a"); got != time.Millisecond {
		t.Errorf("When(%q) after Forget = %v, want %v", "a", got, time.Millisecond)
	}
	r.failures.n = map[string]int{"a": math.MaxInt}
	if got := r.When("a"); got != time.Minute {
		t.Errorf("When(%q) after MaxInt failures = %v, want %v", "a", got, time.Minute)
	}
}

func TestRateLimiterConstructorsPanic(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{"exponential zero base", func() { NewExponentialRateLimiter[string](0, time.Second) }},
		{"exponential max below base", func() { NewExponentialRateLimiter[string](time.Second, time.Millisecond) }},
		{"bucket zero qps", func() { NewBucketRateLimiter[string](0, 1) }},
		{"bucket NaN qps", func() { NewBucketRateLimiter[string](math.NaN(), 1) }},
		{"bucket zero burst", func() { NewBucketRateLimiter[string](1, 0) }},
		{"fastslow slow below fast", func() { NewFastSlowRateLimiter[string](time.Second, time.Millisecond, 1) }},
		{"fastslow negative attempts", func() { NewFastSlowRateLimiter[string](0, 0, -1) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: did not panic, want a panic", tt.name)
				}
			}()
			tt.f()
		})
	}
}

func TestQueueRateLimited(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{
			RateLimiter: NewExponentialRateLimiter[string](time.Second, time.Minute),
		})
		defer q.ShutDown()
		start := time.Now()
		var readyAt []time.Duration
		for range 4 {
			q.AddRateLimited("x")
			item, _ := q.Get() // blocks until the delay passes
			readyAt = append(readyAt, time.Since(start))
			q.Done(item)
		}
		want := []time.Duration{1 * time.Second, 3 * time.Second, 7 * time.Second, 15 * time.Second}
		if !slices.Equal(readyAt, want) {
			t.Errorf("AddRateLimited x4: ready at %v, want %v", readyAt, want)
		}
		if got := q.NumRequeues("x"); got != 4 {
			t.Errorf("NumRequeues(%q) = %d, want 4", "x", got)
		}
		q.Forget("x")
		if got := q.NumRequeues("x"); got != 0 {
			t.Errorf("NumRequeues(%q) after Forget = %d, want 0", "x", got)
		}
		// After is a floor under the limiter's delay.
		q.AddWithOptions("y", AddOptions{RateLimited: true, After: 10 * time.Second})
		before := time.Now()
		item, _ := q.Get()
		if got := time.Since(before); item != "y" || got != 10*time.Second {
			t.Errorf("Get() after AddWithOptions(y, RateLimited, After 10s) = %q after %v, want %q after 10s", item, got, "y")
		}
		q.Done(item)
		if got := q.Metrics().RetriesTotal; got != 5 {
			t.Errorf("Metrics().RetriesTotal = %d, want 5", got)
		}
	})
}
