// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/typednil"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// ErrNotEngaged is what [errors.Is] finds in the error of
// [Fleet.Cluster] and [Fleet.Disengage] for a name no cluster is engaged
// under.
var ErrNotEngaged = errors.New("no cluster is engaged under that name")

// ErrClusterLimit is what [errors.Is] finds in the error of
// [Fleet.Engage] for a new name while the fleet has Options.MaxClusters
// clusters engaged.
var ErrClusterLimit = errors.New("the fleet has as many clusters engaged as Options.MaxClusters allows")

// DefaultMaxClusters is Options.MaxClusters when zero. An engaged
// cluster costs 9 goroutines, about 110 kB of heap and a connection held
// to its server, plus what its cache holds (BenchmarkEngage: about
// 1.6 MB for 1,000 ConfigMaps of 512 bytes): 100 such clusters fit in
// the 256 MiB a controller's pod is commonly given, 1,000 do not.
const DefaultMaxClusters = 100

// Options configure a [Fleet]. The zero value is valid.
type Options struct {
	// Logger receives the fleet's logs and its clusters' (with the key
	// "cluster"); nil discards them.
	Logger *slog.Logger
	// Cache configures every cluster's cache (Namespaces, ByObject,
	// SyncPeriod, ...); its Logger is replaced by the cluster's.
	Cache cache.Options
	// FieldManager is sent with every write of the clusters' clients.
	FieldManager string
	// DisableFor lists kinds that the clusters' Clients read from their
	// API servers instead of their caches.
	DisableFor []kube.Object
	// Providers engage and disengage clusters while the fleet runs
	// (see [Provider]).
	Providers []Provider
	// Sharding, when set (to a [RingOptions]), shares the clusters among
	// the replicas of the program: each runs only the clusters whose
	// name hashes into the ranges of the ring it holds (see [RingOptions]).
	// Nil (the default) runs every cluster engaged on every replica.
	Sharding Sharding
	// MaxClusters bounds the clusters engaged at once: [Fleet.Engage] of
	// a new name fails (wrapping [ErrClusterLimit]) while that many are
	// engaged, and engaging again a name engaged always works. The fleet
	// logs once each time the limit is reached, and counts the Engage
	// calls refused (kubeloop_fleet_clusters_refused_total). With a
	// ring, it bounds the clusters engaged in the whole fleet, not those
	// running on this replica. Zero means [DefaultMaxClusters]; it must
	// not be negative.
	MaxClusters int
}

// Manager is what a fleet needs of the manager that runs it (a
// *manager.Manager has these methods).
type Manager interface {
	Add(r manager.Runnable) error
	AddMetricsCollector(c manager.MetricsCollector)
}

// Fleet is the set of clusters a manager's fleet controllers watch. Make
// one with [New]; engage clusters with [Fleet.Engage] (or a [Provider]),
// before the manager starts or while it runs. Its methods are safe for
// concurrent use.
type Fleet struct {
	opts Options // Logger set
	log  *slog.Logger

	// changing orders the calls of Engage and Disengage: one at a time.
	changing sync.Mutex

	mu sync.Mutex
	// phase moves from idle to running (Start) to stopped (Start's
	// context done); it never goes back.
	phase phase
	// members are the clusters engaged, by name. A member runs (its
	// activation is set: its cache and an engagement for each watcher)
	// while the fleet runs and, with a ring, while this replica holds
	// the range its name hashes into.
	members map[string]*member
	// leaving are the activations stopped (their cluster disengaged, or
	// its range gone) that have not all returned yet, by name: a name
	// runs again only once its leaving activation is done.
	leaving map[string]*activation
	// watchers are the calls of Watch running.
	watchers map[*watcher]struct{}
	// held are the shard selectors of the ranges this replica holds;
	// used with a ring only.
	held []*kube.ShardSelector
	// engaged and disengaged count the calls that engaged and
	// disengaged a cluster, refused those of Engage refused for
	// MaxClusters, for the metrics.
	engaged, disengaged, refused uint64
	// full is set when an Engage is refused for MaxClusters (and logged
	// then, once), and cleared when a new name is engaged again.
	full bool

	// ring shares the clusters among replicas (ring.go); nil without
	// Options.Sharding.
	ring clusterRing
}

