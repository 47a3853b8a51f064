// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
)

// ErrLeadershipLost is returned by [Elector.Run], wrapped with the reason,
// when this candidate stops leading while its context is still live:
// another holder took the Lease, or no renew succeeded within RenewDeadline.
var ErrLeadershipLost = errors.New("leadership lost")

// Elector campaigns for one Lease as one identity. Make it with [New], run
// it with [Elector.Run]; the other methods are safe to call from any
// goroutine at any time.
type Elector struct {
	opts Options // defaults filled, validated
	key  string  // "namespace/name", for logs and errors
	log  *slog.Logger

	started atomic.Bool   // Run was called
	elected chan struct{} // closed when this candidate first leads
	notes   notifier      // OnNewLeader calls, in order

	// Owned by the goroutine running Run; no lock.
	obs   observation // what this candidate has seen of the Lease
	lease *kube.Lease // the Lease as last read or written; nil if never seen

	mu sync.Mutex
	// holder is the holder last observed ("" if none or unknown).
	holder string
	// leading is the Done channel of the current term's context: closed the
	// moment the term ends. Nil before the first term.
	leading <-chan struct{}
	// renewed is when the last successful write of the current term was
	// sent; the term ends at renewed + RenewDeadline at the latest.
	renewed time.Time
}

// New checks opts, fills its defaults, and returns an elector. It does no
// I/O (beyond reading the hostname for a default Identity) and starts no
// goroutine.
func New(opts Options) (*Elector, error) {
	opts, err := opts.withDefaults()
	if err == nil {
		err = opts.validate()
	}
	if err != nil {
		return nil, errs.Errorf("new elector for lease %s/%s: %w", opts.Namespace, opts.LeaseName, err)
	}
	key := opts.Namespace + "/" + opts.LeaseName
	return &Elector{
		opts:    opts,
		key:     key,
		log:     opts.Logger.With("lease", key, "identity", opts.Identity),
		elected: make(chan struct{}),
		notes:   notifier{fn: opts.OnNewLeader, wake: make(chan struct{}, 1)},
	}, nil
}

// Run campaigns for the Lease and leads while it holds it. It returns
//
//   - nil when ctx is done, after releasing the Lease if ReleaseOnCancel is
//     set and this candidate led;
//   - an error wrapping [ErrLeadershipLost] when leadership ends while ctx is
//     live. Run does not campaign again: what was built while leading
//     cannot be trusted to carry on, so the caller should exit (as
//     controller-runtime's manager does) or make a new Elector.
//
// In both cases it returns only after every callback it started has
// returned. Run may be called once.
func (e *Elector) Run(ctx context.Context) error {
	if !e.made() {
		return errNoElector
	}
	if !e.started.CompareAndSwap(false, true) {
		return errs.Errorf("run elector for lease %s: Run was already called", e.key)
	}
	var wg sync.WaitGroup
	stopNotes := make(chan struct{})
	if e.notes.fn != nil {
		wg.Go(func() { e.notes.run(stopNotes) })
	}
	defer func() {
		close(stopNotes)
		wg.Wait()
	}()

	e.log.Info("campaigning for leadership")
	sent, ok := e.campaign(ctx)
	if !ok {
		return nil
	}
	return e.lead(ctx, sent, &wg)
}

// Identity returns the identity this candidate writes into the Lease.
func (e *Elector) Identity() string {
	if !e.made() {
		return ""
	}
	return e.opts.Identity
}

// Elected returns a channel closed when this candidate first becomes
// leader. It stays closed after leadership ends; see [Elector.IsLeader].
func (e *Elector) Elected() <-chan struct{} {
	if !e.made() {
		return nil // never elected
	}
	return e.elected
}

// IsLeader reports whether this candidate leads now. It turns false the
// moment the context given to OnStartedLeading is cancelled. A metrics
// endpoint reports it as leader_election_master_status{name=<lease name>}.
func (e *Elector) IsLeader() bool {
	if !e.made() {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.isLeaderLocked()
}

func (e *Elector) isLeaderLocked() bool {
	if e.leading == nil {
		return false
	}
	select {
	case <-e.leading:
		return false
	default:
		return true
	}
}

// Leader returns the holder of the Lease as this candidate last read it:
// its own identity while it leads, "" when the Lease is released or has not
// been read yet.
func (e *Elector) Leader() string {
	if !e.made() {
		return ""
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.holder
}

// Check is a health check, as client-go's HealthzAdaptor: it fails when
// this candidate leads but its last successful renew is older than
// LeaseDuration plus maxTolerable (20s is usual). A working elector never
// fails it, since it stops leading RenewDeadline after its last renew; a
// failure means its loop is stuck and the process should be restarted.
func (e *Elector) Check(maxTolerable time.Duration) error {
	if !e.made() {
		return nil // not leading
	}
	e.mu.Lock()
	leading, renewed := e.isLeaderLocked(), e.renewed
	e.mu.Unlock()
	if err := health(leading, renewed, time.Now(), e.opts.LeaseDuration, maxTolerable); err != nil {
		return errs.Errorf("lease %s: %w", e.key, err)
	}
	return nil
}

// see records what a read or a write at now showed of the Lease (l, or
// nothing when present is false), and reports a new holder.
func (e *Elector) see(l *kube.Lease, present bool, now time.Time) {
	var rec record
	if present {
		rec = recordOf(&l.Spec)
		e.lease = l
	}
	e.obs = e.obs.observe(present, rec, now)
	if !present {
		return
	}
	e.mu.Lock()
	changed := e.holder != rec.holder
	e.holder = rec.holder
	e.mu.Unlock()
	if changed {
		e.log.Info("new leader observed", "holder", rec.holder)
		e.notes.post(rec.holder)
	}
}

// notifier calls fn with the latest posted identity, one call at a time,
// from the goroutine running [notifier.run]. Posts never block: a post made
// while fn runs replaces any earlier one not yet delivered.
type notifier struct {
	fn   func(identity string)
	wake chan struct{} // capacity 1: a delivery is due

	mu      sync.Mutex
	pending *string // the identity to deliver next; nil when none
}

func (n *notifier) post(identity string) {
	if n.fn == nil {
		return
	}
	n.mu.Lock()
	n.pending = &identity
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// run delivers posts until stop is closed, then delivers the last one
// still pending, if any.
func (n *notifier) run(stop <-chan struct{}) {
	for {
		select {
		case <-n.wake:
			n.deliver()
		case <-stop:
			n.deliver()
			return
		}
	}
}

func (n *notifier) deliver() {
	n.mu.Lock()
	p := n.pending
	n.pending = nil
	n.mu.Unlock()
	if p != nil {
		n.fn(*p)
	}
}
