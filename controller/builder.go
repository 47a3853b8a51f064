// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"strings"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// Manager is what a [Builder] needs from the program that runs
// controllers (kubeloop's manager implements it; this package does not
// import it).
type Manager interface {
	// GetInformer returns the informer of obj's kind and Go type from the
	// manager's cache, making it on first use; the cache runs it (a
	// *cache.Cache has this method). obj only names the kind: &Widget{}.
	// The builder calls it when the controller starts, with Start's
	// context.
	GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error)
	// Mapping says where a kind lives, from discovery (a *kube.Client
	// has this method). The builder calls it when the controller starts,
	// for Owns: it tells whether the owner kind is cluster-scoped.
	Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error)
	// AddController registers r (a *Controller) under name, to be
	// started with the manager's runnables (gated by leader election
	// when r.NeedLeaderElection()). It fails when another controller has
	// the name: names must be unique within a manager, as they label
	// metrics and logs. r's type is manager.LeaderElectionRunnable,
	// spelled out so that this package does not import manager.
	AddController(name string, r interface {
		Start(ctx context.Context) error
		NeedLeaderElection() bool
	}) error
	// AddShardedController registers r as AddController does, to run on
	// every replica without leader election, makes obj's kind sharded in
	// the manager's cache (its informer holds only the shards of the
	// ranges this replica holds), and, while the manager runs, calls work
	// for each range it holds with the range's shard selector, as it
	// calls a runnable's Start: work holds the shard until ctx ends. It
	// fails when the manager runs no ring, and once the manager has
	// started. The builder calls it for [Builder.Sharded].
	AddShardedController(name string, obj kube.Object, r interface {
		Start(ctx context.Context) error
		NeedLeaderElection() bool
	}, work func(ctx context.Context, sel kube.ShardSelector) error) error
	// Freshness tells whether the manager's cache holds the manager's own
	// writes: a controller with For asks it before each reconcile (unless
	// Options.ReconcileStale).
	Freshness
}

// Builder wires a controller to a manager: the kind it reconciles, the
// kinds it owns, other sources, predicates and options. Make one with
// [NewBuilder], chain its methods, and end with [Builder.Complete] or
// [Builder.Build]. Mistakes made along the chain are reported there.
//
// Kinds are given as object values (&Widget{}, &kube.ConfigMap{}, or a
// kube.Unstructured or kube.PartialObjectMetadata with apiVersion and kind
// set): the value names the kind and the Go type the cache decodes into.
type Builder struct {
	mgr     Manager
	forObj  kube.Object
	forPred []Predicate
	owns    []watchSpec
	watches []watchSpec
	sources []Source
	filters []Predicate
	name    string
	opts    Options
	errs    []error
	// sharded builds the controller sharded (shardbuild.go); nil unless
	// Sharded was called. See "Binary size" in the package doc.
	sharded shardedBuild
	// clusters builds the controller for a fleet (clusters.go); nil
	// unless Clusters was called. See "Binary size" in the package doc.
	clusters clusteredBuild
}

type watchSpec struct {
	obj   kube.Object
	h     EventHandler
	preds []Predicate
}

// NewBuilder returns a builder of a controller that m runs.
func NewBuilder(m Manager) *Builder { return &Builder{mgr: m} }

// For sets the kind the controller reconciles: each change of an object of
// this kind that passes preds (and the [Builder.WithEventFilter]
// predicates) queues a request for the object itself. It may be called
// once. The controller's name defaults to the kind in lower case.
func (b *Builder) For(obj kube.Object, preds ...Predicate) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	switch {
	case b.forObj != nil:
		b.errs = append(b.errs, errors.New("For called twice"))
	case b.checkKind("For", obj):
		b.forObj, b.forPred = obj, preds
	}
	return b
}

// Owns adds a kind the controller creates and owns: each change of an
// object of this kind that passes preds queues its controlling owner of
// the For kind ([EnqueueOwner] with OnlyController; whether the owner is
// cluster-scoped is asked of the manager's Mapping). For other owner
// references, use Watches with EnqueueOwner.
func (b *Builder) Owns(obj kube.Object, preds ...Predicate) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	if b.checkKind("Owns", obj) {
		b.owns = append(b.owns, watchSpec{obj: obj, preds: preds})
	}
	return b
}