type phase uint8

const (
	idle phase = iota
	running
	stopped
)

// member is one engaged cluster.
type member struct {
	name string
	cfg  *kube.Config // nil for a shared member
	// c is the cluster the next activation runs: made by Engage, and
	// again after each activation (a cache runs once); a shared
	// member's, the manager's own, is always the same.
	c *Cluster
	// shared says c is the manager's own cluster (EngageLocal): its cache
	// is the manager's to start and stop.
	shared bool
	// run is the activation running; nil while the member does not run.
	run *activation
}

// activation is one run of a member's cluster: its cache and its
// engagements.
type activation struct {
	c *Cluster
	// stop cancels the cluster's cache.
	stop context.CancelFunc
	// engs cancel the engagements of the cluster, one a watcher.
	engs map[*watcher]context.CancelFunc
	// wg counts the cache's goroutine and the engagements; nothing is
	// added to it once the activation has stopped.
	wg sync.WaitGroup
	// done is closed once the activation has stopped and wg is done.
	done chan struct{}
}

// watcher is a call of Watch: a controller's source. Its engage is
// [Fleet.Watch]'s, of the same type.
type watcher struct {
	engage func(ctx context.Context, name string, c interface {
		GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error)
		Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error)
	})
	wg sync.WaitGroup // its engagements
}

