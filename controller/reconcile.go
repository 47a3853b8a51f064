// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// Request names the object a reconcile is about: its namespace (empty for
// a cluster-scoped kind) and name. It is the controller's queue key, so a
// request queued many times is reconciled once.
type Request struct {
	kube.Key
}

// Result says whether and when a request is to be reconciled again. The
// zero Result means "done until something changes". There are two ways
// to ask for another reconcile without an error:
//
//   - Result{RequeueAfter: d}: after a fixed delay d (polling an outside
//     system, an expiry time);
//   - [RequeueRateLimited](): after the request's rate limiter's delay,
//     growing with each retry as an error's would (waiting for something
//     that is not watched to become ready).
//
// There is no Requeue bool: controller-runtime deprecated it because it
// hid which of the two it meant.
type Result struct {
	// RequeueAfter, when positive, queues the request again once it has
	// passed, and resets the request's backoff.
	RequeueAfter time.Duration
	// Priority is the queue priority of the request queued again, by
	// RequeueAfter, [RequeueRateLimited] or an error (not a
	// [TerminalError]): higher is handed to a worker first (see package
	// queue). Zero, the default, is the priority of a real change;
	// [LowPriority] that of a resync. controller-runtime's Result.Priority,
	// except that zero does not keep the priority the request had.
	Priority int

	// rateLimited: queue again after the rate limiter's delay. Set by
	// RequeueRateLimited only; RequeueAfter wins over it.
	rateLimited bool
}

// RequeueRateLimited returns the Result that queues the request again
// after its rate limiter's delay (exponential per request: 5ms doubling
// to 1000s by default), as an error does, without logging or counting an
// error: it counts as result="requeue" in
// controller_runtime_reconcile_total. The backoff resets when a reconcile
// of the request returns anything else.
func RequeueRateLimited() Result { return Result{rateLimited: true} }

// IsRateLimited reports whether r is [RequeueRateLimited]'s Result (and
// sets no RequeueAfter, which would win).
func (r Result) IsRateLimited() bool { return r.rateLimited && r.RequeueAfter <= 0 }

// IsZero reports whether r is the zero Result (whatever its Priority,
// which matters only when the request is queued again).
func (r Result) IsZero() bool { return r.RequeueAfter == 0 && !r.rateLimited }

// Reconciler brings the world in line with the object a [Request] names.
// It is called with the object's key only: read the object (from a cache)
// and act on what is there now, not on the change that queued the request.
//
// What the controller does with the outcome (controller-runtime's rules):
//   - a non-nil error: the request is queued again after the rate
//     limiter's delay and the Result is ignored (a warning is logged when
//     it is not zero); a [TerminalError] is logged and counted but not
//     retried;
//   - Result.RequeueAfter > 0: the backoff is reset and the request is
//     queued again after RequeueAfter;
//   - [RequeueRateLimited]: queued again after the rate limiter's delay;
//   - otherwise success: the backoff is reset.
//
// A request queued again has the queue priority Result.Priority.
//
// ctx is done when the controller stops, or when
// [Options.ReconcileTimeout] passes. [LoggerFrom] gives the reconcile's
// logger.
type Reconciler interface {
	Reconcile(ctx context.Context, req Request) (Result, error)
}

// ReconcilerFunc is a [Reconciler] made of a func.
type ReconcilerFunc func(ctx context.Context, req Request) (Result, error)

// Reconcile implements [Reconciler].
func (f ReconcilerFunc) Reconcile(ctx context.Context, req Request) (Result, error) {
	if f == nil {
		return Result{}, errors.New("controller.ReconcilerFunc is nil")
	}
	return f(ctx, req)
}

// ErrTerminal is what [errors.Is] finds in an error made by
// [TerminalError].
var ErrTerminal = errors.New("terminal error")

// TerminalError marks err as not worth retrying (the object is invalid and
// only a change to it can help): a Reconciler that returns it has it
// logged and counted as an error, and the request is not queued again
// (its backoff is reset). errors.Is(e, ErrTerminal) reports whether e is
// or wraps one; as in controller-runtime, errors.Is(e, TerminalError(nil))
// does too. err stays reachable through errors.Is and errors.As.
func TerminalError(err error) error { return &terminalError{err: err} }

type terminalError struct{ err error }

func (e *terminalError) Error() string {
	if e.err == nil {
		return "terminal error"
	}
	return "terminal error: " + e.err.Error()
}

func (e *terminalError) Unwrap() error { return e.err }

func (e *terminalError) Is(target error) bool {
	if target == ErrTerminal {
		return true
	}
	_, ok := target.(*terminalError)
	return ok
}

// reconcileInfo is what the context of one reconcile carries: the
// reconcile's logger and ID, made on first use (most reconciles never
// log).
type reconcileInfo struct {
	base *slog.Logger // the controller's
	req  Request
	raw  [16]byte // the ID's random bytes

	once sync.Once
	id   string
	log  *slog.Logger
}

type contextKey struct{}

// withReconcileInfo returns ctx carrying the info of a reconcile of req.
func withReconcileInfo(ctx context.Context, base *slog.Logger, req Request) (context.Context, *reconcileInfo) {
	rc := &reconcileInfo{base: base, req: req}
	_, _ = rand.Read(rc.raw[:]) // never fails (crypto/rand.Read's contract)
	return context.WithValue(ctx, contextKey{}, rc), rc
}

func (rc *reconcileInfo) init() {
	rc.once.Do(func() {
		rc.id = formatUUID(rc.raw)
		rc.log = rc.base.With("key", rc.req.String(), "reconcileID", rc.id)
	})
}

func (rc *reconcileInfo) logger() *slog.Logger {
	rc.init()
	return rc.log
}

// LoggerFrom returns the logger of the reconcile ctx belongs to: the
// controller's logger with the keys "controller", "key" (namespace/name)
// and "reconcileID". Outside a reconcile it returns a logger that
// discards everything.
func LoggerFrom(ctx context.Context) *slog.Logger {
	if rc, ok := ctx.Value(contextKey{}).(*reconcileInfo); ok {
		return rc.logger()
	}
	return slog.New(slog.DiscardHandler)
}

// ReconcileIDFrom returns the random ID of the reconcile ctx belongs to (a
// UUID, new for every call of Reconcile, as controller-runtime's
// reconcileID), or "" outside a reconcile.
func ReconcileIDFrom(ctx context.Context) string {
	if rc, ok := ctx.Value(contextKey{}).(*reconcileInfo); ok {
		rc.init()
		return rc.id
	}
	return ""
}

// formatUUID formats 16 random bytes as a (version 4) UUID.
func formatUUID(u [16]byte) string {
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	var s [36]byte
	hex.Encode(s[0:8], u[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], u[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], u[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], u[8:10])
	s[23] = '-'
	hex.Encode(s[24:], u[10:])
	return string(s[:])
}
