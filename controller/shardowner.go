// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"github.com/kubeloop/kubeloop/kube"
)

// EnqueueOwner returns the handler of a kind a sharded controller owns:
// [EnqueueOwner] with owner and opts, except that an owner is queued only
// when this member holds its shard: the owner is in the cache, stored by
// the reflector of a shard held here and not being released (the shard
// its uid, or its namespace, hashes into). This is the test the
// reconciler's gate makes ([Shards.Reconciler]), made before the request
// is queued, so that a member queues no request of an owner held
// elsewhere; an owner not cached yet is queued by its own creation when
// it arrives, and its reconcile then reads the owned kind's cache.
//
// Watch the owned kind's informer with it ([Kind]); that informer is not
// sharded: see "Owned kinds" at [Shards] for the guarantees and the cost.
// It panics as [EnqueueOwner] does. Cost per owner reference that
// matches: two map lookups, each under a lock, and the formatting of the
// owner's shard selector.
func (s *Shards) EnqueueOwner(owner kube.Object, opts OwnerOptions) EventHandler {
	h := newEnqueueOwner("Shards.EnqueueOwner", owner, opts)
	h.keep = func(r Request) bool { return s.holds(r.Key) }
	return h
}

// holds reports whether the object at k is cached in a shard held here
// and not being released.
func (s *Shards) holds(k kube.Key) bool {
	if !s.made() {
		return false
	}
	sel, stored := s.inf.ShardOf(k)
	if !stored {
		return false
	}
	id := sel.String()
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.held[id]
	return h != nil && !h.released
}
