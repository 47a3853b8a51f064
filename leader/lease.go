// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file moves the lock record between the Lease on the server and the
// [record] the rule works on. Every write is a create or a conditional
// update (the resourceVersion read): a conflict means someone else wrote.

// recordOf reads the lock record out of a Lease spec.
func recordOf(s *kube.LeaseSpec) record {
	var r record
	if s.HolderIdentity != nil {
		r.holder = *s.HolderIdentity
	}
	if s.LeaseDurationSeconds != nil {
		r.duration = time.Duration(*s.LeaseDurationSeconds) * time.Second
	}
	if s.AcquireTime != nil {
		r.acquire = s.AcquireTime.Time
	}
	if s.RenewTime != nil {
		r.renew = s.RenewTime.Time
	}
	if s.LeaseTransitions != nil {
		r.transitions = *s.LeaseTransitions
	}
	return r
}

// setRecord writes r into a Lease spec. Times are truncated to the
// microsecond the wire carries, so that what this candidate observes of its
// own write equals what others read back.
func setRecord(s *kube.LeaseSpec, r record) {
	holder := r.holder
	secs := int32(r.duration / time.Second)
	transitions := r.transitions
	s.HolderIdentity = &holder
	s.LeaseDurationSeconds = &secs
	s.AcquireTime = microTime(r.acquire)
	s.RenewTime = microTime(r.renew)
	s.LeaseTransitions = &transitions
}

func microTime(t time.Time) *kube.MicroTime {
	if t.IsZero() {
		return nil
	}
	return &kube.MicroTime{Time: t.UTC().Truncate(time.Microsecond)}
}

// read gets the Lease. It returns present false, and no error, when there
// is none.
func (e *Elector) read(ctx context.Context) (l *kube.Lease, present bool, err error) {
	l = new(kube.Lease)
	err = e.opts.Client.Get(ctx, kube.Key{Namespace: e.opts.Namespace, Name: e.opts.LeaseName}, l)
	switch {
	case err == nil:
		return l, true, nil
	case kube.IsNotFound(err):
		return nil, false, nil
	}
	return nil, false, err
}

// write stores r: into a new Lease when base is nil, else into base by a
// conditional update on base's resourceVersion. On success it returns the
// Lease as stored, with its new resourceVersion; base is not changed.
func (e *Elector) write(ctx context.Context, base *kube.Lease, r record) (*kube.Lease, error) {
	l := new(kube.Lease)
	if base != nil {
		*l = *base // setRecord replaces the spec's pointers: base is not changed
	} else {
		l.Namespace, l.Name = e.opts.Namespace, e.opts.LeaseName
	}
	setRecord(&l.Spec, r)
	var err error
	if base == nil {
		err = e.opts.Client.Create(ctx, l)
	} else {
		err = e.opts.Client.Replace(ctx, l)
	}
	if err != nil {
		return nil, err
	}
	return l, nil
}

// lostRace reports whether err says the Lease is not what this candidate
// last read: changed (Conflict), deleted (NotFound) or created by another
// (AlreadyExists). The answer is to read it again, never to overwrite it.
func lostRace(err error) bool {
	return kube.IsConflict(err) || kube.IsNotFound(err) || kube.IsAlreadyExists(err)
}
