// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kubeloop/kubeloop/leader"
)

// This file is the manager's life: the start sequence, leader gating, the
// stop sequence, which runs the start sequence backwards, and the signals
// that begin it.

// Start runs everything until ctx is done or something fails, then stops
// it all and returns. With Options.Permissions it first checks that the
// manager may do what it will do, and returns the missing rules having
// started nothing. It then opens the metrics and health listeners and
// has the webhook server bind its address: if one cannot (an address in
// use), Start returns at once an error naming the option
// (MetricsBindAddress, HealthProbeBindAddress or WebhookServer), having
// started nothing and left nothing open. Then, in order, it starts:
//
//  1. the metrics and health servers (stopped last, so that probes answer
//     during shutdown) and the event recorder;
//  2. the webhook server (Options.WebhookServer);
//  3. the caches, and waits for them to sync;
//  4. the runnables that do not need leader election, sharded controllers
//     among them, and with Options.Sharding the ring member;
//  5. with leader election, the warm-up of the runnables that need it
//     (their Warmup methods) and the campaign for the Lease; the runnables
//     that need it start once it is won (and [Manager.Elected] is
//     closed). Without, they start at once.
//
// Once ctx is done, Start stops the groups in the reverse order, each
// waiting for the previous one: the leader runnables (which finish their
// reconciles in flight), the Lease (released if ReleaseOnCancel), the
// warm-ups, the ring membership (each range released once its reconciles
// in flight have ended, then the member's Lease deleted), the other
// runnables, the event recorder (which writes what it
// holds), the caches, the webhook server, and last the metrics and health
// servers.
// The whole stop takes at most Options.GracefulShutdownTimeout; then
// Start returns an error naming what had not stopped.
//
// A runnable that fails (returns an error while its context is live)
// stops the manager the same way; its error is returned, joined with any
// error of the stop. Losing the Lease cancels the leader runnables at once
// and stops the manager with an error wrapping [leader.ErrLeadershipLost]:
// the process should then exit, so that it restarts as a fresh candidate
// (see the package Example). Start returns nil after a clean stop on ctx.
// It may be called once.
func (m *Manager) Start(ctx context.Context) error {
	if !m.made() {
		return errs.Errorf("start manager: %w", errNoManager)
	}
	if !m.started.CompareAndSwap(false, true) {
		return errors.New("start manager: Start was called before")
	}
	m.log.Info("starting manager")
	if m.opts.Permissions != nil {
		if err := m.opts.Permissions.checkPermissions(ctx, m); err != nil {
			return errs.Errorf("start manager: %w", err)
		}
	}
	if err := m.listen(); err != nil {
		return errs.Errorf("start manager: %w", err)
	}
	// The groups get contexts of their own, so that they stop one after the
	// other; they keep ctx's values.
	base := context.WithoutCancel(ctx)
	s := stopper{stopWarmups: func() {}, warmupsDone: closed(), stopRing: func() {}, ringDone: closed()}
	s.servers = m.serve()

	var eventsCtx context.Context
	eventsCtx, s.stopEvents = context.WithCancel(base)
	s.eventsDone = make(chan struct{})
	go func() {
		defer close(s.eventsDone)
		m.events.run(eventsCtx)
	}()

	s.stopWebhooks = m.startGroup(base, m.webhooks)
	s.stopCaches = m.startGroup(base, m.caches)
	var leaderCtx context.Context
	leaderCtx, s.stopLeaders = context.WithCancel(base)
	s.electorDone = make(chan struct{})
	if !m.waitForCaches(ctx) {
		s.stopOthers = func() {}
		close(s.electorDone)
	} else {
		s.stopOthers = m.startGroup(base, m.others)
		s.stopRing, s.ringDone = m.startRing(base)
		if m.election != nil {
			var warmCtx context.Context
			warmCtx, s.stopWarmups = context.WithCancel(base)
			s.warmupsDone = m.warmup(warmCtx)
			go func() {
				defer close(s.electorDone)
				if err := m.election.Run(leaderCtx); err != nil {
					m.fail.add(errs.Errorf("run leader election: %w", err))
				}
			}()
		} else {
			close(s.electorDone)
			m.startGroupWith(leaderCtx, m.leaders)
			m.markElected()
		}
	}

	select {
	case <-ctx.Done():
		m.log.Info("stopping manager: context done")
	case <-m.fail.stop:
		m.log.Info("stopping manager: a runnable failed or leadership was lost")
	}
	return m.stop(&s)
}

