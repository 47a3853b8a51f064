// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/queue"
)

// DefaultCacheSyncTimeout is how long [Controller.Start] waits for its
// sources to sync when [Options.CacheSyncTimeout] is zero (as
// controller-runtime).
const DefaultCacheSyncTimeout = 2 * time.Minute

// Options configure a [Controller]. The zero value is valid: every field
// has a documented default.
type Options struct {
	// MaxConcurrentReconciles is the number of workers: how many requests
	// are reconciled at once (never the same one twice). Zero means 1.
	MaxConcurrentReconciles int

	// CacheSyncTimeout bounds the wait of Start for its sources to sync
	// before workers start. Zero means [DefaultCacheSyncTimeout].
	CacheSyncTimeout time.Duration

	// RateLimiter decides how long a request that failed (or returned
	// [RequeueRateLimited]) waits. Nil means [queue.NewDefaultRateLimiter]: the longer
	// of a per-request exponential backoff from 5ms doubling to 1000s and
	// an overall 10 qps bucket with a burst of 100.
	RateLimiter queue.RateLimiter[Request]

	// MaxPriorityWait is the queue's aging bound (see package queue): how
	// long a low-priority request (initial list, resync) may be passed
	// over. Zero means [queue.DefaultMaxPriorityWait].
	MaxPriorityWait time.Duration

	// RecoverPanic says whether a panic in Reconcile is recovered and
	// handled as an error (the default, nil or true) or, once counted and
	// logged, re-raised, which ends the program.
	RecoverPanic *bool

	// ReconcileTimeout, when positive, bounds each call of Reconcile: its
	// context is done once the timeout passes, and the call is counted in
	// controller_runtime_reconcile_timeouts_total.
	ReconcileTimeout time.Duration

	// NeedLeaderElection is what [Controller.NeedLeaderElection] reports:
	// nil means true, so a manager runs the controller only while it
	// leads.
	NeedLeaderElection *bool

	// ReconcileStale turns off the stale-safe reconciles of a controller a
	// [Builder] makes (see the package doc): requests are reconciled at
	// once even when the cache does not hold yet this process's own
	// writes to the object or to the objects it owns.
	ReconcileStale bool

	// Logger receives the controller's logs, with the key "controller";
	// nil discards them. Reconciles log errors at error level and their
	// outcome at debug level, with "key" and "reconcileID".
	Logger *slog.Logger
}

// Controller reconciles the requests its sources queue, with a pool of
// workers. Make one with [New] or a [Builder], add sources with
// [Controller.Watch], and run it with [Controller.Start].
type Controller struct {
	// Immutable after New.
	name             string
	do               Reconciler
	workers          int
	syncTimeout      time.Duration
	reconcileTimeout time.Duration
	recoverPanic     bool
	needLeader       bool
	log              *slog.Logger
	q                *queue.Queue[Request]
	m                *metrics
	// stale, when set (by a Builder), defers the requests whose objects'
	// writes the cache does not hold yet.
	stale *staleGate

	mu sync.Mutex
	// phase moves from idle to running (Start) to stopped (Start's
	// context done or a failure); it never goes back.
	phase phase
	// sources are those watched before Start, which Start runs and waits
	// for. Nil once running.
	sources []Source
	// pending are sources watched while running, not yet started: Start's
	// loop takes them, woken through wake (room for one token).
	pending []Source
	wake    chan struct{}
}

type phase uint8

const (
	idle phase = iota
	running
	stopped
)

// New makes a controller named name (a label of its metrics and logs,
// unique within a manager) that calls r. It does no I/O and starts no
// goroutine. It fails when name is empty, r is nil, or a field of opts is
// negative.
func New(name string, r Reconciler, opts Options) (*Controller, error) {
	if name == "" {
		return nil, errors.New("new controller: name is empty")
	}
	if r == nil {
		return nil, errs.Errorf("new controller %q: reconciler is nil", name)
	}
	for _, f := range []struct {
		field string
		bad   bool
		value any
	}{
		{"MaxConcurrentReconciles", opts.MaxConcurrentReconciles < 0, opts.MaxConcurrentReconciles},
		{"CacheSyncTimeout", opts.CacheSyncTimeout < 0, opts.CacheSyncTimeout},
		{"ReconcileTimeout", opts.ReconcileTimeout < 0, opts.ReconcileTimeout},
		{"MaxPriorityWait", opts.MaxPriorityWait < 0, opts.MaxPriorityWait},
	} {
		if f.bad {
			return nil, errs.Errorf("new controller %q: Options.%s is %v, want >= 0", name, f.field, f.value)
		}
	}
	q, err := queue.New(queue.Options[Request]{Name: name, RateLimiter: opts.RateLimiter, MaxPriorityWait: opts.MaxPriorityWait})
	if err != nil {
		return nil, errs.Errorf("new controller %q: %w", name, err)
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		name:             name,
		do:               r,
		workers:          max(opts.MaxConcurrentReconciles, 1),
		syncTimeout:      opts.CacheSyncTimeout,
		reconcileTimeout: opts.ReconcileTimeout,
		recoverPanic:     opts.RecoverPanic == nil || *opts.RecoverPanic,
		needLeader:       opts.NeedLeaderElection == nil || *opts.NeedLeaderElection,
		log:              log.With("controller", name),
		q:                q,
		m:                newMetrics(),
		wake:             make(chan struct{}, 1),
	}
	if c.syncTimeout == 0 {
		c.syncTimeout = DefaultCacheSyncTimeout
	}
	return c, nil
}

