// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"

	"github.com/kubeloop/kubeloop/kube"
)

// storeWriter is what a reflector's sink, and a sharded informer's
// shard set, change the store through: an informer's [hub]. The store's
// objects change only with the lock held, and every change is told to
// the handlers (notifyLocked, notifyDiffLocked) before the lock is
// released, so that the handlers see the changes in the order the store
// saw them. Methods named Locked are called with the lock held.
type storeWriter interface {
	Lock()
	Unlock()
	// objects returns the store.
	objects() *store
	// notifyLocked queues n to every handler.
	notifyLocked(n notification)
	// notifyDiffLocked tells the handlers how next differs from prev,
	// as [hub.notifyDiffLocked] says; initial marks the adds
	// isInInitialList.
	notifyDiffLocked(prev, next *state, initial bool)
	// storedFirstLocked records that a reflector the informer's sync
	// counts (countLocked) stored its first state.
	storedFirstLocked()
	// runningLocked reports whether the informer runs: Start has begun
	// and not returned.
	runningLocked() bool
}

// nsRun is the reflector of one namespace ("" for all) of an informer
// that is not sharded. Its fields but cancel, done and synced are
// guarded by the hub's lock.
type nsRun struct {
	ns string
	// sel are the selectors the reflector reads with (see listWatch),
	// set when it is made and never changed: SetScope starts another.
	sel Selectors
	// cancel stops the reflector; done is closed when it has returned.
	// synced, made by SetNamespaces for the reflectors it starts (nil
	// for Start's), is closed when the reflector has stored its first
	// state.
	cancel context.CancelFunc
	done   chan struct{}
	synced chan struct{}
	// stored is set once the reflector stored its first state.
	// counted is set when the informer's sync waits for that (the hub
	// counts it).
	stored, counted bool
	// removed is set once the namespace left the scope: the reflector's
	// sink changes nothing after it.
	removed bool
}

// nsSink is the [sink] of run, the reflector of namespace run.ns (""
// for all) of an informer that is not sharded: its replace swaps that
// namespace's objects only. Once the namespace has left the informer's
// scope (run.removed) it changes nothing.
type nsSink struct {
	w   storeWriter
	run *nsRun
}

func (s nsSink) newState() *state { return newState(s.w.objects().codec) }

// apply implements [sink]. An ADDED or MODIFIED event for an object at the
// resourceVersion already stored changes nothing (a watch resumed from an
// older version may replay it). A DELETED event for an object not stored
// changes nothing either: no handler saw it.
func (s nsSink) apply(typ kube.EventType, obj kube.Object, size int32) {
	meta := obj.GetObjectMeta()
	s.w.Lock()
	defer s.w.Unlock()
	if s.run.removed {
		return
	}
	st := s.w.objects()
	switch typ {
	case kube.Added, kube.Modified:
		old, ok := st.get(meta.Key())
		if ok && old.GetObjectMeta().ResourceVersion == meta.ResourceVersion {
			return
		}
		st.put(obj, size)
		if ok {
			s.w.notifyLocked(notification{kind: notifyUpdate, old: old, obj: obj})
		} else {
			s.w.notifyLocked(notification{kind: notifyAdd, obj: obj})
		}
	case kube.Deleted:
		if st.remove(meta.Key()) {
			s.w.notifyLocked(notification{kind: notifyDelete, obj: obj})
		}
	}
}

// replace implements [sink]: it swaps in the state read (of its
// namespace) and tells the handlers exactly what changed, as
// [hub.notifyDiffLocked] says. initial marks the adds isInInitialList;
// the informer is synced once every reflector it counts has stored its
// first state.
func (s nsSink) replace(next *state, initial bool) {
	s.w.Lock()
	defer s.w.Unlock()
	run := s.run
	if run.removed {
		return
	}
	st := s.w.objects()
	var prev *state
	if run.ns == "" {
		prev = st.replace(next)
	} else {
		prev = &state{objects: map[string]map[string]entry{run.ns: st.replaceNamespace(run.ns, next)}}
	}
	s.w.notifyDiffLocked(prev, next, initial)
	if initial {
		run.stored = true
		if run.synced != nil {
			close(run.synced)
		}
		if run.counted {
			s.w.storedFirstLocked()
		}
	}
}
