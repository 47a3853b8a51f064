// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/wait"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/queue"
)

// This file is how a [Builder] makes a controller for a fleet of
// clusters ([Builder.Clusters]): a runnable that, for each cluster of a
// [Clusters] engaged, runs a [Controller] of its own (its queue, its
// workers, the chain's kind sources made from that cluster's informers)
// until the cluster is disengaged.

// Clusters is a changing set of named clusters: what a controller built
// with [Builder.Clusters] watches. Package manager/fleet's *Fleet is one;
// a program may write its own.
type Clusters interface {
	// Watch calls engage for each cluster of the set, those in it when
	// Watch is called and those engaged later, each call in a goroutine
	// of its own, until ctx is done. The context engage is given is done
	// when its cluster is disengaged or ctx is done; engage then undoes
	// what it did and returns. A name is engaged again only after every
	// engage of its previous cluster has returned. Watch returns once
	// ctx is done and every call of engage has returned.
	Watch(ctx context.Context, engage func(ctx context.Context, name string, c Cluster))
}

// Cluster is what a controller needs of one cluster of a [Clusters]: its
// informers, and where its kinds live (a [Manager] has these methods
// too). A Cluster that also has the methods of [Freshness] gets
// stale-safe reconciles, as a controller of the manager's cluster does.
// It is an alias of an interface literal so that a set can spell it
// without importing this package; this is the type's one name.
type Cluster = interface {
	GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error)
	Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error)
}

// Clusters makes the controller watch every cluster of set, those
// engaged now and those engaged while it runs, instead of the manager's
// own cluster (engage that one into the set too if it is to be
// watched). For each cluster engaged, it runs a controller of its own
// with the chain's options: its own queue and MaxConcurrentReconciles
// workers (a slow or busy cluster holds up no other), watching the For,
// Owns and Watches kinds in that cluster's informers, calling r. The
// reconcile's context carries the cluster: the set says how to read it
// (manager/fleet's fleet.ClusterFrom(ctx)), and the reconcile's logger
// has the key "cluster". When a cluster is disengaged, its controller
// stops: its requests still queued are dropped, its reconciles in flight
// have their context cancelled and are waited for, its sources leave
// its informers.
//
// Where it differs from a controller of one cluster:
//   - Build returns a nil *Controller: there is one for each cluster,
//     made when the cluster is engaged. Call Complete.
//   - A cluster's controller that fails (its sources not synced within
//     [Options.CacheSyncTimeout], an unreachable cluster, a kind it does
//     not serve) is logged with the key "cluster" and started again
//     after a backoff (1s doubling to 5m) while the cluster is engaged;
//     the other clusters' go on.
//   - WatchesSource is refused: a [Source] serves one controller, and
//     there is one for each cluster. [Builder.WatchesIn] watches a kind
//     of a cluster outside the set (the manager's own, a hub) for every
//     cluster's controller; [Builder.ClusterFilter] chooses the clusters
//     the controller runs in.
//
// The controller's series (controller_runtime_*, workqueue_*, under the
// builder's name) carry the label cluster, one set for each engaged
// cluster; a cluster's series go when it is disengaged. Clusters and
// [Builder.Sharded] do not go together yet.
func (b *Builder) Clusters(set Clusters) *Builder {
	if b == nil {
		return nil // Build reports it
	}
	if set == nil {
		b.errs = append(b.errs, errors.New("Clusters: set is nil"))
		return b
	}
	b.clusters = &clusterBuild{set: set}
	return b
}

// clusteredBuild is what [Builder.Clusters] stores: the one way in to
// this file from Build, so that programs that never call Clusters link
// none of it (see "Binary size" in the package doc).
type clusteredBuild interface {
	build(b *Builder, name string, r Reconciler, opts Options) (*Controller, error)
}

// clusterBuild builds controllers for a fleet.
type clusterBuild struct {
	set    Clusters
	hubs   []hubWatch             // WatchesIn
	filter func(name string) bool // ClusterFilter; nil runs in every cluster
}

