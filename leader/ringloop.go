// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"crypto/rand"
	"errors"
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// This file is a member's loop: every RetryPeriod (and when a Work returns,
// a peer expires or the term ends) it renews its Lease, lists the ring,
// starts the claims no live member stands in the way of, and moves its
// ranges towards the assignment.

// Run joins the ring and takes part in it until ctx is done, then leaves:
// it claims no more ranges, asks every Work to stop, publishes each
// range's release as its Work returns, and deletes its Lease once nothing
// is left. Run returns nil when that is done and every Work it started
// has returned (or an error at once if Run was already called). A server
// that does not answer does not end Run: RenewDeadline after the last
// successful renew every Work is asked to stop, and the member joins again
// when the server answers. Another process writing the member's Lease
// does (two members share the identity): Run stops every Work, waits for
// them, leaves the Lease as it is, and returns an error naming the
// identity and the Lease that wraps [ErrIdentityShared]. Run may be called
// once.
func (m *Member) Run(ctx context.Context) error {
	if m == nil {
		return errNoMember
	}
	if !m.started.CompareAndSwap(false, true) {
		return errs.Errorf("run member of ring %s/%s: Run was already called", m.opts.Namespace, m.opts.Ring)
	}
	if ctx.Err() != nil {
		return nil
	}
	// The member talks to the server while it leaves, after ctx is done;
	// the contexts of Works derive from api too, keeping ctx's values.
	api := context.WithoutCancel(ctx)
	m.stopping = ctx.Done()
	m.joined = time.Now()
	m.token = rand.Text()
	m.log.Info("joining the ring", "lease", m.name, "ranges", m.opts.Ranges)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		next := m.step(api)
		if m.fatal != nil {
			return m.abort()
		}
		if m.leaving && !slices.ContainsFunc(m.state, func(s rangeState) bool { return s != rangeFree }) {
			break
		}
		var stop <-chan struct{}
		if !m.leaving {
			stop = ctx.Done()
		}
		timer.Reset(time.Until(next))
		select {
		case <-stop:
			m.leaving = true
			m.log.Info("leaving the ring")
		case i := <-m.returned:
			m.workReturned(i)
			m.moreReturned() // Works asked to stop together return together: one step for all
		case <-m.termDone: // nil between terms
			m.termEnded()
		case <-timer.C:
		}
	}
	m.works.Wait() // returned already: each Work says so just before it ends
	if m.termDone != nil && !m.deadline.Stop() {
		<-m.termDone
	}
	call, cancel := context.WithTimeout(api, m.opts.RenewDeadline)
	defer cancel()
	if err := m.deleteOwn(call); err != nil {
		m.log.Info("left the ring; its lease stays until it expires", "err", err)
		return nil
	}
	m.log.Info("left the ring")
	return nil
}

// step makes up to three rounds of write, list, start and retarget: a
// round that changes what the member publishes (a claim, a withdrawal) is
// followed by another, so that a claim is written and checked at once.
// It returns when the next step is due.
func (m *Member) step(ctx context.Context) time.Time {
	for round := 0; ; round++ {
		wrote := m.write(ctx)
		judged := time.Now() // the list shows at least what was there now
		listed := m.fatal == nil && m.list(ctx)
		if m.fatal != nil {
			return judged
		}
		if listed {
			m.start(ctx, judged)
			for _, p := range m.peers {
				if p.expired(judged, m.opts.LeaseDuration) {
					call, cancel := context.WithTimeout(ctx, m.opts.RenewDeadline)
					m.deleteExpired(call, p)
					cancel()
				}
			}
		}
		ids := liveMembers(m.opts.Identity, m.leaving, m.peers, m.opts.Ranges, judged, m.opts.LeaseDuration)
		mine := make([]bool, m.opts.Ranges)
		for i, owner := range Assign(ids, m.opts.Ranges) {
			mine[i] = owner == m.opts.Identity
		}
		wasFree := make([]bool, len(m.state))
		for i, st := range m.state {
			wasFree[i] = st == rangeFree
		}
		for _, i := range retarget(m.state, mine, m.rested, judged) {
			m.log.Info("range moves away: stopping its work", "range", Range{Index: i, Count: m.opts.Ranges}.String())
			m.cancelWork(i)
		}
		for i, st := range m.state {
			if wasFree[i] && st == rangeClaimed {
				m.claimed[i] = judged
			}
		}
		m.publishStatus(ids, mine)
		if !wrote || !listed || round == 2 || slices.Equal(publishedSet(m.state), m.written) {
			return m.nextStep(time.Now())
		}
	}
}

