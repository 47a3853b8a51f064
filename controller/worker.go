// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/queue"
)

// work is one worker: it takes requests until the queue shuts down. The
// queue never hands the same request to two workers at once.
func (c *Controller) work(ctx context.Context) {
	for {
		req, ok := c.q.Get()
		if !ok {
			return
		}
		if ctx.Err() != nil { // stopping: what is queued is dropped, not reconciled
			c.q.Done(req)
			return
		}
		if c.stale != nil && !c.stale.admit(ctx, req, c.q.Add) {
			c.m.deferredStale.Add(1)
			c.q.Done(req)
			continue
		}
		c.m.active.Add(1)
		c.handle(ctx, req)
		c.m.active.Add(-1)
		c.q.Done(req)
	}
}

// handle reconciles req and acts on the outcome (see [Reconciler]).
func (c *Controller) handle(ctx context.Context, req Request) {
	ctx, rc := withReconcileInfo(ctx, c.log, req)
	start := time.Now()
	res, err := c.reconcile(ctx, req)
	took := time.Since(start)

	var o outcome
	switch {
	case err != nil:
		o = outcomeError
		log := rc.logger()
		if !res.IsZero() {
			log.Warn("reconciler returned both a result and an error: the result is ignored, the error is retried with backoff",
				"requeueRateLimited", res.rateLimited, "requeueAfter", res.RequeueAfter)
		}
		attrs := []any{"err", err}
		if pe, ok := errs.As[*panicError](err); ok {
			attrs = append(attrs, "stack", string(pe.stack))
		}
		if errors.Is(err, ErrTerminal) {
			o = outcomeTerminal
			c.q.Forget(req)
			log.Error("reconciler error: terminal, not retried", attrs...)
		} else if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
			// The controller is stopping: the reconcile was cut short, not
			// broken. The queue is shut down, so nothing is retried.
			log.Info("reconcile cut short by shutdown", attrs...)
		} else {
			c.q.AddWithOptions(req, queue.AddOptions{Priority: res.Priority, RateLimited: true})
			log.Error("reconciler error", attrs...)
		}
	case res.RequeueAfter > 0:
		o = outcomeRequeueAfter
		c.q.Forget(req)
		c.q.AddWithOptions(req, queue.AddOptions{Priority: res.Priority, After: res.RequeueAfter})
		c.debug(ctx, rc, "reconciled: requeue after", "after", res.RequeueAfter, "took", took)
	case res.rateLimited:
		o = outcomeRequeue
		c.q.AddWithOptions(req, queue.AddOptions{Priority: res.Priority, RateLimited: true})
		c.debug(ctx, rc, "reconciled: requeue", "took", took)
	default:
		o = outcomeSuccess
		c.q.Forget(req)
		c.debug(ctx, rc, "reconciled", "took", took)
	}
	c.m.record(o, took)
}

// debug logs at debug level with the reconcile's logger, made only if
// the controller's logger takes debug records.
func (c *Controller) debug(ctx context.Context, rc *reconcileInfo, msg string, args ...any) {
	if c.log.Enabled(ctx, slog.LevelDebug) {
		rc.logger().Debug(msg, args...)
	}
}

// reconcile calls the reconciler with the reconcile timeout, turning a
// panic into an error unless told not to.
func (c *Controller) reconcile(ctx context.Context, req Request) (res Result, err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		c.m.panics.Add(1)
		if !c.recoverPanic {
			LoggerFrom(ctx).Error("panic in reconciler: re-raising (Options.RecoverPanic is false)", "panic", fmt.Sprint(r))
			panic(r)
		}
		res, err = Result{}, &panicError{value: r, stack: debug.Stack()}
	}()
	if c.reconcileTimeout <= 0 {
		return c.do.Reconcile(ctx, req)
	}
	tctx, cancel := context.WithTimeout(ctx, c.reconcileTimeout)
	defer cancel()
	res, err = c.do.Reconcile(tctx, req)
	// Counted when the timeout ended the reconcile's context, not when
	// the controller's context was done first.
	if tctx.Err() == context.DeadlineExceeded && ctx.Err() == nil {
		c.m.timeouts.Add(1)
	}
	return res, err
}

// panicError is a recovered panic, handled as a reconcile error. The
// stack is logged with it.
type panicError struct {
	value any
	stack []byte
}

func (e *panicError) Error() string { return fmt.Sprintf("panic: %v [recovered]", e.value) }

// Unwrap returns the panic value if it is an error (panic(err)).
func (e *panicError) Unwrap() error {
	err, _ := e.value.(error)
	return err
}
