// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"errors"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
)

// This file moves a ring member's state between its Lease and the server:
// its own Lease written (created, or overwritten after a conflict: it is
// this member's alone, unless another process writes it too), the ring's
// Leases listed into peers, expired ones deleted.

// writeOwn stores this member's Lease publishing ranges idx (and the
// leaving mark), renewed at the moment of sending. It returns when the
// write that succeeded was sent. A Lease missing on the server is created
// again; one that changed is read, and written again only if the change is
// this process's (a write whose answer was lost) or a relabelling (see
// [Member.checkOwn]).
func (m *Member) writeOwn(ctx context.Context, idx []int) (time.Time, error) {
	var err error
	for range 3 {
		l := new(kube.Lease)
		if m.own != nil {
			*l = *m.own // a shallow copy: what is replaced below is not shared
		}
		l.Namespace, l.Name = m.opts.Namespace, m.name
		l.Labels = map[string]string{RingLabel: m.opts.Ring}
		l.Annotations = map[string]string{RangesAnnotation: formatRanges(m.opts.Ranges, idx), WriterAnnotation: m.token}
		if m.leaving {
			l.Annotations[LeavingAnnotation] = "true"
		}
		sent := time.Now()
		setRecord(&l.Spec, record{holder: m.opts.Identity, duration: m.opts.LeaseDuration, acquire: m.joined, renew: sent})
		if m.own == nil {
			err = m.opts.Client.Create(ctx, l)
		} else {
			err = m.opts.Client.Replace(ctx, l)
		}
		switch {
		case err == nil:
			m.own, m.prior, m.wrote = l, nil, true
			return sent, nil
		case kube.IsNotFound(err):
			m.own, m.prior = nil, nil
		case kube.IsConflict(err) || kube.IsAlreadyExists(err):
			cur := new(kube.Lease)
			if gerr := m.opts.Client.Get(ctx, kube.Key{Namespace: m.opts.Namespace, Name: m.name}, cur); gerr != nil {
				m.own, m.prior = nil, nil
				if !kube.IsNotFound(gerr) {
					return time.Time{}, gerr
				}
				continue
			}
			if err := m.checkOwn(cur, time.Now()); err != nil {
				return time.Time{}, err
			}
			if m.prior != nil {
				return time.Time{}, errPrior
			}
		default:
			return time.Time{}, err
		}
	}
	return time.Time{}, err
}

// errPrior says the member's Lease was last written by another process
// and is trusted still: the member writes nothing until it is not.
var errPrior = errors.New("lease written by another process")

// checkOwn takes in this member's Lease cur, read at now (see [judgeOwn]):
// its own is kept as the version to write on; another process's, found
// before this one wrote, is waited for; another process's write after
// this one's, or during the wait, is an error wrapping ErrIdentityShared.
func (m *Member) checkOwn(cur *kube.Lease, now time.Time) error {
	next := peerOf(cur, m.opts.Ring, m.opts.LeaseDuration)
	switch judgeOwn(cur.Annotations[WriterAnnotation], m.token, m.wrote, m.prior, next) {
	case ownMine:
		m.own, m.prior, m.wrote = cur, nil, true
	case ownTaken:
		return errs.Errorf("lease %s/%s of identity %q written by another process: %w",
			m.opts.Namespace, m.name, m.opts.Identity, ErrIdentityShared)
	case ownWait:
		if m.prior == nil {
			m.log.Warn("this member's lease was written by another process: waiting until it has not changed for as long as it is trusted",
				"lease", m.name, "trusted", next.duration)
		}
		m.own, m.prior = cur, seen(m.prior, next, now)
	}
	return nil
}

// listPeers lists the ring's Leases and returns them as peers, this
// member's own left out (and checked, see [Member.checkOwn]). A Lease with
// a resourceVersion not seen before is observed at the moment the list
// returned. What it ignores of a Lease it logs and counts once per reason.
func (m *Member) listPeers(ctx context.Context) (map[string]*peer, error) {
	var list kube.List[kube.Lease]
	opts := kube.ListOptions{Namespace: m.opts.Namespace, LabelSelector: kube.SelectorFromSet(map[string]string{RingLabel: m.opts.Ring})}
	if err := m.opts.Client.List(ctx, &list, opts); err != nil {
		return nil, err
	}
	now := time.Now()
	out := make(map[string]*peer, len(list.Items))
	ignored := map[string]ignoreSet{}
	ownListed := false
	for i := range list.Items {
		l := &list.Items[i]
		if l.Name == m.name {
			ownListed = true
			if err := m.checkOwn(l, now); err != nil {
				return nil, err
			}
			continue
		}
		p := peerOf(l, m.opts.Ring, m.opts.LeaseDuration)
		if p.ignored != 0 {
			ignored[l.Name] = p.ignored
			m.noteIgnored(l, &p, p.ignored&^m.ignored[l.Name])
		}
		out[l.Name] = seen(m.peers[l.Name], p, now)
	}
	if !ownListed && m.prior != nil {
		m.log.Info("the lease another process wrote is gone: creating this member's", "lease", m.name)
		m.own, m.prior = nil, nil
	}
	m.ignored = ignored
	return out, nil
}

