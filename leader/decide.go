// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"fmt"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// This file is the protocol: what a candidate does given what it has seen of
// the Lease. Everything here is a pure function of its arguments, with the
// current time passed in, so that the tables in decide_test.go pin it down.

// record is the lock record a Lease spec carries.
type record struct {
	holder string
	// duration is leaseDurationSeconds; zero when the Lease has none.
	duration    time.Duration
	acquire     time.Time
	renew       time.Time
	transitions int32
}

// equal reports whether r and o are the same record. The times compare
// with Equal: decoded times carry no monotonic reading to tell them apart.
func (r record) equal(o record) bool {
	return r.holder == o.holder && r.duration == o.duration &&
		r.acquire.Equal(o.acquire) && r.renew.Equal(o.renew) &&
		r.transitions == o.transitions
}

// observation is what a candidate knows of the Lease.
type observation struct {
	// present says the last read found the Lease. When it did not, rec and
	// at still describe the last record seen (zero if none ever was).
	present bool
	rec     record
	// at is when this candidate last saw rec change, on its own monotonic
	// clock. Only this, never the times written in the record, measures how
	// long the holder has been silent: the holder's clock may be skewed.
	at time.Time
}

// observe returns o updated with what a read at now returned: rec, or
// nothing when present is false. The observation time moves only when the
// record changes, appears or disappears, so a holder that stops renewing
// ages. A Lease that disappears keeps its last record: its holder may have
// renewed it until the moment it was deleted, so it is given a whole lease
// duration from now.
func (o observation) observe(present bool, rec record, now time.Time) observation {
	switch {
	case !present:
		if o.present {
			o.present, o.at = false, now
		}
	case !o.present || !o.rec.equal(rec):
		o = observation{present: true, rec: rec, at: now}
	}
	return o
}

// action is what a candidate does next.
type action uint8

const (
	// create the Lease, naming this candidate: there is none.
	create action = iota
	// acquire the Lease: it is released, or its holder let it expire.
	acquire
	// renew the Lease: this candidate holds it.
	renew
	// follow the holder: its lease is live; look again before until.
	follow
)

var actionNames = [...]string{create: "create", acquire: "acquire", renew: "renew", follow: "follow"}

func (a action) String() string { return actionNames[a] }

// decision is the outcome of [decide].
type decision struct {
	action action
	// holder is the identity the Lease names (or last named, if it is gone).
	holder string
	// until is when the holder's lease expires by this candidate's
	// observation; set for follow only.
	until time.Time
}

func (d decision) String() string {
	if d.action == follow {
		return fmt.Sprintf("follow %q until %s", d.holder, d.until.Format(time.RFC3339Nano))
	}
	return d.action.String()
}

// decide is the leader election rule. Given what this candidate (id) has
// observed of the Lease and the time now:
//
//   - held by id: renew;
//   - no holder (released, or a Lease without one): acquire at once;
//   - held by another: follow until the observation time plus the
//     leaseDurationSeconds written in the record, then acquire. The
//     candidate's own configured duration (fallback) only bounds it, at
//     [PeerTrust] times, as a ring member bounds its peers' claims: so
//     candidates configured within that factor of each other cannot cut
//     each other's leases short, and a Lease written with an absurd
//     duration (2147483647 seconds are 68 years) by a holder that never
//     renews holds leadership for PeerTrust lease durations, not forever.
//     The record's acquireTime and renewTime play no part, so clock skew
//     cannot cut a lease short either. A record without a duration is
//     given fallback rather than none;
//   - no Lease: create it, unless the last record seen names another holder
//     whose lease is still live by that observation (the Lease was deleted
//     under a leader): follow that holder until it expires.
//
// The write that carries out acquire or renew is conditional on the
// resourceVersion read, so a record that changed since it was read is never
// overwritten.
func decide(o observation, now time.Time, id string, fallback time.Duration) decision {
	h := o.rec.holder
	switch {
	case h == id && o.present:
		return decision{action: renew, holder: h}
	case h == "" || h == id:
		if o.present {
			return decision{action: acquire, holder: h}
		}
		return decision{action: create, holder: h}
	}
	d := o.rec.duration
	if d <= 0 {
		d = fallback
	}
	d = min(d, PeerTrust*fallback)
	if until := o.at.Add(d); now.Before(until) {
		return decision{action: follow, holder: h, until: until}
	}
	if o.present {
		return decision{action: acquire, holder: h}
	}
	return decision{action: create, holder: h}
}

// next is the record a candidate writes to create, acquire or renew the
// Lease at now: prev is the record read (zero for create). Taking the Lease
// from another holder, or from none, counts a transition and restarts
// acquireTime; renewing keeps both.
func next(prev record, created bool, id string, duration time.Duration, now time.Time) record {
	r := record{holder: id, duration: duration, acquire: prev.acquire, renew: now, transitions: prev.transitions}
	switch {
	case created:
		r.acquire, r.transitions = now, 0
	case prev.holder != id:
		r.acquire, r.transitions = now, prev.transitions+1
	case r.acquire.IsZero():
		r.acquire = now
	}
	return r
}

// released is the record a leader writes to give the Lease up at now, as
// client-go writes it: no holder, a one-second duration, both times now, the
// transitions kept.
func released(prev record, now time.Time) record {
	return record{duration: time.Second, acquire: now, renew: now, transitions: prev.transitions}
}

// health is the verdict of [Elector.Check]: a leader whose last successful
// renew is older than the lease duration plus maxTolerable is unhealthy.
// Such a leader should have stopped leading RenewDeadline after that renew;
// still leading means its loop is stuck.
func health(leading bool, lastRenew, now time.Time, leaseDuration, maxTolerable time.Duration) error {
	if !leading {
		return nil
	}
	if since := now.Sub(lastRenew); since > leaseDuration+maxTolerable {
		return errs.Errorf("leader has not renewed the lease for %v, more than LeaseDuration %v plus tolerance %v", since, leaseDuration, maxTolerable)
	}
	return nil
}