// Watches adds a kind whose changes, once through preds, go to h (for
// example [EnqueueMapped]).
func (b *Builder) Watches(obj kube.Object, h EventHandler, preds ...Predicate) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	if h == nil {
		b.errs = append(b.errs, errs.Errorf("Watches %T: handler is nil", obj))
		return b
	}
	if b.checkKind("Watches", obj) {
		b.watches = append(b.watches, watchSpec{obj: obj, h: h, preds: preds})
	}
	return b
}

// WatchesSource adds a source made by hand, such as a [Channel]. The
// [Builder.WithEventFilter] predicates do not apply to it.
func (b *Builder) WatchesSource(src Source) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	if src == nil {
		b.errs = append(b.errs, errors.New("WatchesSource: source is nil"))
		return b
	}
	b.sources = append(b.sources, src)
	return b
}

// WithEventFilter adds predicates to every kind watched (For, Owns and
// Watches), ahead of their own.
func (b *Builder) WithEventFilter(preds ...Predicate) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	b.filters = append(b.filters, preds...)
	return b
}

// Named sets the controller's name, which must be unique within the
// manager. It overrides the default taken from For.
func (b *Builder) Named(name string) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	b.name = name
	return b
}

// Sharded makes the controller sharded over the replicas of a ring, which
// the manager runs (kubeloop's manager with Options.Sharding; Build fails
// on one without): the For kind's informer holds only the shards of the
// ranges this replica holds, the controller runs on every replica (it
// needs no leader election; Options.NeedLeaderElection is overridden),
// and it reconciles only the objects of those shards (see [Shards] for
// the guarantees). Its For predicates filter changes as usual, but every
// object of a shard is reconciled when the replica takes the shard over.
// The changes of an Owns kind queue their owner on the replica holding
// the owner's shard alone ([Shards.EnqueueOwner]); the Owns kind's
// informer is not sharded: every replica caches all its objects (see
// "Owned kinds" at [Shards]), and Owns of the For kind itself is refused.
// Watches are refused for now; requests from WatchesSource sources are
// reconciled only when the object's shard is held here. It needs For.
// The manager's other controllers, of other kinds, may be unsharded.
func (b *Builder) Sharded() *Builder {
	if b == nil {
		return nil // Build reports it
	}
	b.sharded = shardBuild{}
	return b
}

// WithOptions sets the controller's options.
func (b *Builder) WithOptions(opts Options) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	b.opts = opts
	return b
}

// Complete is Build without the controller.
func (b *Builder) Complete(r Reconciler) error {
	_, err := b.Build(r)
	return err
}

// Build makes the controller, adds its sources, and registers it with the
// manager, which starts it. It fails for the mistakes made along the
// chain, when there is neither For nor Named, when Owns is used without
// For, and when the manager refuses the name. It does no I/O: the
// sources find their informers when the controller starts. A
// [Builder.Sharded] controller is registered with the manager's
// AddShardedController, which fails on a manager that runs no ring; a
// [Builder.Clusters] controller is registered with AddController, and
// Build returns nil for it: it runs a controller for each cluster
// engaged.
func (b *Builder) Build(r Reconciler) (*Controller, error) {
	if b == nil {
		return nil, errNoBuilder
	}
	errs := b.errs
	if b.mgr == nil {
		errs = append(errs, errors.New("manager is nil"))
	}
	name := b.name
	if name == "" && b.forObj != nil {
		name = strings.ToLower(b.forObj.GroupVersionKind().Kind)
	}
	if name == "" {
		errs = append(errs, errors.New("the controller has no name: call For or Named"))
	}
	if len(b.owns) > 0 && b.forObj == nil {
		errs = append(errs, errors.New("Owns needs For: the owner is the For kind"))
	}
	if b.sharded != nil {
		errs = append(errs, b.shardedErrors()...)
	}
	if b.clusters != nil && b.sharded != nil {
		errs = append(errs, errors.New("Clusters and Sharded together: a fleet's controller is not sharded yet"))
	}
	if err := errors.Join(errs...); err != nil {
		if name == "" {
			return nil, fmt.Errorf("build controller: %w", err)
		}
		return nil, fmt.Errorf("build controller %q: %w", name, err)
	}
	opts := b.opts
	if opts.Logger != nil && b.forObj != nil {
		opts.Logger = opts.Logger.With("kind", b.forObj.GroupVersionKind().Kind)
	}
	if b.clusters != nil {
		return b.clusters.build(b, name, r, opts)
	}
	if b.sharded != nil {
		return b.sharded.build(b, name, r, opts)
	}
	c, err := b.newController(name, r, opts)
	if err != nil {
		return nil, err
	}
	c.sources = append(b.kindSources(b.mgr), b.sources...)
	if err := b.mgr.AddController(name, c); err != nil {
		return nil, fmt.Errorf("build controller %q: %w", name, err)
	}
	return c, nil
}

