// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/kube"
)

// Manager runs a controller program: the cache and the clients, the
// runnables (controllers and anything else), leader election, the metrics
// and health endpoints, and the event recorder. Make one with [New], add
// runnables, and call [Manager.Start]. Its methods are safe for concurrent
// use.
type Manager struct {
	opts Options // defaults filled
	log  *slog.Logger

	api    *kube.Client
	cache  *cache.Cache
	client *Client
	// election runs leader election (election.go); nil without
	// Options.LeaderElection.
	election election
	// ring runs the ring member and the sharded controllers' works
	// (sharding.go); nil without Options.Sharding.
	ring   shardRing
	events *eventSink

	registry        *metrics.Registry
	rest            *restMetrics
	healthz, readyz *checks
	// metricsLn and healthLn are opened by Start, first of all; nil
	// before, and when turned off.
	metricsLn, healthLn net.Listener
	// serverTimeouts bound the connections of the metrics and health
	// servers: defaultServerTimeouts, shortened by tests.
	serverTimeouts serverTimeouts

	// The groups, in start order; they stop in the reverse order.
	webhooks, caches, others, leaders *group

	started  atomic.Bool // Start was called
	stopping atomic.Bool // Start's stop sequence has begun
	lost     atomic.Bool // leadership ended while the manager ran
	// synced is set once the caches have synced, until they are stopped:
	// the "cache-sync" readiness check.
	synced      atomic.Bool
	elected     chan struct{} // closed when the leader runnables start
	electedOnce sync.Once
	fail        failures

	mu sync.Mutex
	// controllers are the runnables added under a name (AddController),
	// whose metrics the manager exports (nil for one that has none).
	controllers map[string]MetricsCollector
}

// New makes a manager for the API server config reaches. It fills the
// defaults of opts and checks them (errors name the option and its
// value), and builds the clients and the cache. It opens no listener and
// no connection and starts no goroutine: a manager that is never started
// holds nothing to close. The metrics, health and webhook listeners are
// opened by [Manager.Start], so an address in use is Start's error. New
// reads only local files: the certificate files config names (as
// kube.NewClient does), the pod's namespace file when a Lease's namespace
// is left empty, and the host name for the Lease's identity.
func New(config *kube.Config, opts Options) (*Manager, error) {
	return newManager(config, opts, inClusterNamespaceFile)
}

// newManager is New with the file the pod's namespace is read from.
func newManager(config *kube.Config, opts Options, nsFile string) (*Manager, error) {
	if config == nil {
		return nil, errors.New("new manager: config is nil")
	}
	// A typed nil (a *LeaderElectionOptions flag left unset) is nil.
	if isNil(opts.LeaderElection) {
		opts.LeaderElection = nil
	}
	if isNil(opts.Sharding) {
		opts.Sharding = nil
	}
	if isNil(opts.WebhookServer) {
		opts.WebhookServer = nil
	}
	err := opts.withDefaults(nsFile)
	if err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m := &Manager{
		opts:        opts,
		log:         opts.Logger,
		rest:        newRESTMetrics(),
		healthz:     newChecks("healthz", opts.Logger),
		readyz:      newChecks("readyz", opts.Logger),
		webhooks:    newGroup("webhooks", opts.Logger),
		caches:      newGroup("caches", opts.Logger),
		others:      newGroup("others", opts.Logger),
		leaders:     newGroup("leader-election", opts.Logger),
		elected:     make(chan struct{}),
		fail:        failures{stop: make(chan struct{})},
		controllers: map[string]MetricsCollector{},

		serverTimeouts: defaultServerTimeouts(),
	}
	// Writes through the manager's client are remembered by its cache,
	// so that reads after them wait until the cache holds them.
	if m.api, err = m.newClient(config, func(w kube.Written) { m.cache.RecordWrite(w) }); err != nil {
		return nil, fmt.Errorf("new manager: %w", err)
	}
	m.cache, err = cache.New(m.api, cache.Options{
		Namespaces: opts.Namespaces, ByObject: opts.ByObject, DefaultTransform: opts.DefaultTransform,
		SyncPeriod: opts.SyncPeriod, Logger: opts.Logger, MaxFreshWait: opts.MaxFreshWait,
		KeepManagedFields: opts.KeepManagedFields, Compact: opts.Compact, PageSize: opts.PageSize,
		WatchList: opts.WatchList, ReaderFailOnMissingInformer: opts.ReaderFailOnMissingInformer,
		WatchErrorHandler: opts.WatchErrorHandler,
	})
	if err != nil {
		return nil, fmt.Errorf("new manager: ByObject: %w", err)
	}
	m.client = newClient(m.cache, m.api, opts.DisableFor)
	if opts.LeaderElection != nil {
		if m.election, err = opts.LeaderElection.newElection(m, config, nsFile); err != nil {
			return nil, fmt.Errorf("new manager: LeaderElection: %w", err)
		}
	}
	if opts.Sharding != nil {
		if m.ring, err = opts.Sharding.newRing(m, config, nsFile); err != nil {
			return nil, fmt.Errorf("new manager: Sharding: %w", err)
		}
	}
	m.events = newEventSink(m.api, opts.Logger)
	m.registry = metrics.NewRegistry(registered(m.rest), metrics.CollectorFunc(m.collect), registered(m.events.dropped))
	m.addBuiltinChecks()
	_ = m.caches.add(classify(m.cache)) // the groups are idle: adds cannot fail
	m.addWebhookServer(opts.WebhookServer)
	return m, nil
}

