// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"slices"
	"time"
)

// This file is the ring's rule: what a member concludes from the Leases it
// listed, and what it does with its ranges. Everything here is a pure
// function of its arguments, with the time passed in, as decide.go is for
// the elector, so that ringview_test.go pins it down.

// rangeState is what a member does with one range. Every state but free
// is published in the member's Lease.
type rangeState uint8

const (
	rangeFree rangeState = iota
	// claimed: assigned to this member, published, not started: the member
	// waits until no live member publishes the range but itself.
	rangeClaimed
	// held: Work runs.
	rangeHeld
	// draining: Work was asked to stop and has not returned yet.
	rangeDraining
)

// peer is what this member saw of another member's Lease.
type peer struct {
	name string // of the Lease
	id   string // holderIdentity
	// rv is the Lease's resourceVersion: a new one is a renewal.
	rv string
	// at is when this member first saw rv, on its own monotonic clock. Only
	// this measures how long the peer has been silent: the renewTime it
	// writes comes from its clock, which may be skewed.
	at       time.Time
	duration time.Duration // leaseDurationSeconds; 0 if absent
	leaving  bool
	// count and ranges are what it publishes (claimed, held or draining);
	// all is set when they cannot be read: the peer is then taken to
	// publish the whole hash space.
	count  int
	ranges []int
	all    bool
}

// seen returns p as a list at now shows it (next): a peer whose
// resourceVersion did not change keeps its observation time.
func seen(p *peer, next peer, now time.Time) *peer {
	if p != nil && p.rv == next.rv {
		next.at = p.at
	} else {
		next.at = now
	}
	return &next
}

// expiry returns when p is gone by this member's observation: its
// observation time plus the duration it wrote (fallback, this member's
// LeaseDuration, if it wrote none).
func (p *peer) expiry(fallback time.Duration) time.Time {
	d := p.duration
	if d <= 0 {
		d = fallback
	}
	return p.at.Add(d)
}

func (p *peer) expired(now time.Time, fallback time.Duration) bool {
	return !now.Before(p.expiry(fallback))
}

// publishes reports whether p publishes a range that overlaps r, comparing
// hash bounds when p cuts the space into another number of ranges.
func (p *peer) publishes(r Range) bool {
	switch {
	case p.all:
		return true
	case p.count == r.Count:
		_, found := slices.BinarySearch(p.ranges, r.Index)
		return found
	}
	h := r.Hash()
	for _, i := range p.ranges {
		o := Range{Index: i, Count: p.count}.Hash()
		if (o.End == 0 || h.Start < o.End) && (h.End == 0 || o.Start < h.End) {
			return true
		}
	}
	return false
}

// liveMembers returns the identities among which the ranges are assigned:
// self unless leaving, and every peer that is not expired, not leaving and
// cuts the space as self does. Sorted.
func liveMembers(self string, leaving bool, peers map[string]*peer, count int, now time.Time, fallback time.Duration) []string {
	var ids []string
	if !leaving {
		ids = append(ids, self)
	}
	for _, p := range peers {
		if p.id != "" && !p.leaving && !p.all && p.count == count && !p.expired(now, fallback) {
			ids = append(ids, p.id)
		}
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

// blocker returns the name of a live peer that publishes a range
// overlapping r ("" if none): while there is one, this member must not
// start r. Expired peers do not block: they stopped working RenewDeadline
// after their last renew, before they expired for anyone.
func blocker(peers map[string]*peer, r Range, now time.Time, fallback time.Duration) string {
	for name, p := range peers {
		if !p.expired(now, fallback) && p.publishes(r) {
			return name
		}
	}
	return ""
}

// retarget moves the ranges towards the assignment (mine[i] says range i
// is assigned to this member): a held range no longer assigned starts
// draining, a claim no longer assigned is withdrawn, and an assigned free
// range is claimed unless it rests until after now. It returns the ranges
// that must start draining.
func retarget(states []rangeState, mine []bool, rested []time.Time, now time.Time) (drain []int) {
	for i, st := range states {
		switch {
		case st == rangeHeld && !mine[i]:
			states[i] = rangeDraining
			drain = append(drain, i)
		case st == rangeClaimed && !mine[i]:
			states[i] = rangeFree
		case st == rangeFree && mine[i] && !now.Before(rested[i]):
			states[i] = rangeClaimed
		}
	}
	return drain
}

// publishedSet returns which ranges the states publish.
func publishedSet(states []rangeState) []bool {
	out := make([]bool, len(states))
	for i, st := range states {
		out[i] = st != rangeFree
	}
	return out
}

// indexes returns the indexes set in b.
func indexes(b []bool) []int {
	var out []int
	for i, v := range b {
		if v {
			out = append(out, i)
		}
	}
	return out
}