// New makes a fleet run by m: it adds the fleet to m (with m's caches:
// started first, stopped last) and its metrics to m's endpoint. It does
// no I/O and starts no goroutine.
func New(m Manager, opts Options) (*Fleet, error) {
	if m == nil {
		return nil, errors.New("new fleet: manager is nil")
	}
	for i, obj := range opts.DisableFor {
		if obj == nil || obj.GroupVersionKind().Kind == "" {
			return nil, fmt.Errorf("new fleet: DisableFor[%d] (%T) names no kind", i, obj)
		}
	}
	for i, p := range opts.Providers {
		if p == nil {
			return nil, fmt.Errorf("new fleet: Providers[%d] is nil", i)
		}
	}
	switch {
	case opts.MaxClusters < 0:
		return nil, fmt.Errorf("new fleet: MaxClusters %d must not be negative", opts.MaxClusters)
	case opts.MaxClusters == 0:
		opts.MaxClusters = DefaultMaxClusters
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f := &Fleet{opts: opts, log: opts.Logger, members: map[string]*member{}, leaving: map[string]*activation{}, watchers: map[*watcher]struct{}{}}
	if opts.Sharding != nil {
		var err error
		if f.ring, err = opts.Sharding.newRing(f); err != nil {
			return nil, fmt.Errorf("new fleet: Sharding: %w", err)
		}
	}
	if err := m.Add(f); err != nil {
		return nil, fmt.Errorf("new fleet: %w", err)
	}
	m.AddMetricsCollector(f)
	return f, nil
}

// Engage makes a cluster of cfg under name and adds it to the fleet:
// once the fleet runs (and, with a ring, once this replica holds the
// range of its name), its cache starts and every controller built with
// controller.Builder.Clusters(f) watches it. A cluster engaged under the
// same name before is disengaged first, and Engage waits (within ctx)
// until it has stopped. Engage does no I/O but read the certificate
// files cfg names; the cluster's cache syncs in the background (wait for
// it with Cluster.Cache().WaitForSync). It fails for an empty name, a
// new name while Options.MaxClusters clusters are engaged (wrapping
// [ErrClusterLimit]; nothing of the cluster is made then), a config a
// client cannot be made of, when ctx ends before the previous cluster
// of the name has stopped, and once the fleet has stopped.
func (f *Fleet) Engage(ctx context.Context, name string, cfg *kube.Config) error {
	if !f.made() {
		return fmt.Errorf("engage cluster %q: %w", name, errNoFleet)
	}
	if name == "" {
		return errors.New(`engage cluster: name "" must not be empty`)
	}
	if cfg == nil {
		return fmt.Errorf("engage cluster %q: config is nil", name)
	}
	f.changing.Lock()
	defer f.changing.Unlock()
	if err := f.admit(name); err != nil {
		return err
	}
	c, err := newCluster(name, cfg, f.clusterOptions(name))
	if err != nil {
		return fmt.Errorf("engage %w", err)
	}
	if err := f.add(ctx, &member{name: name, cfg: cfg, c: c}); err != nil {
		return err
	}
	f.log.Info("engaged cluster", "cluster", name, "host", cfg.Host)
	return nil
}

// Local is what [Fleet.EngageLocal] shares of a manager's own cluster (a
// *manager.Manager has these methods).
type Local interface {
	APIClient() *kube.Client
	Cache() *cache.Cache
	Client() *manager.Client
}

// EngageLocal adds the manager's own cluster to the fleet under name,
// shared: its client and cache, not a second pair, so that a controller
// built with controller.Builder.Clusters(f) runs in it as in every other
// member (a hub that is also a member), with its own queue and workers,
// reading through the manager's cache. The fleet neither starts nor
// stops that cache (the manager does); Disengage takes the cluster out
// of the fleet and stops its controllers there only. It counts towards
// Options.MaxClusters and, with a ring, runs on the replica holding its
// name's range, as any member. It fails as Engage does.
func (f *Fleet) EngageLocal(ctx context.Context, name string, local Local) error {
	if !f.made() {
		return fmt.Errorf("engage cluster %q: %w", name, errNoFleet)
	}
	if name == "" {
		return errors.New(`engage cluster: name "" must not be empty`)
	}
	if local == nil || typednil.Is(local) || local.Cache() == nil {
		return fmt.Errorf("engage cluster %q: the local manager is nil", name)
	}
	f.changing.Lock()
	defer f.changing.Unlock()
	if err := f.admit(name); err != nil {
		return err
	}
	c := &Cluster{cluster: cache.ClusterOf(local.APIClient(), local.Cache()), name: name, client: local.Client()}
	if err := f.add(ctx, &member{name: name, c: c, shared: true}); err != nil {
		return err
	}
	f.log.Info("engaged the manager's own cluster", "cluster", name)
	return nil
}

// add puts m in the fleet, after the member engaged before under its
// name (if any) has stopped, and starts it if it runs here. The caller
// holds f.changing and has admitted m's name.
func (f *Fleet) add(ctx context.Context, m *member) error {
	f.mu.Lock()
	if old := f.members[m.name]; old != nil {
		f.removeLocked(old)
	}
	prev := f.leaving[m.name]
	f.mu.Unlock()
	if prev != nil {
		select {
		case <-prev.done:
		case <-ctx.Done():
			return fmt.Errorf("engage cluster %q: wait for the cluster engaged before under that name to stop: %w", m.name, ctx.Err())
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.phase == stopped {
		return fmt.Errorf("engage cluster %q: fleet stopped", m.name)
	}
	f.members[m.name] = m
	f.engaged++
	if f.runsLocked(m.name) {
		f.startLocked(m)
	}
	return nil
}

// admit returns nil when name may be engaged: it is engaged already, or
// fewer than MaxClusters clusters are. Otherwise it counts the refusal,
// logs the first since a new name was last admitted, and returns
// an error wrapping ErrClusterLimit. The caller holds f.changing, so
// the members do not change until its Engage is done.
func (f *Fleet) admit(name string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.members[name] != nil {
		return nil
	}
	if len(f.members) < f.opts.MaxClusters {
		f.full = false
		return nil
	}
	f.refused++
	if !f.full {
		f.full = true
		f.log.Error("fleet cluster limit reached: clusters beyond it are not engaged", "max_clusters", f.opts.MaxClusters, "cluster", name)
	}
	return fmt.Errorf("engage cluster %q: %w (%d)", name, ErrClusterLimit, f.opts.MaxClusters)
}

// Disengage takes the cluster engaged under name out of the fleet: the
// controllers' sources for it stop (their handlers leave its informers)
// and their requests for it still queued are dropped, then its cache
// stops and drops its objects. When it returns nil, all of that has
// happened: nothing of the cluster runs, and nothing holds it but the
// callers that kept its *Cluster. It fails for a name not engaged
// (wrapping [ErrNotEngaged]), and when ctx ends first: the cluster is
// stopping then, and its name is engaged again only once it has stopped.
func (f *Fleet) Disengage(ctx context.Context, name string) error {
	if !f.made() {
		return fmt.Errorf("disengage cluster %q: %w", name, errNoFleet)
	}
	f.changing.Lock()
	defer f.changing.Unlock()
	f.mu.Lock()
	m := f.members[name]
	if m == nil {
		f.mu.Unlock()
		return fmt.Errorf("disengage cluster %q: %w", name, ErrNotEngaged)
	}
	done := f.removeLocked(m)
	f.mu.Unlock()
	select {
	case <-done:
		f.log.Info("disengaged cluster", "cluster", name)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("disengage cluster %q: wait for its cache and controllers to stop: %w", name, ctx.Err())
	}
}

// Cluster returns the cluster engaged under name, while it runs here
// (the fleet runs and, with a ring, this replica holds its range). A
// reconciler reads its request's cluster with [ClusterFrom]; Cluster is
// for the other parts of a program. It fails, wrapping [ErrNotEngaged],
// for a cluster not engaged or not running here.
func (f *Fleet) Cluster(name string) (*Cluster, error) {
	if !f.made() {
		return nil, fmt.Errorf("cluster %q: %w", name, errNoFleet)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := f.members[name]; m != nil && m.run != nil {
		return m.run.c, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, ErrNotEngaged)
}

// Names returns the names of the clusters engaged, sorted.
func (f *Fleet) Names() []string {
	if !f.made() {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Sorted(maps.Keys(f.members))
}

// Start runs the fleet until ctx is done: the caches of the clusters
// engaged (those engaged before and while it runs) and the providers.
// Once ctx is done it stops the providers, disengages every cluster, and
// returns after all of it has stopped. A provider's error stops the
// fleet, and is Start's. The manager calls Start (see [New]).
func (f *Fleet) Start(ctx context.Context) error {
	if !f.made() {
		return fmt.Errorf("start fleet: %w", errNoFleet)
	}
	f.mu.Lock()
	if f.phase != idle {
		f.mu.Unlock()
		return errors.New("start fleet: started before")
	}
	f.phase = running
	for _, m := range f.members {
		if f.runsLocked(m.name) {
			f.startLocked(m)
		}
	}
	f.mu.Unlock()

	pctx, cancel := context.WithCancel(ctx)
	runs := len(f.opts.Providers) + 1
	failed := make(chan error, runs) // room for all: no provider waits on it
	var wg sync.WaitGroup
	for _, p := range f.opts.Providers {
		wg.Go(func() {
			if err := p.Run(pctx, f); err != nil && pctx.Err() == nil {
				failed <- fmt.Errorf("run fleet provider %T: %w", p, err)
			}
		})
	}
	if f.ring != nil {
		// It returns once its ranges' work has stopped their clusters.
		wg.Go(func() {
			if err := f.ring.Run(pctx); err != nil && pctx.Err() == nil {
				failed <- fmt.Errorf("run fleet ring: %w", err)
			}
		})
	}
	var err error
	select {
	case <-ctx.Done():
	case err = <-failed:
	}
	cancel()
	wg.Wait()

	f.mu.Lock()
	f.phase = stopped
	var all []<-chan struct{}
	for _, m := range f.members {
		all = append(all, f.removeLocked(m))
	}
	for _, a := range f.leaving {
		all = append(all, a.done)
	}
	f.mu.Unlock()
	for _, done := range all {
		<-done
	}
	return err
}

// WaitForSync makes the fleet start with the manager's caches, and stop
// after the controllers; it returns at once: the manager does not wait
// for the clusters, so that one unreachable cluster holds up nothing.
func (f *Fleet) WaitForSync(context.Context) error {
	if !f.made() {
		return errNoFleet
	}
	return nil
}

// NeedLeaderElection reports false: the clusters' caches run on every
// replica, warm for the one that leads.
func (f *Fleet) NeedLeaderElection() bool { return false }

// Watch calls engage for each cluster engaged, now and later, until ctx
// is done: it is what makes f a controller.Clusters, which
// controller.Builder.Clusters takes. See controller.Clusters for the
// contract. The interface of c is controller.Cluster, spelled out (the
// same type: Cluster is an alias) so that this package does not import
// controller.
func (f *Fleet) Watch(ctx context.Context, engage func(ctx context.Context, name string, c interface {
	GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error)
	Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error)
})) {
	if !f.made() {
		return // nothing is ever engaged
	}
	w := &watcher{engage: engage}
	f.mu.Lock()
	f.watchers[w] = struct{}{}
	for _, m := range f.members {
		if m.run != nil {
			f.engageLocked(m.run, w)
		}
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	delete(f.watchers, w)
	for _, m := range f.members {
		if m.run == nil {
			continue
		}
		if cancel := m.run.engs[w]; cancel != nil {
			cancel()
			delete(m.run.engs, w)
		}
	}
	f.mu.Unlock()
	w.wg.Wait()
}

// runsLocked reports whether the cluster named name is to run here:
// the fleet runs and, with a ring, this replica holds its range.
func (f *Fleet) runsLocked(name string) bool {
	if f.phase != running {
		return false
	}
	if f.ring == nil {
		return true
	}
	h := NameHash(name)
	return slices.ContainsFunc(f.held, func(sel *kube.ShardSelector) bool { return sel.ContainsHash(h) })
}

// startLocked starts m's cluster: its cache and its engagements with
// every watcher. m does not run.
func (f *Fleet) startLocked(m *member) {
	if m.c == nil { // it ran before: a cache runs once
		c, err := newCluster(m.name, m.cfg, f.clusterOptions(m.name))
		if err != nil {
			f.log.Error("cluster not started: its config no longer makes a client", "cluster", m.name, "err", err)
			return
		}
		m.c = c
	}
	ctx, stop := context.WithCancel(context.Background())
	a := &activation{c: m.c, stop: stop, engs: map[*watcher]context.CancelFunc{}, done: make(chan struct{})}
	m.run = a
	if !m.shared {
		m.c = nil
		a.wg.Go(func() {
			if err := a.c.Cache().Start(ctx); err != nil {
				f.log.Error("cluster cache failed: its kinds are not served until it is engaged again", "cluster", m.name, "err", err)
				<-ctx.Done() // stay until stopped: wg must not reach zero while it runs
			}
		})
	}
	for w := range f.watchers {
		f.engageLocked(a, w)
	}
}

// clusterOptions are the options of the cluster named name.
func (f *Fleet) clusterOptions(name string) Options {
	opts := f.opts
	opts.Logger = f.log.With("cluster", name)
	return opts
}

// engageLocked runs w's engage for a, in a goroutine of its own, until a
// stops or w ends.
func (f *Fleet) engageLocked(a *activation, w *watcher) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), clusterKey{}, a.c))
	a.engs[w] = cancel
	a.wg.Add(1)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer a.wg.Done()
		defer cancel()
		w.engage(ctx, a.c.name, a.c)
	}()
}

