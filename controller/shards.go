// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// ShardedInformer is what [Shards] needs of the informer of a sharded
// controller's kind: a [cache.Informer] made with
// [cache.InformerOptions.Sharded] (its ObjectInformer).
type ShardedInformer interface {
	cache.ObjectInformer
	AddShard(sel kube.ShardSelector) error
	RemoveShard(sel kube.ShardSelector) (int, error)
	WaitForShard(ctx context.Context, sel kube.ShardSelector) error
	ShardKeys(sel kube.ShardSelector) ([]kube.Key, error)
	ShardOf(k kube.Key) (kube.ShardSelector, bool)
}

// Shards runs a controller on the shards of its kind that this replica
// holds, for a ring member (package leader: [Shards.Work] has the
// signature of a member's Work, which is given each range's shard
// selector; [Builder.Sharded] hands it to a manager that runs the ring).
// It is the controller's source
// of requests for the sharded kind (watch it with [Controller.Watch]; it
// queues a request for every change the informer reports) and the gate
// of its reconciles (make the controller with [Shards.Reconciler]).
//
// Guarantees, given the ring's (never two holders of a range at once):
//   - Never two reconciles of one object at once across replicas: a
//     request is reconciled only while the shard holding its object is
//     held here, and Work returns (so the ring publishes the release)
//     only after the reconciles of the shard's objects in flight have
//     returned. Requests of shards not held are dropped (forgotten, not
//     retried): their holder reconciles them.
//   - Every object reconciled after a handover, once and promptly: Work
//     queues every object of the shard once the shard's first list is
//     stored, and every change after that. The first list's own events
//     queue nothing: queued as well, an object Work's request had
//     already handed to a worker would be reconciled a second time,
//     right after the first. Work queues them at the priority of a
//     change, not at [LowPriority] as a resync: they may have changed
//     while no one held the shard, and they wait behind the changes
//     queued before them, not behind every change the member's other
//     shards bring until the queue's aging lets them through.
//   - Deletions: an object deleted while its shard is held is reconciled
//     (the cache no longer has it; Shards remembers whose it was until
//     then). Dropping a shard is not a deletion and reconciles nothing.
//     A deletion seen by no holder (during a handover) is not reconciled:
//     controllers that must act on deletions use finalizers, as always.
//
// The shard field is the field of the selectors Work is given: by uid, the
// objects spread evenly; by namespace, every object of a namespace is
// reconciled on one member, for reconciles that read across their
// namespace, at the price of a load that follows the namespaces (see
// [kube.ShardField]).
//
// Reconciles in flight are not cancelled when a shard moves: bound them
// with [Options.ReconcileTimeout] below the ring's LeaseDuration -
// RenewDeadline, since Work must return within that when renewals fail.
//
// Owned kinds: watch an informer of each kind the controller creates with
// [Kind] and [Shards.EnqueueOwner], which queues an owned object's
// controlling owner on the member holding the owner's shard alone. The
// guarantees are the For kind's: a request for an owner whose shard is
// not held here is neither queued nor reconciled here, and nothing is
// lost in a handover, since every owned change is either in the owned
// cache before Work queues every owner of the shard it takes, or reported
// after, when the shard is held. The cost: the owned kind's informer is
// not sharded, so every member lists, watches and caches every owned
// object, as an unsharded replica does. kube-apiserver 1.36 shards by
// object.metadata.uid or object.metadata.namespace alone (any other
// field, ownerReferences included, is refused), and a dependent's uid
// hashes elsewhere than its owner's. Make it cheaper with a metadata-only
// informer of the owned kind ([kube.PartialObjectMetadata]: the owner
// references are all the routing reads; about a quarter of a 1 KiB
// ConfigMap's bytes) when the reconciler reads the owned objects from the
// server or not at all.
type Shards struct {
	inf ShardedInformer
	// preds filter the changes Run queues (a Builder's For predicates);
	// set before Run, nil for none.
	preds []Predicate

	// ready is closed when Run has set q.
	ready chan struct{}
	q     Queue

	mu sync.Mutex
	// idle is signalled (with mu) when a held shard's reconciles in
	// flight drop to zero.
	idle *sync.Cond
	// held are the shards whose requests are reconciled, by selector
	// string; a shard is in held from the moment its first state is
	// stored until Work's ctx ends.
	held map[string]*heldShard
	// added are the shards added to the informer and not yet removed,
	// by selector string; gone are the deleted objects of those shards
	// not yet reconciled: key → selector string.
	added map[string]kube.ShardSelector
	gone  map[kube.Key]string
}

// heldShard counts the reconciles in flight of one held shard.
type heldShard struct {
	inflight int
	// released is set when Work's ctx ends: no reconcile starts after.
	released bool
}

// NewShards returns the gate of a controller of inf's kind. It does no
// I/O and starts nothing.
func NewShards(inf ShardedInformer) (*Shards, error) {
	if inf == nil {
		return nil, errors.New("new shards: informer is nil")
	}
	s := &Shards{inf: inf, ready: make(chan struct{}), held: map[string]*heldShard{},
		added: map[string]kube.ShardSelector{}, gone: map[kube.Key]string{}}
	s.idle = sync.NewCond(&s.mu)
	return s, nil
}

// String implements [Source].
func (s *Shards) String() string {
	if !s.made() {
		return "controller.Shards (not made by NewShards)"
	}
	return fmt.Sprintf("shards of kind %s", s.inf.Kind().Kind)
}

// WaitForSync implements [Source]: a sharded informer is synced as soon
// as it runs; each shard's sync is awaited by Work.
func (s *Shards) WaitForSync(ctx context.Context) error {
	if !s.made() {
		return errNoShards
	}
	return s.inf.WaitForSync(ctx)
}

