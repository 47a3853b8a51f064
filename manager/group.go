// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"sync"
)

// errStopped is returned when a runnable is added to a manager that has
// stopped.
var errStopped = errors.New("the manager has stopped")

// group is a set of runnables started together with one context and
// stopped together by cancelling it: the webhook server, the caches, the
// runnables that run on every replica, the ones that need the lease.
type group struct {
	name string
	log  *slog.Logger

	mu sync.Mutex
	// state moves from idle to running (run) to stopped (run's context
	// done, or close); no runnable is accepted once stopped.
	state groupState
	// pending are runnables added and not started; run starts them, woken
	// through wake (room for one token).
	pending []*entry
	// running are the runnables started, stopped or not, in start order.
	running []*entry
	wake    chan struct{}
}

type groupState uint8

const (
	groupIdle groupState = iota
	groupRunning
	groupStopped
)

// entry is one runnable of a group.
type entry struct {
	runnable               // what the runnable is, read when it was added
	done     chan struct{} // closed when Start has returned
	// stop cancels the context of the runnable's Start alone; set, under
	// group.mu, when run starts it.
	stop context.CancelFunc
}

// newGroup returns an empty group named name, logging to log.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func newGroup(name string, log *slog.Logger) *group {
	return &group{name: name, log: log, wake: make(chan struct{}, 1)}
}

// add queues r to be started with the group (at once if it runs). It
// fails once the group has stopped.
func (g *group) add(r runnable) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.state == groupStopped {
		return errStopped
	}
	g.pending = append(g.pending, &entry{runnable: r, done: make(chan struct{})})
	select {
	case g.wake <- struct{}{}:
	default:
	}
	return nil
}

// run starts the runnables added so far with ctx, calls started, then
// starts each one added later, until ctx is done. It returns then, without
// waiting for the runnables (see wait); runnables still pending are never
// started. fail gets the error of each runnable that fails.
func (g *group) run(ctx context.Context, fail func(error), started func()) {
	defer g.close()
	g.mu.Lock()
	if g.state != groupIdle {
		g.mu.Unlock()
		started()
		return
	}
	g.state = groupRunning
	g.mu.Unlock()
	for first := true; ; first = false {
		g.mu.Lock()
		if ctx.Err() != nil {
			g.mu.Unlock()
			if first {
				started()
			}
			return
		}
		for _, e := range g.pending {
			g.log.Debug("starting runnable", "runnable", e.name, "group", g.name)
			var ectx context.Context
			ectx, e.stop = context.WithCancel(ctx)
			go e.start(ectx, fail)
		}
		g.running = append(g.running, g.pending...)
		g.pending = nil
		g.mu.Unlock()
		if first {
			started()
		}
		select {
		case <-g.wake:
		case <-ctx.Done():
		}
	}
}

// start runs the runnable and reports its failure.
func (e *entry) start(ctx context.Context, fail func(error)) {
	defer close(e.done)
	err := e.r.Start(ctx)
	if err != nil && (ctx.Err() == nil || !errors.Is(err, ctx.Err())) {
		fail(errs.Errorf("run %s: %w", e.name, err))
	}
	e.stop() // release the context
}

// close stops the group from taking runnables; those pending are dropped.
func (g *group) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.state = groupStopped
	g.pending = nil
}

// pendingRunnables returns the runnables added and not started yet.
func (g *group) pendingRunnables() []runnable {
	g.mu.Lock()
	defer g.mu.Unlock()
	out := make([]runnable, len(g.pending))
	for i, e := range g.pending {
		out[i] = e.runnable
	}
	return out
}

// entries returns the runnables started so far.
func (g *group) entries() []*entry {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]*entry(nil), g.running...)
}

// wait waits until every runnable started has returned, or deadline is
// closed; it returns what has not returned then, named with the group.
func (g *group) wait(deadline <-chan struct{}) []string {
	var late []string
	for _, e := range g.entries() {
		select {
		case <-e.done:
		case <-deadline:
			select {
			case <-e.done:
			default:
				late = append(late, fmt.Sprintf("%s in group %s", e.name, g.name))
			}
		}
	}
	return late
}
