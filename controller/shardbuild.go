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
)

// This file is how a [Builder] makes a sharded controller
// ([Builder.Sharded]): the controller's source and gate are a [Shards],
// made when the controller starts from the manager's informer of the For
// kind; the builder hands the manager the controller and the Shards'
// Work in one call (Manager.AddShardedController), and the manager, which
// runs the ring and makes the kind sharded in its cache, calls that Work
// for every range the replica holds.

// shardedBuild is what [Builder.Sharded] stores: the one way in to this
// file from Build, so that programs that never call Sharded link none of
// it (see "Binary size" in the package doc).
type shardedBuild interface {
	build(b *Builder, name string, r Reconciler, opts Options) (*Controller, error)
}

// shardBuild builds sharded controllers.
type shardBuild struct{}

// shardedErrors returns the mistakes of a sharded controller's chain.
func (b *Builder) shardedErrors() []error {
	var errs []error
	if b.forObj == nil {
		errs = append(errs, errors.New("Sharded needs For: the For kind is the one sharded"))
		return errs
	}
	if len(b.watches) > 0 {
		errs = append(errs, errShardedWatches)
	}
	for _, w := range b.owns {
		if w.obj.GroupVersionKind() == b.forObj.GroupVersionKind() {
			errs = append(errs, fmt.Errorf("Owns %s of a sharded controller of %[1]s: the owned objects would be sharded by their own uid, not their owner's", w.obj.GroupVersionKind().Kind))
		}
	}
	return errs
}

// build makes the controller of a checked chain, gated by its Shards,
// and registers it with the manager together with their Work.
func (shardBuild) build(b *Builder, name string, r Reconciler, opts Options) (*Controller, error) {
	src := newShardedSource(b.mgr, b.forObj, b.predicates(b.forPred))
	everyReplica := false
	opts.NeedLeaderElection = &everyReplica
	c, err := b.newController(name, src.gate(r), opts)
	if err != nil {
		return nil, err
	}
	c.sources = append(c.sources, src)
	for _, w := range b.owns {
		c.sources = append(c.sources, b.owned(b.mgr, w, func(ctx context.Context, owner kube.Object, opts OwnerOptions) (EventHandler, error) {
			sh, err := src.get(ctx)
			if err != nil {
				return nil, err
			}
			return sh.EnqueueOwner(owner, opts), nil
		}))
	}
	c.sources = append(c.sources, b.sources...)
	if err := b.mgr.AddShardedController(name, b.forObj, c, src.Work); err != nil {
		return nil, errs.Errorf("build controller %q: %w", name, err)
	}
	return c, nil
}

// shardedSource is the source and gate of a sharded controller built by
// a [Builder]: it makes its [Shards] when the controller starts, from the
// manager's informer of the For kind, which is found then (the manager
// made the kind sharded when the builder registered the controller).
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
		return nil, errs.Errorf("watch shards of kind %s: %w", s.kind.Kind, err)
	}
	si, ok := inf.(ShardedInformer)
	if !ok {
		return nil, errs.Errorf("watch shards of kind %s: the manager's informer (%T) is not sharded", s.kind.Kind, inf)
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
// has started; it returns nil if ctx ends first. It is what the builder
// hands the manager.
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
var errShardedWatches = errors.New("Watches of a sharded controller are not supported yet: the events of other kinds are not routed to the replica holding the objects they map to; use Owns, or build this one without Sharded")
