// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"
)

// ready returns the items queued now, in hand-out order, and marks them Done.
func ready(t *testing.T, q *Queue[string]) []string {
	t.Helper()
	synctest.Wait() // let the delay goroutine add what is due
	return drain(q)
}

func TestAddAfterOrdering(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		defer q.ShutDown()
		q.AddAfter("c", 3*time.Second)
		q.AddAfter("a", 1*time.Second)
		q.AddAfter("b", 2*time.Second)
		q.AddAfter("a2", 1*time.Second)
		steps := []struct {
			at   time.Duration
			want []string
		}{
			{0, nil},
			{999 * time.Millisecond, nil},
			{time.Second, []string{"a", "a2"}},
			{2*time.Second - 1, nil},
			{2 * time.Second, []string{"b"}},
			{3 * time.Second, []string{"c"}},
			{time.Hour, nil},
		}
		start := time.Now()
		for _, s := range steps {
			time.Sleep(s.at - time.Since(start))
			if got := ready(t, q); !slices.Equal(got, s.want) {
				t.Errorf("items ready at %v = %q, want %q", s.at, got, s.want)
			}
		}
	})
}

func TestAddAfterEarlierWins(t *testing.T) {
	tests := []struct {
		name   string
		delays []time.Duration
		want   time.Duration // when the item is ready; it is ready once
	}{
		{"later then earlier", []time.Duration{10 * time.Second, time.Second}, time.Second},
		{"earlier then later", []time.Duration{time.Second, 10 * time.Second}, time.Second},
		{"three", []time.Duration{5 * time.Second, 2 * time.Second, 7 * time.Second}, 2 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue(t, Options[string]{})
				defer q.ShutDown()
				start := time.Now()
				for _, d := range tt.delays {
					q.AddAfter("x", d)
				}
				time.Sleep(tt.want - 1)
				if got := ready(t, q); len(got) != 0 {
					t.Errorf("AddAfter(x, %v): ready at %v = %q, want nothing", tt.delays, time.Since(start), got)
				}
				time.Sleep(1)
				if got := ready(t, q); !slices.Equal(got, []string{"x"}) {
					t.Errorf("AddAfter(x, %v): ready at %v = %q, want [x]", tt.delays, time.Since(start), got)
				}
				time.Sleep(time.Minute)
				if got := ready(t, q); len(got) != 0 {
					t.Errorf("AddAfter(x, %v): ready again at %v = %q, want nothing (one entry per item)", tt.delays, time.Since(start), got)
				}
			})
		})
	}
}

func TestAddAfterNonPositiveAddsNow(t *testing.T) {
	for _, d := range []time.Duration{0, -time.Second} {
		t.Run(d.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue(t, Options[string]{})
				q.AddAfter("x", d)
				if got := q.Len(); got != 1 {
					t.Errorf("Len() right after AddAfter(x, %v) = %d, want 1", d, got)
				}
				if q.loopStarted {
					t.Errorf("AddAfter(x, %v) started the delay goroutine, want not", d)
				}
			})
		})
	}
}

func TestAddAfterKeepsHighestPriority(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		defer q.ShutDown()
		q.AddWithOptions("a", AddOptions{After: time.Second, Priority: 0})
		q.AddWithOptions("b", AddOptions{After: time.Second, Priority: 1})
		q.AddWithOptions("a", AddOptions{After: time.Hour, Priority: 2}) // raises, does not postpone
		time.Sleep(time.Second)
		if got := ready(t, q); !slices.Equal(got, []string{"a", "b"}) {
			t.Errorf("Get order of delayed items = %q, want %q", got, []string{"a", "b"})
		}
	})
}

func TestAddAfterAlreadyQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		defer q.ShutDown()
		q.Add("x")
		q.AddAfter("x", time.Second)
		time.Sleep(time.Second)
		if got := ready(t, q); !slices.Equal(got, []string{"x"}) {
			t.Errorf("Add(x) then AddAfter(x, 1s): ready after 1s = %q, want one x", got)
		}
	})
}

// TestShutDownWithDelayedItems: synctest.Test fails if a goroutine started
// in the bubble is still blocked when the function returns, so this proves
// the delay goroutine ends at shutdown.
func TestShutDownWithDelayedItems(t *testing.T) {
	tests := []struct {
		name     string
		shutDown func(*testing.T, *Queue[string])
	}{
		{"ShutDown", func(_ *testing.T, q *Queue[string]) { q.ShutDown() }},
		{"ShutDownWithDrain", func(t *testing.T, q *Queue[string]) {
			if err := q.ShutDownWithDrain(t.Context()); err != nil {
				t.Errorf("ShutDownWithDrain() = %v, want nil", err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				q := newQueue(t, Options[string]{})
				for i := range 100 {
					q.AddAfter(string(rune('a'+i%26))+string(rune('a'+i/26)), time.Duration(i+1)*time.Minute)
				}
				time.Sleep(90 * time.Second) // one is ready, the rest are waiting
				tt.shutDown(t, q)
				time.Sleep(time.Hour)
				if got := q.Len(); got != 0 {
					t.Errorf("Len() an hour after %s = %d, want 0", tt.name, got)
				}
				if item, ok := q.Get(); ok {
					t.Errorf("Get() after %s = %q, true, want false", tt.name, item)
				}
			})
		})
	}
}

func TestAddAfterBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[int]{})
		defer q.ShutDown()
		const n = 5 * waitBuffer // more than the channel holds
		for i := range n {
			q.AddAfter(i, time.Duration(n-i)*time.Millisecond)
		}
		time.Sleep(time.Duration(n) * time.Millisecond)
		synctest.Wait()
		if got := q.Len(); got != n {
			t.Fatalf("Len() after every delay passed = %d, want %d", got, n)
		}
		for want := n - 1; want >= 0; want-- {
			if got, _ := q.Get(); got != want {
				t.Fatalf("Get() = %d, want %d (earliest deadline first)", got, want)
			}
		}
	})
}