// write renews this member's Lease with what it publishes now, if that
// changed, if the leaving mark is not written yet, or if the last renew is
// 0.8 RetryPeriod old (nextStep wakes the loop for it at RetryPeriod). It
// writes nothing while the Lease another process wrote is trusted.
func (m *Member) write(ctx context.Context) bool {
	if m.prior != nil && !m.prior.expired(time.Now(), m.opts.LeaseDuration) {
		return false
	}
	want := publishedSet(m.state)
	due := m.sent.IsZero() || time.Since(m.sent) >= m.opts.RetryPeriod-time.Duration(pollSpread*float64(m.opts.RetryPeriod))
	if !due && slices.Equal(want, m.written) && m.leaving == m.wroteLeaving && m.inTerm() {
		return true
	}
	call, cancel := context.WithTimeout(ctx, m.opts.RenewDeadline)
	defer cancel()
	sent, err := m.writeOwn(call, indexes(want))
	if err != nil {
		// The write may or may not have landed: only what both versions
		// publish is published for sure.
		for i := range m.written {
			m.written[i] = m.written[i] && want[i]
		}
		switch {
		case errors.Is(err, ErrIdentityShared):
			m.fatal = err
		case !errors.Is(err, errPrior): // checkOwn logged that
			m.log.Warn("renew failed", "err", err)
		}
		return false
	}
	m.written, m.wroteLeaving, m.sent = want, m.leaving, sent
	m.renewed(sent)
	return true
}

// list reads the ring's Leases into m.peers.
func (m *Member) list(ctx context.Context) bool {
	call, cancel := context.WithTimeout(ctx, m.opts.RenewDeadline)
	defer cancel()
	peers, err := m.listPeers(call)
	if errors.Is(err, ErrIdentityShared) {
		m.fatal = err
		return false
	}
	if err != nil {
		m.log.Warn("list the ring failed", "err", err)
		return false
	}
	for name, p := range peers {
		if m.peers[name] == nil {
			m.log.Info("member seen", "member", p.id)
		}
	}
	for name, p := range m.peers {
		if peers[name] == nil {
			m.log.Info("member gone", "member", p.id)
		}
	}
	m.peers = peers
	return true
}

// start starts the Work of every claim that was written before the list
// and that no live member stands in the way of, if the term is live.
// judged is when the list was sent.
func (m *Member) start(ctx context.Context, judged time.Time) {
	if !m.inTerm() {
		return
	}
	for i, st := range m.state {
		if st != rangeClaimed || !m.written[i] {
			continue
		}
		r := Range{Index: i, Count: m.opts.Ranges}
		if blocker(m.peers, r, judged, m.opts.LeaseDuration) != "" {
			continue
		}
		work, cancel := context.WithCancel(ctx)
		m.workMu.Lock()
		m.cancels[i] = cancel
		m.workMu.Unlock()
		m.state[i] = rangeHeld
		m.log.Info("range held: starting its work", "range", r.String())
		if m.opts.OnHeld != nil {
			m.opts.OnHeld(r, time.Since(m.claimed[i]))
		}
		m.works.Go(func() {
			defer func() { m.returned <- i }()
			// An error after the member asked the work to stop (the range
			// moved before its shard synced, say), or once the process is
			// shutting down (its cache stopped before the member asked), is
			// how it stopped, not a failure.
			err := m.opts.Work(work, ShardSelector(m.opts.Field, r))
			if err != nil && work.Err() == nil && !closed(m.stopping) {
				m.log.Warn("work of range failed", "range", r.String(), "err", err)
			}
		})
	}
}

// cancelWork asks the Work of range i to stop.
func (m *Member) cancelWork(i int) {
	m.workMu.Lock()
	if c := m.cancels[i]; c != nil {
		c()
	}
	m.workMu.Unlock()
}