// noteIgnored logs and counts the reasons in fresh that this member
// ignores (part of) Lease l for, read as p.
func (m *Member) noteIgnored(l *kube.Lease, p *peer, fresh ignoreSet) {
	if fresh&ignoredUnreadable != 0 {
		m.counted.Unreadable++
		m.log.Warn("ignoring a lease of the ring: its ranges cannot be read; it claims nothing",
			"lease", l.Name, "member", p.id, "annotation", l.Annotations[RangesAnnotation])
	}
	if fresh&ignoredForeign != 0 {
		m.counted.Foreign++
		m.log.Warn("ignoring a lease of the ring: it is not the lease of the member it names; it claims nothing",
			"lease", l.Name, "member", p.id, "want", MemberLeaseName(m.opts.Ring, p.id))
	}
	if fresh&ignoredLong != 0 {
		m.counted.LongDuration++
		var secs int32
		if d := l.Spec.LeaseDurationSeconds; d != nil {
			secs = *d
		}
		m.log.Warn("a lease of the ring asks to be trusted longer than PeerTrust lease durations: trusting it that long only",
			"lease", l.Name, "member", p.id, "leaseDurationSeconds", secs, "trusted", p.duration)
	}
}

// deleteExpired deletes the Lease of peer p, which this member saw expire:
// for everyone, a Lease gone is a member gone that publishes nothing. The
// delete is conditional on the resourceVersion seen, so a peer that
// renewed meanwhile keeps its Lease.
func (m *Member) deleteExpired(ctx context.Context, p *peer) {
	rv := p.rv
	l := &kube.Lease{ObjectMeta: kube.ObjectMeta{Namespace: m.opts.Namespace, Name: p.name}}
	err := m.opts.Client.Delete(ctx, l, kube.DeleteOptions{Preconditions: &kube.Preconditions{ResourceVersion: &rv}})
	switch {
	case err == nil && p.void():
		m.log.Info("stale lease deleted: no member renews it", "member", p.id, "lease", p.name)
	case err == nil:
		m.log.Info("member expired: deleted its lease", "member", p.id, "lease", p.name)
	case kube.IsNotFound(err) || kube.IsConflict(err):
		// Another member deleted it first, or the peer renewed.
	default:
		m.log.Debug("could not delete an expired member's lease", "member", p.id, "err", err)
	}
}

// deleteOwn deletes this member's Lease when it leaves with nothing left
// to drain: the others take what it published as released at once. The
// delete is conditional on the last version this member wrote or read.
func (m *Member) deleteOwn(ctx context.Context) error {
	for range 2 {
		if m.own == nil || !m.wrote {
			return nil // nothing this process wrote
		}
		rv := m.own.ResourceVersion
		err := m.opts.Client.Delete(ctx, m.own, kube.DeleteOptions{Preconditions: &kube.Preconditions{ResourceVersion: &rv}})
		switch {
		case err == nil || kube.IsNotFound(err):
			return nil
		case !kube.IsConflict(err):
			return errs.Errorf("delete lease %s: %w", m.name, err)
		}
		// A write whose answer was lost landed after all: read it again.
		cur := new(kube.Lease)
		if err := m.opts.Client.Get(ctx, kube.Key{Namespace: m.opts.Namespace, Name: m.name}, cur); err != nil {
			if kube.IsNotFound(err) {
				return nil
			}
			return errs.Errorf("delete lease %s: %w", m.name, err)
		}
		if cur.Annotations[WriterAnnotation] != m.token {
			return errs.Errorf("delete lease %s: written by another process: %w", m.name, ErrIdentityShared)
		}
		m.own = cur
	}
	return errs.Errorf("delete lease %s: it keeps changing", m.name)
}
