// SPDX-License-Identifier: Apache-2.0

package queue

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/internal/stacks"
)

func newQueue[K comparable](t testing.TB, cfg Options[K]) *Queue[K] {
	t.Helper()
	q, err := New(cfg)
	if err != nil {
		t.Fatalf("New(%+v) error: %v", cfg, err)
	}
	return q
}

// drain hands out every queued item, calling Done on each, and returns them
// in order.
func drain[K comparable](q *Queue[K]) []K {
	var got []K
	for q.Len() > 0 {
		item, ok := q.Get()
		if !ok {
			break
		}
		got = append(got, item)
		q.Done(item)
	}
	return got
}

func TestNewValidates(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Options[string]
		wantErr bool
	}{
		{"zero value", Options[string]{}, false},
		{"positive wait", Options[string]{MaxPriorityWait: time.Second}, false},
		{"negative wait", Options[string]{MaxPriorityWait: -time.Second}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.cfg)
			if (err != nil) != tt.wantErr {
				t.Errorf("New(%+v) error = %v, want error %v", tt.cfg, err, tt.wantErr)
			}
		})
	}
}

func TestFairAndStingy(t *testing.T) {
	tests := []struct {
		name string
		adds []string
		want []string
	}{
		{"fifo", []string{"a", "b", "c"}, []string{"a", "b", "c"}},
		{"duplicates once, at first position", []string{"a", "b", "a", "c", "b", "a"}, []string{"a", "b", "c"}},
		{"many times one item", []string{"x", "x", "x", "x"}, []string{"x"}},
		{"empty", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := newQueue(t, Options[string]{})
			for _, a := range tt.adds {
				q.Add(a)
			}
			if got := q.Len(); got != len(tt.want) {
				t.Errorf("Len() = %d, want %d", got, len(tt.want))
			}
			if got := drain(q); !slices.Equal(got, tt.want) {
				t.Errorf("Get order after Add(%q) = %q, want %q", tt.adds, got, tt.want)
			}
		})
	}
}

func TestAddWhileProcessingRequeuesOnDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		q.Add("a")
		item, _ := q.Get()
		q.Add("a") // while processing: must not be handed out yet
		q.Add("a")
		if got := q.Len(); got != 0 {
			t.Fatalf("Len() while a is processing = %d, want 0", got)
		}
		got := make(chan string, 1)
		go func() {
			item, _ := q.Get()
			got <- item
		}()
		synctest.Wait()
		select {
		case item := <-got:
			t.Fatalf("Get() = %q while it was being processed, want to block", item)
		default:
		}
		q.Done(item)
		synctest.Wait()
		select {
		case item := <-got:
			if item != "a" {
				t.Errorf("Get() after Done = %q, want %q", item, "a")
			}
		default:
			t.Fatalf("Get() still blocked after Done(%q), want %q requeued", "a", "a")
		}
		q.Done("a")
		if got := q.Len(); got != 0 {
			t.Errorf("Len() after the second Done = %d, want 0 (three adds while processing queue it once)", got)
		}
	})
}

func TestDoneOfItemNotProcessing(t *testing.T) {
	q := newQueue(t, Options[string]{})
	q.Done("never-added")
	q.Add("a")
	q.Done("a") // queued, not processing: must not duplicate it
	if got := drain(q); !slices.Equal(got, []string{"a"}) {
		t.Errorf("Get order after Done of a queued item = %q, want %q", got, []string{"a"})
	}
}

func TestShutDownWakesEveryGet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[int]{})
		const waiters = 10
		var woken atomic.Int32
		var wg sync.WaitGroup
		for range waiters {
			wg.Go(func() {
				if item, ok := q.Get(); ok {
					t.Errorf("Get() = %v, true after ShutDown, want false", item)
				}
				woken.Add(1)
			})
		}
		synctest.Wait()
		if got := woken.Load(); got != 0 {
			t.Fatalf("%d Gets returned on an empty queue, want 0", got)
		}
		q.ShutDown()
		wg.Wait()
		if got := woken.Load(); got != waiters {
			t.Errorf("Gets woken by ShutDown = %d, want %d", got, waiters)
		}
	})
}

func TestShutDownDropsAndIgnores(t *testing.T) {
	q := newQueue(t, Options[string]{})
	q.Add("a")
	q.Add("b")
	processing, _ := q.Get()
	q.Add(processing) // would be requeued on Done
	q.ShutDown()
	q.ShutDown() // idempotent
	q.Add("c")
	q.AddAfter("d", time.Hour)
	q.AddRateLimited("e")
	if got := q.NumRequeues("e"); got != 0 {
		t.Errorf("NumRequeues(%q) after AddRateLimited on a shut down queue = %d, want 0", "e", got)
	}
	if got := q.Len(); got != 0 {
		t.Errorf("Len() after ShutDown = %d, want 0", got)
	}
	if item, ok := q.Get(); ok {
		t.Errorf("Get() after ShutDown = %q, true, want false", item)
	}
	q.Done(processing)
	if item, ok := q.Get(); ok {
		t.Errorf("Get() after Done of a requeued item during shutdown = %q, true, want false", item)
	}
}