// stopLocked stops what runs for m, its engagements first, then its
// cache, and returns a channel closed once all of it has returned. m
// then does not run.
func (f *Fleet) stopLocked(m *member) <-chan struct{} {
	a := m.run
	m.run = nil
	f.leaving[m.name] = a
	for w, cancel := range a.engs {
		cancel()
		delete(a.engs, w)
	}
	a.stop()
	go func() { // ends once what runs for a has returned
		a.wg.Wait()
		f.mu.Lock()
		if f.leaving[m.name] == a {
			delete(f.leaving, m.name)
		}
		f.mu.Unlock()
		close(a.done)
	}()
	return a.done
}

// removeLocked takes m out of the fleet and stops it if it runs; the
// channel returned is closed once it has stopped.
func (f *Fleet) removeLocked(m *member) <-chan struct{} {
	delete(f.members, m.name)
	f.disengaged++
	if m.run == nil {
		done := make(chan struct{})
		close(done)
		return done
	}
	return f.stopLocked(m)
}

// clusterKey is the key of the cluster in an engagement's context.
type clusterKey struct{}

// ClusterFrom returns the cluster a context is about: within the
// reconcile of a controller built with controller.Builder.Clusters(f),
// the cluster of the request (the reconcile's context derives from its
// engagement's, which holds it). It returns nil for any other context.
// The cluster may have been disengaged meanwhile: the context is then
// cancelled, and its client's calls fail with its error.
func ClusterFrom(ctx context.Context) *Cluster {
	c, _ := ctx.Value(clusterKey{}).(*Cluster)
	return c
}