// stopper holds what Start must stop, in the order it stops them.
type stopper struct {
	stopLeaders  context.CancelFunc // the elector's context, or the leader group's
	electorDone  chan struct{}      // closed when the elector's Run has returned
	stopWarmups  context.CancelFunc
	warmupsDone  <-chan struct{}
	stopRing     context.CancelFunc // the ring member's context
	ringDone     <-chan struct{}    // closed when the member has left
	stopOthers   context.CancelFunc
	stopEvents   context.CancelFunc
	eventsDone   chan struct{}
	stopCaches   context.CancelFunc
	stopWebhooks context.CancelFunc
	servers      []*server
}

// startGroup runs g with a context of its own, derived from base, and
// returns once g has started the runnables added so far.
func (m *Manager) startGroup(base context.Context, g *group) context.CancelFunc {
	ctx, cancel := context.WithCancel(base)
	m.startGroupWith(ctx, g)
	return cancel
}

func (m *Manager) startGroupWith(ctx context.Context, g *group) {
	started := make(chan struct{})
	go g.run(ctx, m.fail.add, func() { close(started) })
	<-started
}

// waitForCaches waits until every runnable of the caches group has
// synced. It reports false when ctx is done or something failed first.
func (m *Manager) waitForCaches(ctx context.Context) bool {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-m.fail.stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	for _, e := range m.caches.entries() {
		if e.cache == nil {
			continue
		}
		if err := e.cache.WaitForSync(ctx); err != nil {
			if ctx.Err() == nil {
				m.fail.add(errs.Errorf("wait for %s to sync: %w", e.name, err))
			}
			return false
		}
	}
	m.synced.Store(true)
	m.log.Info("caches synced")
	return true
}

// warmup calls Warmup, on every replica, for each runnable waiting for
// the lease that has the method (see [Runnable]), all at once, and returns
// a channel closed when they have all returned. A Warmup that fails stops
// the manager.
func (m *Manager) warmup(ctx context.Context) <-chan struct{} {
	var wg sync.WaitGroup
	for _, r := range m.leaders.pendingRunnables() {
		if r.warmup == nil {
			continue
		}
		wg.Go(func() {
			if err := r.warmup.Warmup(ctx); err != nil && ctx.Err() == nil {
				m.fail.add(errs.Errorf("warm up %s: %w", r.name, err))
			}
		})
	}
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	return done
}

// startRing runs the ring member, if the manager shards, until the
// returned cancel is called; the channel is closed once it has left the
// ring (released its ranges as their reconciles ended, and deleted its
// Lease). It runs once the caches have synced, beside the runnables that
// need no leader, among them the sharded controllers.
func (m *Manager) startRing(base context.Context) (context.CancelFunc, <-chan struct{}) {
	if m.ring == nil {
		return func() {}, closed()
	}
	ctx, cancel := context.WithCancel(base)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := m.ring.run(ctx); err != nil {
			m.fail.add(err)
		}
	}()
	return cancel, done
}

func closed() <-chan struct{} {
	ch := make(chan struct{})
	close(ch)
	return ch
}

// lead is the elector's OnStartedLeading: it runs the leader runnables
// until term ends (leadership lost, or the manager stopping), then waits
// for all of them to return, so that a release of the Lease comes after.
func (m *Manager) lead(term context.Context) {
	m.log.Info("elected: starting the runnables that need leader election")
	m.leaders.run(term, m.fail.add, func() {
		if !m.stopping.Load() { // not elected into a manager that stops
			m.markElected()
		}
	})
	for _, e := range m.leaders.entries() {
		<-e.done
	}
}

