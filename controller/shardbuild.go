// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// This file is how a [Builder] makes a sharded controller for a manager
// that runs a ring: the For kind's informer is sharded, the controller's
// source and gate are a [Shards], and the manager's ring member hands
// each range it holds to the controller's Work.

// ShardingManager is a [Manager] that runs a ring of replicas (kubeloop's
// manager with its Sharding option enabled). A [Builder] on such a manager
// makes sharded controllers: see [Builder.Build].
type ShardingManager interface {
	Manager
	// Sharded reports whether the builder's controllers are to be sharded.
	Sharded() bool
	// AddShardedController registers the controller of obj's kind under
	// name, as AddController does, makes obj's kind sharded in the cache
	// (its informer holds the shards given to work only), and calls work
	// for every range the replica holds, with the range's selector, until
	// ctx ends; work must return only after the reconciles of the range
	// in flight have ended. It fails once the manager has started.
	AddShardedController(name string, obj kube.Object, r Runnable, work func(ctx context.Context, sel kube.ShardSelector) error) error
}

// shardedSource is the source and gate of a sharded controller built by
// a [Builder]: it makes its [Shards] when the controller starts, from the
// manager's informer of the For kind, which is found then.
type shardedSource struct {
	kind    kube.GroupVersionKind
	preds   []Predicate
	resolve func(ctx context.Context) (cache.ObjectInformer, error)

	mu     sync.Mutex
	shards *Shards       // nil until made
	made   chan struct{} // closed when shards is set
}

func newShardedSource(mgr Manager, obj kube.Object, preds []Predicate) *shardedSource {
	return &shardedSource{kind: obj.GroupVersionKind(), preds: preds, made: make(chan struct{}),
		resolve: func(ctx context.Context) (cache.ObjectInformer, error) { return mgr.GetInformer(ctx, obj) }}
}

// get returns the Shards, making them on first call.
func (s *shardedSource) get(ctx context.Context) (*Shards, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.shards != nil {
		return s.shards, nil
	}
	inf, err := s.resolve(ctx)
	if err != nil {
		return nil, fmt.Errorf("watch shards of kind %s: %w", s.kind.Kind, err)
	}
	si, ok := inf.(ShardedInformer)
	if !ok {
		return nil, fmt.Errorf("watch shards of kind %s: the manager's informer (%T) is not sharded", s.kind.Kind, inf)
	}
	if len(s.preds) > 0 {
		si = filteredInformer{si, s.preds}
	}
	if s.shards, err = NewShards(si); err != nil {
		return nil, err
	}
	close(s.made)
	return s.shards, nil
}

// String implements [Source].
func (s *shardedSource) String() string { return fmt.Sprintf("shards of kind %s", s.kind.Kind) }

// WaitForSync implements [Source].
func (s *shardedSource) WaitForSync(ctx context.Context) error {
	sh, err := s.get(ctx)
	if err != nil {
		return err
	}
	return sh.WaitForSync(ctx)
}

// Run implements [Source].
func (s *shardedSource) Run(ctx context.Context, q Queue) error {
	sh, err := s.get(ctx)
	if err != nil {
		return err
	}
	return sh.Run(ctx, q)
}

// Work holds the shard of sel (see [Shards.Work]) once the controller
// has started; it returns nil if ctx ends first.
func (s *shardedSource) Work(ctx context.Context, sel kube.ShardSelector) error {
	select {
	case <-s.made:
	case <-ctx.Done():
		return nil
	}
	return s.shards.Work(ctx, sel)
}

// gate returns r gated by the shards held (see [Shards.Reconciler]); a
// request that comes before the controller's source made them is not
// ours yet, and dropped.
func (s *shardedSource) gate(r Reconciler) Reconciler {
	var gated Reconciler
	var once sync.Once
	return ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		select {
		case <-s.made:
		default:
			return Result{}, nil
		}
		once.Do(func() { gated = s.shards.Reconciler(r) })

		return gated.Reconcile(ctx, req)
	})
}

// filteredInformer is a sharded informer whose handlers see only the
// changes the For predicates allow: the objects a shard holds when it is
// taken over are still all reconciled.
type filteredInformer struct {
	ShardedInformer
	preds []Predicate
}

func (f filteredInformer) AddEventHandler(h cache.Handler[kube.Object]) (*cache.Registration, error) {
	pass := func(c Change) bool {
		c.Key = c.Object.GetObjectMeta().Key()
		return allow(f.preds, c)
	}
	return f.ShardedInformer.AddEventHandler(cache.HandlerFuncs[kube.Object]{
		AddFunc: func(obj kube.Object, initial bool) {
			if pass(Change{Type: ChangeCreate, Object: obj, InInitialList: initial}) {
				h.OnAdd(obj, initial)
			}
		},
		UpdateFunc: func(oldObj, newObj kube.Object, resync bool) {
			if pass(Change{Type: ChangeUpdate, Object: newObj, Old: oldObj, Resync: resync}) {
				h.OnUpdate(oldObj, newObj, resync)
			}
		},
		DeleteFunc: func(obj kube.Object, unknown bool) {
			if pass(Change{Type: ChangeDelete, Object: obj, FinalStateUnknown: unknown}) {
				h.OnDelete(obj, unknown)
			}
		},
	})
}

// errShardedOwns is Build's answer for a sharded controller with owned or
// watched kinds.
var errShardedOwns = errors.New("Owns and Watches of a sharded controller are not supported yet: the events of other kinds are not routed to the replica holding their owner; shard a For-only controller, or build this one on a manager without Sharding")