// workReturned releases range i, whose Work returned: asked to, or by
// itself (then the range rests for RetryPeriod before it is claimed again).
func (m *Member) workReturned(i int) {
	r := Range{Index: i, Count: m.opts.Ranges}
	if m.state[i] == rangeHeld {
		m.rested[i] = time.Now().Add(m.opts.RetryPeriod)
		m.log.Info("work returned by itself: releasing the range", "range", r.String())
	} else {
		m.log.Info("range drained: releasing it", "range", r.String())
	}
	m.workMu.Lock()
	m.cancels[i]()
	m.cancels[i] = nil
	m.workMu.Unlock()
	m.state[i] = rangeFree
}

// moreReturned releases the ranges of the Works that have returned too,
// without waiting.
func (m *Member) moreReturned() {
	for {
		select {
		case i := <-m.returned:
			m.workReturned(i)
		default:
			return
		}
	}
}

// inTerm reports whether the member's term is live: it may start Works.
func (m *Member) inTerm() bool {
	if m.termDone == nil {
		return false
	}
	select {
	case <-m.termDone:
		return false
	default:
		return true
	}
}

// renewed extends the term after a write sent at sent succeeded, or starts
// a new one. A write that succeeded after the deadline passed starts a new
// term: the old one is over, and its Works were asked to stop.
func (m *Member) renewed(sent time.Time) {
	until := time.Until(sent.Add(m.opts.RenewDeadline))
	if m.termDone != nil && m.deadline.Stop() {
		m.deadline.Reset(until)
		return
	}
	if m.termDone != nil {
		m.termEnded()
	}
	done := make(chan struct{})
	m.termDone = done
	m.deadline = time.AfterFunc(until, func() {
		m.workMu.Lock()
		for _, c := range m.cancels {
			if c != nil {
				c()
			}
		}
		m.workMu.Unlock()
		close(done)
	})
	m.log.Info("lease renewed: working")
}

// termEnded turns held ranges to draining once the deadline's timer has
// cancelled their Works: RenewDeadline passed without a successful renew,
// and others may take them over LeaseDuration - RenewDeadline later.
func (m *Member) termEnded() {
	<-m.termDone // the timer has fired: wait until it is done
	m.termDone = nil
	var stopped []string
	for i, st := range m.state {
		if st == rangeHeld {
			m.state[i] = rangeDraining
			stopped = append(stopped, Range{Index: i, Count: m.opts.Ranges}.String())
		}
	}
	m.log.Warn("no renew succeeded within RenewDeadline: stopped all work", "ranges", stopped)
}

// nextStep returns when the next step is due: within RetryPeriod (spread
// as the elector's polls) and by the time the Lease must be renewed; within
// a quarter of that while a claim waits for a release; or sooner when a
// peer expires or a rested range may be claimed again.
func (m *Member) nextStep(now time.Time) time.Time {
	poll := m.opts.RetryPeriod
	if slices.Contains(m.state, rangeClaimed) {
		poll /= 4
	}
	next := now.Add(pollWait(poll))
	if renew := m.sent.Add(m.opts.RetryPeriod); renew.After(now) && renew.Before(next) {
		next = renew
	}
	for _, p := range m.peers {
		if e := p.expiry(m.opts.LeaseDuration); e.After(now) && e.Before(next) {
			next = e
		}
	}
	for i, t := range m.rested {
		if m.state[i] == rangeFree && t.After(now) && t.Before(next) {
			next = t
		}
	}
	if m.prior != nil {
		if e := m.prior.expiry(m.opts.LeaseDuration); e.After(now) && e.Before(next) {
			next = e
		}
	}
	return next
}

// abort ends Run once another process wrote this member's Lease: it stops
// every Work and waits for them, withdraws every claim, and returns the
// error. It writes nothing: the Lease is not this member's to write, and
// its ranges are the other process's to publish or release.
func (m *Member) abort() error {
	m.workMu.Lock()
	for _, c := range m.cancels {
		if c != nil {
			c()
		}
	}
	m.workMu.Unlock()
	m.works.Wait() // each Work says it returned just before it ends: returned has them all
	if m.termDone != nil && !m.deadline.Stop() {
		<-m.termDone
	}
	m.termDone = nil
	m.workMu.Lock()
	for len(m.returned) > 0 {
		m.cancels[<-m.returned] = nil
	}
	m.workMu.Unlock()
	clear(m.state) // all free
	m.publishStatus(nil, make([]bool, m.opts.Ranges))
	return errs.Errorf("run member of ring %s/%s: %w", m.opts.Namespace, m.opts.Ring, m.fatal)
}

// closed reports whether c is closed, without waiting.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}