func TestShutDownWithDrain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		q.Add("a")
		item, _ := q.Get()
		start := time.Now()
		go func() {
			time.Sleep(3 * time.Second)
			q.Done(item)
		}()
		if err := q.ShutDownWithDrain(context.Background()); err != nil {
			t.Fatalf("ShutDownWithDrain() = %v, want nil", err)
		}
		if got := time.Since(start); got != 3*time.Second {
			t.Errorf("ShutDownWithDrain() returned after %v, want 3s (when the item was Done)", got)
		}
	})
}

func TestShutDownWithDrainTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		q.Add("a")
		item, _ := q.Get()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		start := time.Now()
		err := q.ShutDownWithDrain(ctx)
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("ShutDownWithDrain() = %v, want an error wrapping %v", err, context.DeadlineExceeded)
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("ShutDownWithDrain() returned after %v, want 1s (the context's timeout)", got)
		}
		q.Done(item)
	})
}

func TestNewStartsNoGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := newQueue(t, Options[string]{})
		q.Add("a")
		item, _ := q.Get()
		q.Done(item)
		synctest.Wait()
		if n := delayLoops(); n != 0 {
			t.Errorf("delay goroutines after New, Add, Get and Done = %d, want 0", n)
		}
		q.AddRateLimited("b") // delay 5ms: starts the delay goroutine
		synctest.Wait()       // it is running and waiting for its timer
		if n := delayLoops(); n != 1 {
			t.Errorf("delay goroutines after AddRateLimited = %d, want 1", n)
		}
		q.ShutDown() // waits for it to end
		if n := delayLoops(); n != 0 {
			t.Errorf("delay goroutines after ShutDown = %d, want 0", n)
		}
	})
}

// delayLoops counts the goroutines running a queue's delay loop.
func delayLoops() int { return stacks.Count("queue.(*Queue[...]).delayLoop(") }

// TestManyProducersAndConsumers checks, under -race, that no item is handed
// to two workers at once and that every item added is processed after its
// last add.
func TestManyProducersAndConsumers(t *testing.T) {
	const (
		producers = 8
		consumers = 8
		perProd   = 2000
		keys      = 50
	)
	q := newQueue(t, Options[string]{})
	var (
		mu        sync.Mutex
		inFlight  = map[string]bool{}
		lastAdd   = map[string]int{} // sequence of the last add of each key
		processed = map[string]int{} // sequence seen by the last Get of each key
		seq       int
		failures  atomic.Int32
	)
	var workers sync.WaitGroup
	for range consumers {
		workers.Go(func() {
			for {
				item, ok := q.Get()
				if !ok {
					return
				}
				mu.Lock()
				if inFlight[item] {
					failures.Add(1)
				}
				inFlight[item] = true
				processed[item] = seq
				mu.Unlock()
				runtime.Gosched()
				mu.Lock()
				inFlight[item] = false
				mu.Unlock()
				q.Done(item)
			}
		})
	}
	var prods sync.WaitGroup
	for p := range producers {
		prods.Go(func() {
			for i := range perProd {
				k := "k" + strconv.Itoa((p*perProd+i)%keys)
				mu.Lock()
				seq++
				lastAdd[k] = seq
				// Add under mu so that seq orders adds and Gets consistently.
				q.Add(k)
				mu.Unlock()
			}
		})
	}
	prods.Wait()
	if err := waitIdle(q); err != nil {
		t.Fatal(err)
	}
	q.ShutDown()
	workers.Wait()
	if n := failures.Load(); n > 0 {
		t.Errorf("an item was handed to two workers at once %d times, want 0", n)
	}
	for k, s := range lastAdd {
		if processed[k] < s {
			t.Errorf("last Get of %q saw sequence %d, want >= %d (its last add)", k, processed[k], s)
		}
	}
}

// waitIdle waits, without sleeping, until nothing is queued or processing.
func waitIdle[K comparable](q *Queue[K]) error {
	for i := 0; ; i++ {
		q.mu.Lock()
		idle := q.depth == 0 && q.processing == 0
		q.mu.Unlock()
		if idle {
			return nil
		}
		if i > 10_000_000 {
			return fmt.Errorf("queue not idle after %d checks", i)
		}
		runtime.Gosched()
	}
}
