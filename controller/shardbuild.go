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
	// AddShardedController registers the controller r of obj's kind
	// under name, as AddController does, makes obj's kind sharded in the
	// cache (its informer holds only the shards the controller works on),
	// and calls s.ShardController once, before the controller starts: the
	// work it returns is then called for every range the replica holds,
	// with the range's selector, until ctx ends. It fails once the manager
	// has started.
	AddShardedController(name string, obj kube.Object, r interface {
		Start(ctx context.Context) error
		NeedLeaderElection() bool
	}, s Sharder) error
}

// Sharder is what a [Builder] hands a [ShardingManager] with a sharded
// controller. ShardController makes the controller sharded (its source
// and gate), once, before it starts, and returns its work: work holds the
// shard of sel until ctx ends, and returns only after the reconciles of
// the shard in flight have ended. It is an alias of an interface literal
// so that a manager can name it without importing this package; being
// called only by a manager that shards, it keeps the sharded machinery
// out of the programs that do not shard.
type Sharder = interface {
	ShardController() (work func(ctx context.Context, sel kube.ShardSelector) error)
}

// sharder is a sharded controller's [Sharder], and its reconciler: a
// request is reconciled only once ShardController has made the gate, and
// then through it.
type sharder struct {
	mgr   Manager
	obj   kube.Object
	preds []Predicate
	r     Reconciler  // the user's
	c     *Controller // set by Build
	b     *Builder    // for the Owns kinds

	gated Reconciler // set by ShardController, before the controller starts
}

// ShardController implements [Sharder].
func (s *sharder) ShardController() func(ctx context.Context, sel kube.ShardSelector) error {
	src := newShardedSource(s.mgr, s.obj, s.preds)
	s.gated = src.gate(s.r)
	_ = s.c.Watch(src) // the controller has not started: Watch cannot fail
	for _, w := range s.b.owns {
		_ = s.c.Watch(s.b.owned(w, src.get))
	}
	return src.Work
}

// Reconcile implements [Reconciler].
func (s *sharder) Reconcile(ctx context.Context, req Request) (Result, error) {
	if s.gated == nil {
		return Result{}, nil
	}
	return s.gated.Reconcile(ctx, req)
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
	if s.shards, err = NewShards(si); err != nil {
		return nil, err
	}
	s.shards.preds = s.preds
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

// allows reports whether the predicates of s let change c through: Run
// queues only those, while Work still queues every object of a shard
// taken over.
func (s *Shards) allows(c Change) bool {
	if len(s.preds) == 0 {
		return true
	}
	c.Key = c.Object.GetObjectMeta().Key()
	return allow(s.preds, c)
}

// errShardedWatches is Build's answer for a sharded controller with
// watched kinds.
var errShardedWatches = errors.New("Watches of a sharded controller are not supported yet: the events of other kinds are not routed to the replica holding the objects they map to; use Owns, or build this one on a manager without Sharding")
