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
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// ErrNotEngaged is what [errors.Is] finds in the error of
// [Fleet.Cluster] and [Fleet.Disengage] for a name no cluster is engaged
// under.
var ErrNotEngaged = errors.New("no cluster is engaged under that name")

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
	// members are the clusters engaged, by name. While running, each
	// has its cache running and an engagement for each watcher.
	members map[string]*member
	// leaving are the clusters disengaged whose cache or engagements
	// have not all returned yet, by name: a name is engaged again only
	// once its leaving member is gone.
	leaving map[string]*member
	// watchers are the calls of Watch running.
	watchers map[*watcher]struct{}
	// engaged and disengaged count the calls that engaged and
	// disengaged a cluster, for the metrics.
	engaged, disengaged uint64
}

type phase uint8

const (
	idle phase = iota
	running
	stopped
)

// member is one engaged cluster and what runs for it.
type member struct {
	c *Cluster
	// stop cancels the cluster's cache; nil until it starts.
	stop context.CancelFunc
	// engs cancel the engagements of the cluster, one a watcher.
	engs map[*watcher]context.CancelFunc
	// wg counts the cache's goroutine and the engagements; nothing is
	// added to it once the member has left members.
	wg sync.WaitGroup
	// done is closed once the member has left and wg is done.
	done chan struct{}
}

// watcher is a call of Watch: a controller's source.
type watcher struct {
	engage func(ctx context.Context, name string, c clusterView)
	wg     sync.WaitGroup // its engagements
}

// clusterView is controller.Cluster, spelled out so that this package
// does not import controller.
type clusterView = interface {
	GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error)
	Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error)
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
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	f := &Fleet{opts: opts, log: opts.Logger, members: map[string]*member{}, leaving: map[string]*member{}, watchers: map[*watcher]struct{}{}}
	if err := m.Add(f); err != nil {
		return nil, fmt.Errorf("new fleet: %w", err)
	}
	m.AddMetricsCollector(f)
	return f, nil
}

