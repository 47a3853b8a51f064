// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file moves a ring member's state between its Lease and the server:
// its own Lease written (created, or overwritten after a conflict: it is
// this member's alone), the ring's Leases listed into peers, expired ones
// deleted.

// writeOwn stores this member's Lease publishing ranges idx (and the
// leaving mark), renewed at the moment of sending. It returns when the
// write that succeeded was sent. A Lease missing on the server is created
// again; one changed by another writer is read and overwritten.
func (m *Member) writeOwn(ctx context.Context, idx []int) (time.Time, error) {
	var err error
	for range 3 {
		l := new(kube.Lease)
		if m.own != nil {
			*l = *m.own // a shallow copy: what is replaced below is not shared
		}
		l.Namespace, l.Name = m.opts.Namespace, m.name
		l.Labels = map[string]string{RingLabel: m.opts.Ring}
		l.Annotations = map[string]string{RangesAnnotation: formatRanges(m.opts.Ranges, idx)}
		if m.leaving {
			l.Annotations[LeavingAnnotation] = "true"
		}
		sent := time.Now()
		setRecord(&l.Spec, record{holder: m.opts.Identity, duration: m.opts.LeaseDuration, acquire: m.joined, renew: sent})
		if m.own == nil {
			err = m.opts.Client.Create(ctx, l)
		} else {
			err = m.opts.Client.Update(ctx, l)
		}
		switch {
		case err == nil:
			m.own = l
			return sent, nil
		case kube.IsNotFound(err):
			m.own = nil
		case kube.IsConflict(err) || kube.IsAlreadyExists(err):
			cur := new(kube.Lease)
			if gerr := m.opts.Client.Get(ctx, kube.Key{Namespace: m.opts.Namespace, Name: m.name}, cur); gerr != nil {
				m.own = nil
				if !kube.IsNotFound(gerr) {
					return time.Time{}, gerr
				}
			} else {
				m.own = cur
			}
		default:
			return time.Time{}, err
		}
	}
	return time.Time{}, err
}

// listPeers lists the ring's Leases and returns them as peers, this
// member's own left out. A Lease with a resourceVersion not seen before is
// observed at the moment the list returned.
func (m *Member) listPeers(ctx context.Context) (map[string]*peer, error) {
	var list kube.List[kube.Lease]
	opts := kube.ListOptions{Namespace: m.opts.Namespace, LabelSelector: kube.SelectorFromSet(map[string]string{RingLabel: m.opts.Ring})}
	if err := m.opts.Client.List(ctx, &list, opts); err != nil {
		return nil, err
	}
	now := time.Now()
	out := make(map[string]*peer, len(list.Items))
	for i := range list.Items {
		l := &list.Items[i]
		if l.Name == m.name {
			continue
		}
		p := peerOf(l)
		if p.all {
			m.log.Warn("cannot read the ranges a member publishes: taking it to publish all", "member", p.id,
				"annotation", l.Annotations[RangesAnnotation])
		}
		out[l.Name] = seen(m.peers[l.Name], p, now)
	}
	return out, nil
}

// peerOf reads a peer out of its Lease.
func peerOf(l *kube.Lease) peer {
	rec := recordOf(&l.Spec)
	p := peer{name: l.Name, id: rec.holder, rv: l.ResourceVersion, duration: rec.duration,
		leaving: l.Annotations[LeavingAnnotation] == "true"}
	var err error
	if p.count, p.ranges, err = parseRanges(l.Annotations[RangesAnnotation]); err != nil {
		p.all = true
	}
	return p
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
		if m.own == nil {
			return nil
		}
		rv := m.own.ResourceVersion
		err := m.opts.Client.Delete(ctx, m.own, kube.DeleteOptions{Preconditions: &kube.Preconditions{ResourceVersion: &rv}})
		switch {
		case err == nil || kube.IsNotFound(err):
			return nil
		case !kube.IsConflict(err):
			return fmt.Errorf("delete lease %s: %w", m.name, err)
		}
		// A write whose answer was lost landed after all: read it again.
		cur := new(kube.Lease)
		if err := m.opts.Client.Get(ctx, kube.Key{Namespace: m.opts.Namespace, Name: m.name}, cur); err != nil {
			if kube.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("delete lease %s: %w", m.name, err)
		}
		m.own = cur
	}
	return fmt.Errorf("delete lease %s: it keeps changing", m.name)
}
