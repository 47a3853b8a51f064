// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"testing"
	"time"
)

func TestBackoff(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		gaps []time.Duration // time since the previous failure, per failure
		r    float64
		want []time.Duration
	}{
		{"doubles from 800ms, upper end", []time.Duration{0, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second, time.Second},
			0.999999999,
			[]time.Duration{800 * time.Millisecond, 1600 * time.Millisecond, 3200 * time.Millisecond, 6400 * time.Millisecond,
				12800 * time.Millisecond, 25600 * time.Millisecond, 30 * time.Second, 30 * time.Second}},
		{"lower end is half", []time.Duration{0, time.Second, time.Second}, 0,
			[]time.Duration{400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond}},
		{"resets after two quiet minutes", []time.Duration{0, time.Second, time.Second, 2 * time.Minute, time.Second}, 0,
			[]time.Duration{400 * time.Millisecond, 800 * time.Millisecond, 1600 * time.Millisecond, 400 * time.Millisecond, 800 * time.Millisecond}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b backoff
			now := t0
			for i, gap := range tt.gaps {
				now = now.Add(gap)
				got := b.next(now, tt.r)
				if diff := got - tt.want[i]; diff < -time.Millisecond || diff > time.Millisecond {
					t.Errorf("failure %d: next = %v, want %v", i+1, got, tt.want[i])
				}
			}
		})
	}
}

func TestBackoffNeverExceedsCap(t *testing.T) {
	var b backoff
	now := time.Now()
	for i := range 200 {
		now = now.Add(time.Second)
		if d := b.next(now, jitter()); d > backoffMax || d < backoffInitial/2 {
			t.Fatalf("failure %d: next = %v, want within [%v, %v]", i+1, d, backoffInitial/2, backoffMax)
		}
	}
}

func TestResyncDelay(t *testing.T) {
	for _, r := range []float64{0, 0.5, 0.9999} {
		d := resyncDelay(10*time.Hour, r)
		if d < 9*time.Hour || d >= 11*time.Hour {
			t.Errorf("resyncDelay(10h, %v) = %v, want within [9h, 11h)", r, d)
		}
	}
	if got := resyncDelay(10*time.Hour, 0.5); got != 10*time.Hour {
		t.Errorf("resyncDelay(10h, 0.5) = %v, want 10h", got)
	}
}

func TestWatchTimeout(t *testing.T) {
	tests := []struct {
		r    float64
		want int64
	}{{0, 300}, {0.5, 450}, {0.9999, 599}}
	for _, tt := range tests {
		if got := watchTimeout(tt.r); got != tt.want {
			t.Errorf("watchTimeout(%v) = %d, want %d", tt.r, got, tt.want)
		}
	}
}