// Run implements [Source]: it queues a request for every change the
// informer reports until ctx is done (resyncs at [LowPriority], as [Kind]
// does; not the objects of a shard's first list, which Work queues),
// remembering whose each deleted object was.
func (s *Shards) Run(ctx context.Context, q Queue) error {
	if !s.made() {
		return errNoShards
	}
	select {
	case <-s.ready:
		return errs.Errorf("run %s: run before", s)
	default:
	}
	s.q = q
	enqueue := func(obj kube.Object, low bool) {
		req := Request{Key: obj.GetObjectMeta().Key()}
		if low {
			q.AddWithOptions(req, queue.AddOptions{Priority: LowPriority})
		} else {
			q.Add(req)
		}
	}
	reg, err := s.inf.AddEventHandler(cache.HandlerFuncs[kube.Object]{
		AddFunc: func(obj kube.Object, initial bool) {
			// A shard's first list (and the objects stored when the
			// handler registered) are Work's to queue, once, when the
			// shard is held.
			if !initial && s.allows(Change{Type: ChangeCreate, Object: obj}) {
				enqueue(obj, false)
			}
		},
		UpdateFunc: func(old, obj kube.Object, resync bool) {
			if s.allows(Change{Type: ChangeUpdate, Object: obj, Old: old, Resync: resync}) {
				enqueue(obj, resync)
			}
		},
		DeleteFunc: func(obj kube.Object, unknown bool) {
			if !s.allows(Change{Type: ChangeDelete, Object: obj, FinalStateUnknown: unknown}) {
				return
			}
			s.mu.Lock()
			for id, sel := range s.added {
				if sel.Matches(obj) {
					s.gone[obj.GetObjectMeta().Key()] = id
				}
			}
			s.mu.Unlock()
			enqueue(obj, false)
		},
	})
	if err != nil {
		return errs.Errorf("run %s: %w", s, err)
	}
	close(s.ready) // after the registration: Work's ShardKeys then holds every object stored before it
	<-ctx.Done()
	_ = s.inf.RemoveEventHandler(reg)
	return nil
}

// Work holds the shard of sel until ctx ends: it adds the shard to the
// informer (one list and watch of its objects), waits for its first
// state, reconciles every object of it and every change, and when ctx
// ends stops taking its requests, waits for its reconciles in flight to
// return, and drops the shard from the informer. It returns only then,
// so a ring member publishes the release after the last reconcile of the
// shard. It returns an error, having dropped the shard, when the shard
// cannot be added or ctx ends before its first state is stored.
func (s *Shards) Work(ctx context.Context, sel kube.ShardSelector) error {
	if !s.made() {
		return errNoShards
	}
	id := sel.String()
	if err := s.inf.AddShard(sel); err != nil {
		return err
	}
	s.mu.Lock()
	s.added[id] = sel
	s.mu.Unlock()
	defer s.drop(sel)
	if err := s.inf.WaitForShard(ctx, sel); err != nil {
		return errs.Errorf("hold shard %s: %w", id, err)
	}
	select {
	case <-s.ready:
	case <-ctx.Done():
		return nil
	}
	h := &heldShard{}
	s.mu.Lock()
	s.held[id] = h
	var keys []kube.Key
	for k, of := range s.gone {
		if of == id {
			keys = append(keys, k)
		}
	}
	s.mu.Unlock()
	stored, err := s.inf.ShardKeys(sel)
	if err != nil {
		return errs.Errorf("hold shard %s: %w", id, err)
	}
	for _, k := range keys { // deleted while the shard was syncing
		s.q.Add(Request{Key: k})
	}
	for _, k := range stored { // changes, maybe, made while no one held the shard
		s.q.Add(Request{Key: k})
	}
	<-ctx.Done()
	s.mu.Lock()
	h.released = true
	for h.inflight > 0 {
		s.idle.Wait()
	}
	delete(s.held, id)
	s.mu.Unlock()
	return nil
}

// drop removes the shard of sel from the informer and forgets its
// deleted objects.
func (s *Shards) drop(sel kube.ShardSelector) {
	id := sel.String()
	s.mu.Lock()
	delete(s.added, id)
	for k, of := range s.gone {
		if of == id {
			delete(s.gone, k)
		}
	}
	s.mu.Unlock()
	_, _ = s.inf.RemoveShard(sel) // fails only for a shard not added
}

// Reconciler returns r gated by the shards held: see [Shards].
func (s *Shards) Reconciler(r Reconciler) Reconciler {
	return ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		id, h := s.begin(req.Key)
		if h == nil {
			return Result{}, nil // not ours (any more): its holder reconciles it
		}
		defer s.end(req.Key, id, h)
		return r.Reconcile(ctx, req)
	})
}

// begin returns the held shard of the object at k with a reconcile
// counted in flight, or nil when its shard is not held.
func (s *Shards) begin(k kube.Key) (string, *heldShard) {
	sel, stored := s.inf.ShardOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	id := sel.String()
	if !stored {
		id = s.gone[k]
	}
	h := s.held[id]
	if h == nil || h.released {
		return "", nil
	}
	h.inflight++
	return id, h
}

// end ends a reconcile begin counted, and forgets a deleted object once
// reconciled.
func (s *Shards) end(k kube.Key, id string, h *heldShard) {
	_, stored := s.inf.ShardOf(k)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !stored && s.gone[k] == id {
		delete(s.gone, k)
	}
	h.inflight--
	if h.inflight == 0 {
		s.idle.Broadcast()
	}
}