// stoppedLeading is the elector's OnStoppedLeading: leadership ending
// while the manager is not stopping is a loss, which stops it.
func (m *Manager) stoppedLeading() {
	if !m.stopping.Load() {
		m.log.Info("leadership lost: stopping the manager")
		m.lost.Store(true)
		m.fail.trigger()
	}
}

func (m *Manager) markElected() { m.electedOnce.Do(func() { close(m.elected) }) }

// stop runs the stop sequence within GracefulShutdownTimeout and returns
// the failures joined with what did not stop. Once the timeout has passed,
// the stages left are still cancelled but no longer waited for.
func (m *Manager) stop(s *stopper) error {
	m.stopping.Store(true)
	timeout := m.opts.GracefulShutdownTimeout
	deadline, cancel := context.Background(), context.CancelFunc(func() {})
	if timeout > 0 {
		deadline, cancel = context.WithTimeout(deadline, timeout)
	}
	defer cancel()
	waitChan := func(what string, done <-chan struct{}) func(<-chan struct{}) []string {
		return func(deadline <-chan struct{}) []string {
			select {
			case <-done:
				return nil
			case <-deadline:
				select {
				case <-done:
					return nil
				default:
					return []string{what}
				}
			}
		}
	}
	stages := []struct {
		name string
		stop func()
		wait func(deadline <-chan struct{}) []string
	}{
		{"leader-election runnables", func() { s.stopLeaders(); m.leaders.close() }, m.leaders.wait},
		{"leader election", func() {}, waitChan("leader election", s.electorDone)},
		{"warm-ups", s.stopWarmups, waitChan("warm-ups", s.warmupsDone)},
		{"ring membership", s.stopRing, waitChan("ring membership", s.ringDone)},
		{"other runnables", func() { s.stopOthers(); m.others.close() }, m.others.wait},
		{"event recorder", s.stopEvents, waitChan("event recorder", s.eventsDone)},
		{"caches", func() { m.synced.Store(false); s.stopCaches() }, m.caches.wait},
		{"webhook server", s.stopWebhooks, m.webhooks.wait},
	}
	var late, unwaited []string
	for _, st := range stages {
		st.stop()
		expired := deadline.Err() != nil
		pending := st.wait(deadline.Done())
		switch {
		case !expired:
			late = append(late, pending...)
		case len(pending) > 0:
			unwaited = append(unwaited, st.name)
		}
	}
	m.shutdownServers(deadline, s.servers)

	errs := m.fail.all()
	if m.lost.Load() && !errors.Is(errors.Join(errs...), leader.ErrLeadershipLost) {
		errs = append(errs, fmt.Errorf("run leader election: %w", leader.ErrLeadershipLost))
	}
	if len(late) > 0 || len(unwaited) > 0 {
		msg := fmt.Sprintf("stop manager: not stopped within GracefulShutdownTimeout %v: %s",
			timeout.Round(time.Millisecond), strings.Join(late, ", "))
		if len(unwaited) > 0 {
			msg += "; then stopped without waiting: " + strings.Join(unwaited, ", ")
		}
		errs = append(errs, errors.New(msg))
	}
	m.log.Info("manager stopped")
	return errors.Join(errs...)
}

// SetupSignalHandler returns a context cancelled on the first SIGINT or
// SIGTERM; a second one exits the process with code 1 at once, for an
// operator who does not want to wait for a graceful stop. Call it once,
// in main: it listens for the signals for the life of the process.
func SetupSignalHandler() context.Context {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return signalContext(ch, os.Exit)
}

// signalContext is SetupSignalHandler with the signals and the exit
// function passed in, for tests. Its goroutine ends at the second signal
// (after calling exit) or when ch is closed.
func signalContext(ch <-chan os.Signal, exit func(code int)) context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		if _, ok := <-ch; !ok {
			return
		}
		cancel()
		if _, ok := <-ch; ok {
			exit(1)
		}
	}()
	return ctx
}