// kindSources returns the sources of the kinds the chain watches (For,
// Owns, Watches), whose informers and mapping come from from when the
// controller starts: the manager, or one cluster of a fleet.
func (b *Builder) kindSources(from Cluster) []Source {
	var srcs []Source
	if b.forObj != nil {
		srcs = append(srcs, b.kind(from, b.forObj, EnqueueObject(), b.forPred))
	}
	for _, w := range b.owns {
		srcs = append(srcs, b.owned(from, w, func(_ context.Context, owner kube.Object, opts OwnerOptions) (EventHandler, error) {
			return EnqueueOwner(owner, opts), nil
		}))
	}
	for _, w := range b.watches {
		srcs = append(srcs, b.kind(from, w.obj, w.h, w.preds))
	}
	return srcs
}

// newController makes the controller with the stale gate of the For
// kind.
func (b *Builder) newController(name string, r Reconciler, opts Options) (*Controller, error) {
	c, err := New(name, r, opts)
	if err != nil {
		return nil, errs.Errorf("build controller: %w", err)
	}
	if b.forObj != nil && !opts.ReconcileStale {
		c.stale = newStaleGate(b.mgr, b.forObj.GroupVersionKind())
	}
	return c, nil
}

// checkKind records a mistake if obj does not name a kind.
func (b *Builder) checkKind(method string, obj kube.Object) bool {
	if obj == nil {
		b.errs = append(b.errs, errs.Errorf("%s: object is nil", method))
		return false
	}
	if gvk := obj.GroupVersionKind(); gvk.Kind == "" || gvk.Version == "" {
		b.errs = append(b.errs, errs.Errorf("%s: %T names no kind: set its apiVersion and kind", method, obj))
		return false
	}
	return true
}

// kind returns a source of obj's kind from the informers of m (the
// manager's cache, or a cluster's), found when the controller starts.
func (b *Builder) kind(m Cluster, obj kube.Object, h EventHandler, preds []Predicate) Source {
	k := newKindSource(b.predicates(preds))
	k.kind = obj.GroupVersionKind()
	k.resolve = func(ctx context.Context) (cache.ObjectInformer, EventHandler, error) {
		src, err := m.GetInformer(ctx, obj)
		return src, h, err
	}
	return k
}

// owned returns the source of an Owns kind from the informers of m: its
// owner's scope, which m's mapping tells, decides the options of the
// handler enqueue makes (EnqueueOwner, or a sharded controller's
// Shards.EnqueueOwner), when the controller starts.
func (b *Builder) owned(m Cluster, w watchSpec, enqueue func(ctx context.Context, owner kube.Object, opts OwnerOptions) (EventHandler, error)) Source {
	k := newKindSource(b.predicates(w.preds))
	k.kind = w.obj.GroupVersionKind()
	owner := b.forObj
	k.resolve = func(ctx context.Context) (cache.ObjectInformer, EventHandler, error) {
		mapping, err := m.Mapping(ctx, owner.GroupVersionKind())
		if err != nil {
			return nil, nil, errs.Errorf("find the scope of owner kind %s: %w", owner.GroupVersionKind().Kind, err)
		}
		h, err := enqueue(ctx, owner, OwnerOptions{OnlyController: true, ClusterScoped: !mapping.Namespaced})
		if err != nil {
			return nil, nil, err
		}
		src, err := m.GetInformer(ctx, w.obj)
		return src, h, err
	}
	return k
}

// predicates returns the change filters (WithEventFilter) followed by preds, in a slice of
// its own.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (b *Builder) predicates(preds []Predicate) []Predicate {
	return append(append([]Predicate(nil), b.filters...), preds...)
}
