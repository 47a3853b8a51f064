// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"slices"
	"time"

	"github.com/kubeloop/kubeloop/kube"
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
	at time.Time
	// duration is how long after at this member trusts the Lease: the
	// leaseDurationSeconds written, bounded by [trusted]; 0 if unknown.
	duration time.Duration
	leaving  bool
	// count and ranges are what it publishes (claimed, held or draining);
	// none when ignored says they are void.
	count  int
	ranges []int
	// ignored says what of the Lease this member ignores, and why.
	ignored ignoreSet
	// writer (the WriterAnnotation) and renew (renewTime) change when the
	// process that writes the Lease renews it.
	writer string
	renew  time.Time
}

// ignoreSet holds the reasons a member ignores a Lease of its ring, wholly
// or in part (see [IgnoredLeases]).
type ignoreSet uint8

const (
	// ignoredUnreadable: the ranges cannot be read; they are void.
	ignoredUnreadable ignoreSet = 1 << iota
	// ignoredForeign: not the Lease of the member it names; void.
	ignoredForeign
	// ignoredLong: its duration is cut to PeerTrust LeaseDurations.
	ignoredLong
)

// peerOf reads a peer out of its Lease, in ring, as a member whose
// LeaseDuration is own sees it. A Lease not named after its holder
// (MemberLeaseName) or whose ranges cannot be read is void: it claims
// nothing and its holder is assigned nothing; but it expires, and is
// deleted, as any other.
func peerOf(l *kube.Lease, ring string, own time.Duration) peer {
	rec := recordOf(&l.Spec)
	p := peer{name: l.Name, id: rec.holder, rv: l.ResourceVersion,
		leaving: l.Annotations[LeavingAnnotation] == "true",
		writer:  l.Annotations[WriterAnnotation], renew: rec.renew}
	var long bool
	if p.duration, long = trusted(rec.duration, own); long {
		p.ignored |= ignoredLong
	}
	if rec.holder == "" || l.Name != MemberLeaseName(ring, rec.holder) {
		p.ignored |= ignoredForeign
	}
	var err error
	if p.count, p.ranges, err = parseRanges(l.Annotations[RangesAnnotation]); err != nil {
		p.ignored |= ignoredUnreadable
	}
	if p.void() {
		p.count, p.ranges = 0, nil
	}
	return p
}

// trusted returns how long a member whose LeaseDuration is own trusts a
// Lease that wrote written (leaseDurationSeconds, 0 if none): written, own
// if none was written, at most PeerTrust times own (long says written was
// cut). However long a Lease asks to be trusted, a member takes it to be
// gone once it has not changed for that long.
func trusted(written, own time.Duration) (d time.Duration, long bool) {
	switch bound := PeerTrust * own; {
	case written <= 0:
		return own, false
	case written > bound:
		return bound, true
	}
	return written, false
}

// void reports whether p claims nothing and is assigned nothing: its
// Lease is no member's, or its ranges cannot be read.
func (p *peer) void() bool { return p.ignored&(ignoredUnreadable|ignoredForeign) != 0 }

// renewed reports whether next, a later sight of p's Lease, was renewed
// since: its writer or renewTime changed. A Lease relabelled by hand was
// not.
func (p *peer) renewed(next peer) bool {
	return p.writer != next.writer || p.id != next.id || !p.renew.Equal(next.renew)
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
// observation time plus the duration it is trusted for (fallback, this
// member's LeaseDuration, if unknown).
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
	if p.count == r.Count {
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

// ownVerdict is what a member concludes from its own Lease as read.
type ownVerdict uint8

const (
	// ownMine: it carries this process's writer token: written by this
	// process (maybe by a write whose answer was lost), or relabelled
	// since. Go on.
	ownMine ownVerdict = iota
	// ownTaken: another process wrote it after this one did, or renewed
	// it while this one waited: two processes share the identity. Stop.
	ownTaken
	// ownWait: another process wrote it before this one ever did (an
	// earlier process of the same identity, dead or alive). Write nothing
	// until it has not changed for as long as it is trusted.
	ownWait
)

// judgeOwn is the rule for a member's own Lease, read with writer token
// writer, as peer next: token is this process's, wrote says it wrote the
// Lease since Run started, prior is what it saw of the Lease while it
// waited (nil if it did not).
func judgeOwn(writer, token string, wrote bool, prior *peer, next peer) ownVerdict {
	switch {
	case writer == token:
		return ownMine
	case wrote || prior != nil && prior.renewed(next):
		return ownTaken
	}
	return ownWait
}

// liveMembers returns the identities among which the ranges are assigned:
// self unless leaving, and every peer that is not expired, not leaving,
// not void and cuts the space as self does. Sorted.
func liveMembers(self string, leaving bool, peers map[string]*peer, count int, now time.Time, fallback time.Duration) []string {
	var ids []string
	if !leaving {
		ids = append(ids, self)
	}
	for _, p := range peers {
		if p.id != "" && !p.leaving && !p.void() && p.count == count && !p.expired(now, fallback) {
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
