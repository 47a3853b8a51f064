// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"net/http"
)

// This file says what the manager runs and decides, in one place, what
// kind of runnable each one is: the methods a runnable may have besides
// Start, read once when it is added.

// Runnable is anything the manager runs: Start runs until ctx is done and
// returns after it has stopped everything it started. An error returned
// while ctx is live stops the manager; ctx's own error returned after ctx
// is done is not a failure.
//
// A Runnable may also have the methods below, which the manager reads
// once, when the runnable is added (see classify):
//
//   - NeedLeaderElection() bool: false runs it on every replica, as soon
//     as the caches have synced; true, or no such method, runs it only on
//     the leader (see [LeaderElectionRunnable]);
//   - WaitForSync(ctx context.Context) error: it is a cache, started with
//     the manager's caches, and everything else waits for it to sync;
//   - Warmup(ctx context.Context) error: with leader election, a runnable
//     that needs it is warmed up on every replica once the caches have
//     synced, while the campaign runs: Warmup should make the informers
//     Start will use and wait for them to sync (as controller-runtime's
//     WarmupRunnable), so that a replica elected later starts at once.
//     Warmup's ctx is done when the manager stops; an error stops it.
//   - Name() string: its name in errors and logs (else its type); with
//     CollectMetrics ([MetricsCollector]) too, it is a controller, added
//     as [Manager.AddController] adds it;
//   - Listen() error: it is a server (the webhook server, package
//     manager/pprof's): it runs with Options.WebhookServer, started
//     first and stopped last, on every replica, and Listen binds its
//     address first thing in Start (an address in use fails Start);
//   - StartedChecker() func(*http.Request) error, for the webhook server
//     (Options.WebhookServer): the checker joins readiness as "webhook".
type Runnable interface {
	Start(ctx context.Context) error
}

// RunnableFunc is a [Runnable] made of a func.
type RunnableFunc func(ctx context.Context) error

// Start implements [Runnable].
func (f RunnableFunc) Start(ctx context.Context) error {
	if f == nil {
		return errors.New("manager.RunnableFunc is nil")
	}
	return f(ctx)
}

// LeaderElectionRunnable is a [Runnable] that says whether it needs leader
// election: a controller is one. It is an alias of an interface literal,
// which package controller's Manager interface spells out in its
// AddController method, so that a *Manager satisfies that interface
// without either package importing the other. This is the type's one
// name.
type LeaderElectionRunnable = interface {
	Start(ctx context.Context) error
	NeedLeaderElection() bool
}

// The optional methods of a runnable, one interface each (see
// [Runnable]).
type (
	leaderElection interface{ NeedLeaderElection() bool }
	syncer         interface {
		WaitForSync(ctx context.Context) error
	}
	warmer interface {
		Warmup(ctx context.Context) error
	}
	named    interface{ Name() string }
	listener interface{ Listen() error }
	checker  interface {
		StartedChecker() func(*http.Request) error
	}
)

// runnable is a runnable with what the manager knows of it.
type runnable struct {
	r    Runnable
	name string // in errors and logs: its Name in quotes and its type, or its type

	// cache is set for a cache (WaitForSync): it starts with the caches,
	// and everything else waits for it.
	cache syncer
	// onEveryReplica is set when NeedLeaderElection reports false.
	onEveryReplica bool
	// warmup is the Warmup method of a runnable that needs the lease; nil
	// without one.
	warmup warmer
	// controller is set for a controller: a named runnable that writes
	// its own metrics (see [Manager.Add]).
	controller bool
	metrics    MetricsCollector
	// key is the name a controller was added under (AddController);
	// sharded is set for a sharded controller (AddShardedController).
	key     string
	sharded bool
	// listen and ready are the webhook server's Listen and StartedChecker
	// methods; nil without them.
	listen listener
	ready  checker
}

// classify reads what kind of runnable r is from the methods it has: the
// one place where the manager asks.
func classify(r Runnable) runnable {
	c := runnable{r: r, name: fmt.Sprintf("%T", r)}
	n, isNamed := r.(named)
	if isNamed {
		c.name = fmt.Sprintf("%q (%T)", n.Name(), r)
	}
	c.cache, _ = r.(syncer)
	le, ok := r.(leaderElection)
	c.onEveryReplica = ok && !le.NeedLeaderElection()
	c.warmup, _ = r.(warmer)
	c.metrics, _ = r.(MetricsCollector)
	c.controller = isNamed && c.metrics != nil
	c.listen, _ = r.(listener)
	c.ready, _ = r.(checker)
	return c
}

// groupFor returns the group r belongs to: the caches, the servers (with
// the webhook server), the runnables that run on every replica, or those
// that need the lease.
func (m *Manager) groupFor(r runnable) *group {
	switch {
	case r.cache != nil:
		return m.caches
	case r.listen != nil:
		return m.webhooks
	case r.onEveryReplica:
		return m.others
	}
	return m.leaders
}
