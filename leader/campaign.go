// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/internal/wait"
	"github.com/kubeloop/kubeloop/kube"
)

// This file is the elector's loop: campaign until the Lease is won, then
// renew it until the term ends, then release it if asked to.

// campaign makes attempts until one wins the Lease or ctx is done. Between
// attempts it waits at most RetryPeriod (see [pollWait]), or less when the
// holder's lease expires sooner. It returns when the winning write was sent.
func (e *Elector) campaign(ctx context.Context) (sent time.Time, ok bool) {
	for ctx.Err() == nil {
		attempt, cancel := context.WithTimeout(ctx, e.opts.RenewDeadline)
		d, sent, err := e.step(attempt, false)
		cancel()
		switch {
		case err == nil && d.action != follow:
			return sent, true
		case err != nil && ctx.Err() == nil:
			e.log.Debug("attempt to acquire failed", "action", d.action.String(), "err", err)
		}
		delay := pollWait(e.opts.RetryPeriod)
		if err == nil && d.action == follow {
			delay = min(delay, time.Until(d.until))
		}
		if !wait.Sleep(ctx, delay) {
			break
		}
	}
	return time.Time{}, false
}

// step makes one attempt. A leader (leading set) renews from its own last
// write without reading, and reads only when that write finds the Lease
// changed; it writes nothing unless the Lease still names it. A candidate
// that is not leading reads, decides, and writes what the decision says.
// step returns the decision and, if a write succeeded, when it was sent; on
// a failed read the decision is the zero one.
func (e *Elector) step(ctx context.Context, leading bool) (decision, time.Time, error) {
	if leading && e.lease != nil && e.obs.present && e.obs.rec.holder == e.opts.Identity {
		sent, err := e.put(ctx, e.lease, false)
		if err == nil || !lostRace(err) {
			return decision{action: renew, holder: e.opts.Identity}, sent, err
		}
		e.log.Debug("lease changed since the last renew; reading it again", "err", err)
	}
	l, present, err := e.read(ctx)
	if err != nil {
		return decision{}, time.Time{}, err
	}
	now := time.Now()
	e.see(l, present, now)
	d := decide(e.obs, now, e.opts.Identity, e.opts.LeaseDuration)
	var sent time.Time
	switch {
	case d.action == renew || d.action == acquire && !leading:
		sent, err = e.put(ctx, l, false)
	case d.action == create && !leading:
		sent, err = e.put(ctx, nil, true)
	}
	return d, sent, err
}

// put writes this candidate's next record: a create when base is nil, else
// a conditional update of base. It returns when the write was sent.
func (e *Elector) put(ctx context.Context, base *kube.Lease, created bool) (time.Time, error) {
	sent := time.Now()
	stored, err := e.write(ctx, base, next(e.obs.rec, created, e.opts.Identity, e.opts.LeaseDuration, sent))
	if err != nil {
		return time.Time{}, err
	}
	e.see(stored, true, sent)
	return sent, nil
}

// lead runs one term, which began with a write sent at sent: it starts
// OnStartedLeading, renews every RetryPeriod, and ends the term when ctx is
// done, when another holder is found, or RenewDeadline after the last
// successful renew, whichever comes first. A timer, not the loop, enforces
// the deadline, so a renew stuck in the API call cannot stretch the term.
// Once OnStartedLeading has returned, it releases the Lease if asked to
// and then starts OnStoppedLeading, as client-go orders them.
func (e *Elector) lead(ctx context.Context, sent time.Time, wg *sync.WaitGroup) error {
	term, end := context.WithCancelCause(ctx)
	defer end(nil)
	deadline := time.AfterFunc(time.Until(sent.Add(e.opts.RenewDeadline)), func() {
		end(errs.Errorf("%w: no renew succeeded within RenewDeadline %v", ErrLeadershipLost, e.opts.RenewDeadline))
	})
	defer deadline.Stop()
	e.mu.Lock()
	e.leading, e.renewed = term.Done(), sent
	e.mu.Unlock()
	close(e.elected)
	e.log.Info("started leading")

	callback := make(chan struct{}) // closed when OnStartedLeading returns
	if fn := e.opts.OnStartedLeading; fn != nil {
		go func() {
			defer close(callback)
			fn(term)
		}()
	} else {
		close(callback)
	}

	for wait.Sleep(term, e.opts.RetryPeriod) {
		d, sent, err := e.step(term, true)
		switch {
		case err == nil && d.action == renew:
			e.mu.Lock()
			if deadline.Stop() { // false: the deadline passed meanwhile
				e.renewed = sent
				deadline.Reset(time.Until(sent.Add(e.opts.RenewDeadline)))
			}
			e.mu.Unlock()
		case err == nil:
			end(errs.Errorf("%w: %s", ErrLeadershipLost, lostTo(d)))
		case term.Err() == nil:
			// Retry; the deadline ends the term if this goes on.
			e.log.Warn("renew failed", "err", err)
		}
	}

	cause := context.Cause(term)
	e.log.Info("stopped leading", "reason", cause.Error())
	<-callback
	lost := errors.Is(cause, ErrLeadershipLost)
	if !lost && e.opts.ReleaseOnCancel {
		e.release(ctx)
	}
	if fn := e.opts.OnStoppedLeading; fn != nil {
		wg.Go(fn)
	}
	if lost {
		return errs.Errorf("lead lease %s: %w", e.key, cause)
	}
	return nil
}

// lostTo says why a leader that read d no longer holds the Lease.
func lostTo(d decision) string {
	switch {
	case d.action == create:
		return "the lease was deleted"
	case d.holder != "":
		return fmt.Sprintf("the lease is held by %q", d.holder)
	}
	return "the lease was released by another writer"
}

// release gives the Lease up, if this candidate still holds it, so that a
// successor need not wait for it to expire. ctx is done; the write gets
// RenewDeadline of its own.
func (e *Elector) release(ctx context.Context) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), e.opts.RenewDeadline)
	defer cancel()
	base := e.lease
	for range 2 {
		sent := time.Now()
		stored, err := e.write(ctx, base, released(e.obs.rec, sent))
		if err == nil {
			e.see(stored, true, sent)
			e.log.Info("released the lease")
			return
		}
		if !lostRace(err) {
			e.log.Info("could not release the lease", "err", err)
			return
		}
		// Our last renew may have landed unseen: release only what still
		// names us.
		l, present, err := e.read(ctx)
		if err != nil {
			e.log.Info("could not release the lease", "err", err)
			return
		}
		e.see(l, present, time.Now())
		if !present || e.obs.rec.holder != e.opts.Identity {
			return
		}
		base = l
	}
}

// pollSpread is how much shorter than RetryPeriod a candidate's wait may
// be: waits are spread over ((1-pollSpread)×RetryPeriod, RetryPeriod].
const pollSpread = 0.2

// pollWait returns a random wait in ((1-pollSpread)×d, d]. client-go
// stretches its waits instead, to [d, 2.2×d); spreading them below d keeps
// candidates started together out of step and still lets a successor see
// a dead leader's last renew within one RetryPeriod.
func pollWait(d time.Duration) time.Duration {
	return d - time.Duration(rand.Float64()*pollSpread*float64(d))
}
