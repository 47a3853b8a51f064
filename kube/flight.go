// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"sync"
	"time"
)

// flightGroup shares a slow call (a discovery refresh, a credential plugin
// run) among the callers that need it at the same time: the first caller
// for a key starts the call, and every caller for that key until it ends
// waits for the same result.
//
// The call runs in a goroutine of its own, with a context that keeps the
// starting caller's values but not its cancellation or deadline, bounded
// by the timeout given instead. So a caller that gives up (its context
// ends) returns at once with its context's error and leaves the call
// running for the others, and a call that outlives every caller still
// ends at its timeout, if it honours its context. That goroutine is the
// only one the call adds, and it ends when the call returns.
//
// The zero value is ready to use; a flightGroup must not be copied.
type flightGroup[T any] struct {
	mu    sync.Mutex
	calls map[string]*flight[T] // the calls running now, by key
}

// flight is one call; val and err are set before done is closed.
type flight[T any] struct {
	done chan struct{}
	val  T
	err  error
}

// do returns the result of fn for key: of the call running now for key
// if there is one, else of a new call of fn, started now. It waits for
// the call or for ctx, whichever ends first.
func (g *flightGroup[T]) do(ctx context.Context, key string, timeout time.Duration, fn func(context.Context) (T, error)) (T, error) {
	g.mu.Lock()
	f := g.calls[key]
	if f == nil {
		f = &flight[T]{done: make(chan struct{})}
		if g.calls == nil {
			g.calls = make(map[string]*flight[T])
		}
		g.calls[key] = f
		run, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
		go func() {
			defer cancel()
			f.val, f.err = fn(run)
			g.mu.Lock()
			delete(g.calls, key)
			g.mu.Unlock()
			close(f.done)
		}()
	}
	g.mu.Unlock()
	select {
	case <-f.done:
		return f.val, f.err
	case <-ctx.Done():
		select {
		case <-f.done: // both ended: the result is worth more
			return f.val, f.err
		default:
		}
		var zero T
		return zero, ctx.Err()
	}
}