// build checks the chain and the options (by making one controller),
// and registers the fleet controller with the manager.
func (cb *clusterBuild) build(b *Builder, name string, r Reconciler, opts Options) (*Controller, error) {
	if len(b.sources) > 0 {
		return nil, errs.Errorf("build controller %q: WatchesSource and Clusters together: a source serves one controller, and there is one for each cluster", name)
	}
	probe, err := New(name, r, opts)
	if err != nil {
		return nil, errs.Errorf("build controller: %w", err)
	}
	chain := *b // the kinds as they are now, for every cluster engaged later
	hubs := slices.Clone(cb.hubs)
	kinds := func(cluster string, from Cluster) []Source {
		srcs := chain.kindSources(from)
		for _, h := range hubs {
			srcs = append(srcs, chain.kind(h.in, h.obj, EnqueueMapped(func(ctx context.Context, obj kube.Object) []Request {
				return h.fn(ctx, cluster, obj)
			}), h.preds))
		}
		return srcs
	}
	fc := &fleetController{name: name, r: r, opts: opts, set: cb.set, kinds: kinds, filter: cb.filter, forObj: b.forObj,
		needLeader: probe.needLeader, running: map[string]*Controller{}}
	if err := b.mgr.AddController(name, fc); err != nil {
		return nil, errs.Errorf("build controller %q: %w", name, err)
	}
	return nil, nil
}

// fleetController runs a [Controller] for each cluster of a set: it is
// what the manager runs under the builder's name.
type fleetController struct {
	name       string
	r          Reconciler
	opts       Options
	set        Clusters
	kinds      func(cluster string, from Cluster) []Source // the chain's kind sources for one cluster
	filter     func(name string) bool                      // the clusters to run in; nil for all
	forObj     kube.Object                                 // the For kind, whose requests the stale gate checks; nil without For
	needLeader bool

	mu sync.Mutex
	// running holds the controller of each engaged cluster while it
	// runs, for the metrics.
	running map[string]*Controller
}

// Name returns the controller's name.
func (fc *fleetController) Name() string { return fc.name }

// NeedLeaderElection reports [Options.NeedLeaderElection].
func (fc *fleetController) NeedLeaderElection() bool { return fc.needLeader }

// Start runs a controller for each cluster of the set until ctx is done,
// and returns once every one has stopped.
func (fc *fleetController) Start(ctx context.Context) error {
	fc.set.Watch(ctx, fc.engage)
	return nil
}

// engage runs the controller of cluster c, named name, until ctx is
// done, starting it again after a backoff when it fails.
func (fc *fleetController) engage(ctx context.Context, name string, c Cluster) {
	if fc.filter != nil && !fc.filter(name) {
		return
	}
	opts := fc.opts
	if opts.Logger != nil {
		opts.Logger = opts.Logger.With("cluster", name)
	}
	for delay := time.Second; ; delay = min(2*delay, 5*time.Minute) {
		ctrl, err := New(fc.name, fc.r, opts) // the options were checked by build
		if err != nil {
			return
		}
		if f, ok := c.(Freshness); ok && fc.forObj != nil && !opts.ReconcileStale {
			ctrl.stale = newStaleGate(f, fc.forObj.GroupVersionKind())
		}
		ctrl.sources = fc.kinds(name, c)
		fc.mu.Lock()
		fc.running[name] = ctrl
		fc.mu.Unlock()
		err = ctrl.Start(ctx)
		fc.mu.Lock()
		if fc.running[name] == ctrl {
			delete(fc.running, name)
		}
		fc.mu.Unlock()
		if ctx.Err() != nil {
			return
		}
		ctrl.log.Error("controller failed in cluster: starting it again", "after", delay, "err", err)
		if !wait.Sleep(ctx, delay) {
			return
		}
	}
}

// CollectMetrics writes the series of each cluster's controller, with
// the label cluster.
func (fc *fleetController) CollectMetrics(e emitter) {
	fc.mu.Lock()
	running := maps.Clone(fc.running)
	fc.mu.Unlock()
	for _, name := range slices.Sorted(maps.Keys(running)) {
		running[name].CollectMetrics(labelled{e: e, labels: []string{"cluster", name}})
	}
}

// emitter is what CollectMetrics writes to (manager.MetricsEmitter).
type emitter = interface {
	Counter(name, help string, value float64, labels ...string)
	Gauge(name, help string, value float64, labels ...string)
	Histogram(name, help string, h queue.Histogram, labels ...string)
}

// labelled is an emitter that adds labels to every series.
type labelled struct {
	e      emitter
	labels []string
}

func (l labelled) Counter(name, help string, value float64, labels ...string) {
	l.e.Counter(name, help, value, slices.Concat(labels, l.labels)...)
}

func (l labelled) Gauge(name, help string, value float64, labels ...string) {
	l.e.Gauge(name, help, value, slices.Concat(labels, l.labels)...)
}

func (l labelled) Histogram(name, help string, h queue.Histogram, labels ...string) {
	l.e.Histogram(name, help, h, slices.Concat(labels, l.labels)...)
}