// Name returns the controller's name.
func (c *Controller) Name() string {
	if !c.made() {
		return ""
	}
	return c.name
}

// NeedLeaderElection reports whether the controller must run only on the
// leader ([Options.NeedLeaderElection], true by default). A manager
// checks it to gate Start.
func (c *Controller) NeedLeaderElection() bool {
	if !c.made() {
		return false
	}
	return c.needLeader
}

// Watch adds a source of requests.
//
// Before Start, the source is run by Start, which waits for it to sync
// before starting workers; a failure to run it fails Start.
//
// While the controller runs, the source is started at once (by Start's
// goroutine) and Watch returns without waiting for it: workers are
// running and take its requests as they come. Its sync is awaited in the
// background for [Options.CacheSyncTimeout]; a source that fails to run
// or to sync in time is logged at error level and the controller carries
// on without it.
//
// Watch fails once Start has returned, and for a nil source.
func (c *Controller) Watch(src Source) error {
	if !c.made() {
		return errNoController
	}
	if src == nil {
		return errs.Errorf("watch in controller %q: source is nil", c.name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	switch c.phase {
	case idle:
		c.sources = append(c.sources, src)
	case running:
		c.pending = append(c.pending, src)
		select {
		case c.wake <- struct{}{}:
		default: // a token is there already
		}
	default:
		return errs.Errorf("watch %s in controller %q: controller stopped", src, c.name)
	}
	return nil
}

// Start runs the controller until ctx is done: it runs the sources, waits
// up to [Options.CacheSyncTimeout] for them to sync, starts
// MaxConcurrentReconciles workers, and reconciles. Once ctx is done it
// stops taking work (the queue shuts down and drops what is queued), waits
// for the reconciles in flight (their context is done too) and for the
// sources, and returns nil.
//
// It returns an error, after stopping everything it started, when it was
// started before, when a source watched before Start fails, or when they
// do not sync in time (the error names the source's kind).
func (c *Controller) Start(ctx context.Context) error {
	if !c.made() {
		return errNoController
	}
	c.mu.Lock()
	if c.phase != idle {
		c.mu.Unlock()
		return errs.Errorf("start controller %q: started before", c.name)
	}
	c.phase = running
	sources := c.sources
	c.sources = nil
	c.mu.Unlock()

	runCtx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	// failed receives the errors of the sources watched before Start;
	// it has room for all, so no source waits on it.
	failed := make(chan error, len(sources))
	for _, src := range sources {
		wg.Go(func() {
			if err := src.Run(runCtx, c.q); err != nil {
				failed <- err
			}
		})
	}
	err := c.waitForSync(runCtx, sources, failed)
	if err == nil {
		c.log.Info("starting workers", "workers", c.workers)
		for range c.workers {
			wg.Go(func() { c.work(runCtx) })
		}
		err = c.loop(runCtx, &wg, failed)
	}

	c.mu.Lock()
	c.phase = stopped
	c.pending = nil
	c.mu.Unlock()
	c.log.Info("stopping: waiting for reconciles in flight")
	stop()
	c.q.ShutDown()
	wg.Wait()
	if c.stale != nil {
		c.stale.wait()
	}
	c.log.Info("stopped")
	if ctx.Err() != nil {
		return nil // asked to stop, maybe while waiting for a sync: not a failure
	}
	return err
}

// waitForSync waits for every source to sync, within the sync timeout,
// or for one of them to fail.
func (c *Controller) waitForSync(ctx context.Context, sources []Source, failed <-chan error) error {
	if len(sources) == 0 {
		return nil
	}
	syncCtx, cancel := context.WithTimeout(ctx, c.syncTimeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { // waited for below in both cases
		for _, src := range sources {
			if err := src.WaitForSync(syncCtx); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	var err error
	select {
	case err = <-done:
	case err = <-failed:
		cancel()
		<-done
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return errs.Errorf("start controller %q: sources not synced within CacheSyncTimeout %v: %w", c.name, c.syncTimeout, err)
	}
	return errs.Errorf("start controller %q: %w", c.name, err)
}

// loop starts the sources watched while running until ctx is done or a
// source watched before Start fails.
func (c *Controller) loop(ctx context.Context, wg *sync.WaitGroup, failed <-chan error) error {
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return errs.Errorf("run controller %q: %w", c.name, err)
		case <-c.wake:
		}
		c.mu.Lock()
		added := c.pending
		c.pending = nil
		c.mu.Unlock()
		for _, src := range added {
			wg.Go(func() {
				if err := src.Run(ctx, c.q); err != nil {
					c.log.Error("source failed", "source", src.String(), "err", err)
				}
			})
			wg.Go(func() {
				syncCtx, cancel := context.WithTimeout(ctx, c.syncTimeout)
				defer cancel()
				// A failure to run is logged above; log only the timeout.
				if err := src.WaitForSync(syncCtx); err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
					c.log.Error("source not synced within CacheSyncTimeout", "source", src.String(), "timeout", c.syncTimeout, "err", err)
				}
			})
		}
	}
}

// Metrics returns a snapshot of the controller's metrics, its queue's
// included. The caller owns it.
func (c *Controller) Metrics() Metrics {
	if !c.made() {
		return Metrics{}
	}
	s := c.m.snapshot()
	s.Name = c.name
	s.MaxConcurrentReconciles = c.workers
	s.Queue = c.q.Metrics()
	return s
}
