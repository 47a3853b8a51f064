// SPDX-License-Identifier: Apache-2.0

package cache

import "github.com/kubeloop/kubeloop/kube"

// This file turns what the reflector reads into store changes and handler
// notifications. Only the reflector's goroutine writes the store, always
// through these functions and always under informer.mu.

// applyEvent applies one watch event. An ADDED or MODIFIED event for an
// object at the resourceVersion already stored changes nothing (a watch
// resumed from an older version may replay it). A DELETED event for an
// object not stored changes nothing either: no handler saw it.
func (i *informer) applyEvent(typ kube.EventType, obj kube.Object, size int32) {
	meta := obj.GetObjectMeta()
	i.mu.Lock()
	defer i.mu.Unlock()
	switch typ {
	case kube.Added, kube.Modified:
		old, ok := i.store.get(meta.Key())
		if ok && old.GetObjectMeta().ResourceVersion == meta.ResourceVersion {
			return
		}
		i.store.put(obj, size)
		if ok {
			i.notifyLocked(notification{kind: notifyUpdate, old: old, obj: obj})
		} else {
			i.notifyLocked(notification{kind: notifyAdd, obj: obj})
		}
	case kube.Deleted:
		if _, ok := i.store.remove(meta.Key()); ok {
			i.notifyLocked(notification{kind: notifyDelete, obj: obj})
		}
	}
}

// replace swaps in a state read by a list (or the initial events of a
// WatchList) and tells the handlers exactly what changed:
//   - an object that is new: OnAdd (isInInitialList on the first sync);
//   - an object at another resourceVersion: OnUpdate(old, new);
//   - an object with the same name but another UID (deleted and created
//     again while the watch was down): OnDelete(old, true) then OnAdd;
//   - an object that is gone: OnDelete(last known state, true);
//   - an object at the same resourceVersion: nothing.
//
// ns is the namespace the reflector covers ("" for all): only its objects
// are replaced. initial is set for the reflector's first state, and marks
// the adds isInInitialList; the informer is synced once every reflector
// has stored its first state. The cost is O(old + new).
func (i *informer) replace(next *state, ns string, initial bool) {
	i.mu.Lock()
	defer i.mu.Unlock()
	var prev *state
	if ns == "" {
		prev = i.store.replace(next)
	} else {
		prev = &state{objects: map[string]map[string]entry{ns: i.store.replaceNamespace(ns, next)}}
	}
	for ns, names := range next.objects {
		for name, e := range names {
			old, ok := prev.get(kube.Key{Namespace: ns, Name: name})
			switch {
			case !ok:
				i.notifyLocked(notification{kind: notifyAdd, obj: e.obj, flag: initial})
			case old.obj.GetObjectMeta().UID != e.obj.GetObjectMeta().UID:
				i.notifyLocked(notification{kind: notifyDelete, obj: old.obj, flag: true})
				i.notifyLocked(notification{kind: notifyAdd, obj: e.obj})
			case old.obj.GetObjectMeta().ResourceVersion != e.obj.GetObjectMeta().ResourceVersion:
				i.notifyLocked(notification{kind: notifyUpdate, old: old.obj, obj: e.obj})
			}
		}
	}
	for ns, names := range prev.objects {
		for name, e := range names {
			if _, ok := next.get(kube.Key{Namespace: ns, Name: name}); !ok {
				i.notifyLocked(notification{kind: notifyDelete, obj: e.obj, flag: true})
			}
		}
	}
	if initial {
		i.unsynced--
	}
	if initial && i.unsynced == 0 {
		i.isSynced = true
		i.initialRegs = append([]*Registration(nil), i.regs...)
		for _, r := range i.regs {
			r.markSynced()
		}
		close(i.synced)
	}
}