// addWebhookServer puts w in the webhooks group (Start has it bind its
// address first of all) and makes its readiness part of the manager's.
func (m *Manager) addWebhookServer(w Runnable) {
	if w == nil {
		return
	}
	r := classify(w)
	if r.ready != nil {
		_ = m.readyz.add("webhook", r.ready.StartedChecker()) // the name is free
	}
	_ = m.webhooks.add(r) // the group is idle
}

// newClient makes a client of cfg whose requests are counted, and whose
// writes are reported to onWrite (nil for none).
func (m *Manager) newClient(cfg *kube.Config, onWrite func(kube.Written)) (*kube.Client, error) {
	counted, err := m.rest.instrument(cfg)
	if err != nil {
		return nil, err
	}
	return kube.NewClient(counted, kube.ClientOptions{FieldManager: m.opts.FieldManager, Logger: m.log, OnWrite: onWrite})
}

// Client returns the client controllers use: reads from the cache (except
// the kinds of Options.DisableFor), writes to the API server.
func (m *Manager) Client() *Client {
	if !m.made() {
		return nil
	}
	return m.client
}

// APIClient returns the client that talks to the API server directly,
// for reads that must not come from the cache.
func (m *Manager) APIClient() *kube.Client {
	if !m.made() {
		return nil
	}
	return m.api
}

// Cache returns the cache the manager runs: for informers, indexes
// ([cache.Cache.IndexField]) and zero-copy reads ([cache.View]).
func (m *Manager) Cache() *cache.Cache {
	if !m.made() {
		return nil
	}
	return m.cache
}

// Elected returns a channel closed when this replica starts the runnables
// that need leader election: once elected, or, without leader election,
// as soon as the caches have synced.
func (m *Manager) Elected() <-chan struct{} {
	if !m.made() {
		return nil // never elected
	}
	return m.elected
}

// GetInformer returns the cache's informer of obj's kind and Go type,
// making it on first use; it is what the controller builder watches.
func (m *Manager) GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error) {
	if !m.made() {
		return nil, errNoManager
	}
	return m.cache.GetInformer(ctx, obj)
}

// WritesSeen reports whether the cache holds this manager's writes to
// the object of kind gvk at key and to the objects it owns; see
// [cache.Cache.WritesSeen]. The controller builder's controllers ask it
// before they reconcile.
func (m *Manager) WritesSeen(gvk kube.GroupVersionKind, key kube.Key) bool {
	if !m.made() {
		return true // it made no writes
	}
	return m.cache.WritesSeen(gvk, key)
}

// WaitForWrites waits, bounded, until [Manager.WritesSeen] holds for the
// writes made so far; see [cache.Cache.WaitForWrites].
func (m *Manager) WaitForWrites(ctx context.Context, gvk kube.GroupVersionKind, key kube.Key) bool {
	if !m.made() {
		return true // it made no writes
	}
	return m.cache.WaitForWrites(ctx, gvk, key)
}

// Mapping says where a kind lives, from discovery.
func (m *Manager) Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error) {
	if !m.made() {
		return kube.Mapping{}, errNoManager
	}
	return m.api.Mapping(ctx, gvk)
}

// Add adds a runnable, before or after Start: a runnable added to a
// running manager starts at once if its group runs (a leader runnable
// waits for the election). The group is chosen by the methods r has (see
// [Runnable]). A controller (a runnable with Name and CollectMetrics
// methods) is added as [Manager.AddController] adds it. Add fails once the
// manager has stopped.
func (m *Manager) Add(r Runnable) error {
	if !m.made() {
		return fmt.Errorf("add runnable: %w", errNoManager)
	}
	if isNil(r) {
		return errors.New("add runnable: runnable is nil")
	}
	c := classify(r)
	if c.controller {
		return m.addController(c.r.(named).Name(), c)
	}
	if err := m.groupFor(c).add(c); err != nil {
		return fmt.Errorf("add runnable %s: %w", c.name, err)
	}
	return nil
}

// AddController adds a controller under a name that is unique within the
// manager: it labels the controller's metrics (workqueue_* and
// controller_runtime_*), which the manager exports. It is what the
// controller builder calls. It fails for an empty or taken name, and once
// the manager has stopped.
func (m *Manager) AddController(name string, r LeaderElectionRunnable) error {
	if !m.made() {
		return fmt.Errorf("add controller %q: %w", name, errNoManager)
	}
	if isNil(r) {
		return fmt.Errorf("add controller %q: runnable is nil", name)
	}
	return m.addController(name, classify(r))
}

func (m *Manager) addController(name string, r runnable) error {
	if name == "" {
		return errors.New(`add controller: name "" must not be empty`)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.controllers[name]; ok {
		return fmt.Errorf("add controller %q: a controller of that name was added before; names must be unique within a manager", name)
	}
	r.key = name
	if err := m.groupFor(r).add(r); err != nil {
		return fmt.Errorf("add controller %q: %w", name, err)
	}
	m.controllers[name] = r.metrics
	return nil
}

// failures collects the errors that stop the manager.
type failures struct {
	stop chan struct{} // closed at the first failure, or by trigger
	once sync.Once

	mu   sync.Mutex
	errs []error
}

func (f *failures) add(err error) {
	f.mu.Lock()
	f.errs = append(f.errs, err)
	f.mu.Unlock()
	f.trigger()
}

// trigger stops the manager without an error of its own.
func (f *failures) trigger() { f.once.Do(func() { close(f.stop) }) }

func (f *failures) all() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.errs...)
}