// Engage makes a cluster of cfg under name and adds it to the fleet:
// once the fleet runs, its cache starts and every controller built with
// controller.Builder.Clusters(f) watches it. A cluster engaged under the
// same name before is disengaged first, and Engage waits (within ctx)
// until it has stopped. Engage does no I/O but read the certificate
// files cfg names; the cluster's cache syncs in the background (wait for
// it with Cluster.Cache().WaitForSync). It fails for an empty name, a
// config a client cannot be made of, when ctx ends before the previous
// cluster of the name has stopped, and once the fleet has stopped.
func (f *Fleet) Engage(ctx context.Context, name string, cfg *kube.Config) error {
	if name == "" {
		return errors.New(`engage cluster: name "" must not be empty`)
	}
	if cfg == nil {
		return fmt.Errorf("engage cluster %q: config is nil", name)
	}
	opts := f.opts
	opts.Logger = f.log.With("cluster", name)
	c, err := newCluster(name, cfg, opts)
	if err != nil {
		return fmt.Errorf("engage %w", err)
	}
	f.changing.Lock()
	defer f.changing.Unlock()
	f.mu.Lock()
	if old := f.members[name]; old != nil {
		f.removeLocked(old)
	}
	prev := f.leaving[name]
	f.mu.Unlock()
	if prev != nil {
		select {
		case <-prev.done:
		case <-ctx.Done():
			return fmt.Errorf("engage cluster %q: wait for the cluster engaged before under that name to stop: %w", name, ctx.Err())
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.phase == stopped {
		return fmt.Errorf("engage cluster %q: fleet stopped", name)
	}
	m := &member{c: c, engs: map[*watcher]context.CancelFunc{}, done: make(chan struct{})}
	f.members[name] = m
	f.engaged++
	if f.phase == running {
		f.startLocked(m)
	}
	f.log.Info("engaged cluster", "cluster", name, "host", cfg.Host)
	return nil
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
	f.changing.Lock()
	defer f.changing.Unlock()
	f.mu.Lock()
	m := f.members[name]
	if m == nil {
		f.mu.Unlock()
		return fmt.Errorf("disengage cluster %q: %w", name, ErrNotEngaged)
	}
	f.removeLocked(m)
	f.mu.Unlock()
	select {
	case <-m.done:
		f.log.Info("disengaged cluster", "cluster", name)
		return nil
	case <-ctx.Done():
		return fmt.Errorf("disengage cluster %q: wait for its cache and controllers to stop: %w", name, ctx.Err())
	}
}

// Cluster returns the cluster engaged under name: a reconciler's way to
// the client of its request's cluster (fleet.Cluster(req.Cluster)). It
// fails, wrapping [ErrNotEngaged], once the cluster is disengaged: a
// reconcile in flight then should return without error.
func (f *Fleet) Cluster(name string) (*Cluster, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if m := f.members[name]; m != nil {
		return m.c, nil
	}
	return nil, fmt.Errorf("cluster %q: %w", name, ErrNotEngaged)
}

// Names returns the names of the clusters engaged, sorted.
func (f *Fleet) Names() []string {
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
	f.mu.Lock()
	if f.phase != idle {
		f.mu.Unlock()
		return errors.New("start fleet: started before")
	}
	f.phase = running
	for _, m := range f.members {
		f.startLocked(m)
	}
	f.mu.Unlock()

	pctx, cancel := context.WithCancel(ctx)
	failed := make(chan error, len(f.opts.Providers)) // room for all: no provider waits on it
	var wg sync.WaitGroup
	for _, p := range f.opts.Providers {
		wg.Go(func() {
			if err := p.Run(pctx, f); err != nil && pctx.Err() == nil {
				failed <- fmt.Errorf("run fleet provider %T: %w", p, err)
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
	for _, m := range f.members {
		f.removeLocked(m)
	}
	all := slices.Collect(maps.Values(f.leaving))
	f.mu.Unlock()
	for _, m := range all {
		<-m.done
	}
	return err
}

// WaitForSync makes the fleet start with the manager's caches, and stop
// after the controllers; it returns at once: the manager does not wait
// for the clusters, so that one unreachable cluster holds up nothing.
func (f *Fleet) WaitForSync(context.Context) error { return nil }

// NeedLeaderElection reports false: the clusters' caches run on every
// replica, warm for the one that leads.
func (f *Fleet) NeedLeaderElection() bool { return false }

// Watch calls engage for each cluster engaged, now and later, until ctx
// is done: it is what makes f a controller.Clusters, which
// controller.Builder.Clusters takes. See controller.Clusters for the
// contract.
func (f *Fleet) Watch(ctx context.Context, engage func(ctx context.Context, name string, c clusterView)) {
	w := &watcher{engage: engage}
	f.mu.Lock()
	f.watchers[w] = struct{}{}
	if f.phase == running {
		for _, m := range f.members {
			f.engageLocked(m, w)
		}
	}
	f.mu.Unlock()
	<-ctx.Done()
	f.mu.Lock()
	delete(f.watchers, w)
	for _, m := range f.members {
		if cancel := m.engs[w]; cancel != nil {
			cancel()
			delete(m.engs, w)
		}
	}
	f.mu.Unlock()
	w.wg.Wait()
}

// startLocked starts m's cache and its engagements with every watcher.
func (f *Fleet) startLocked(m *member) {
	ctx, stop := context.WithCancel(context.Background())
	m.stop = stop
	m.wg.Go(func() {
		if err := m.c.cache.Start(ctx); err != nil {
			f.log.Error("cluster cache failed: its kinds are not served until it is engaged again", "cluster", m.c.name, "err", err)
			<-ctx.Done() // stay until disengaged: wg must not reach zero while m is engaged
		}
	})
	for w := range f.watchers {
		f.engageLocked(m, w)
	}
}

// engageLocked runs w's engage for m, in a goroutine of its own, until
// m is disengaged or w ends.
func (f *Fleet) engageLocked(m *member, w *watcher) {
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), clusterKey{}, m.c))
	m.engs[w] = cancel
	m.wg.Add(1)
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		defer m.wg.Done()
		defer cancel()
		w.engage(ctx, m.c.name, m.c)
	}()
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

// removeLocked moves m from members to leaving and stops what runs for
// it: its engagements first, then its cache. m.done is closed once all
// of it has returned.
func (f *Fleet) removeLocked(m *member) {
	name := m.c.name
	delete(f.members, name)
	f.leaving[name] = m
	f.disengaged++
	for w, cancel := range m.engs {
		cancel()
		delete(m.engs, w)
	}
	if m.stop != nil {
		m.stop()
	}
	go func() { // ends once what runs for m has returned
		m.wg.Wait()
		f.mu.Lock()
		if f.leaving[name] == m {
			delete(f.leaving, name)
		}
		f.mu.Unlock()
		close(m.done)
	}()
}
