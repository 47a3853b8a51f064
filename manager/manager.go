// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/kube"

	"github.com/kubeloop/kubeloop/internal/typednil"
)

// Manager runs a controller program: the cache and the clients, the
// runnables (controllers and anything else), leader election, the metrics
// and health endpoints, and the event recorder. Make one with [New], add
// runnables, and call [Manager.Start]. Its methods are safe for concurrent
// use. Its client of the API server and its cache are a [cache.Cluster]
// it embeds, whose methods are the manager's: APIClient (the client that
// talks to the API server directly), Cache (for informers, indexes and
// zero-copy reads), and GetInformer, Mapping, WritesSeen and
// WaitForWrites, which the controller builder uses.
type Manager struct {
	opts Options // defaults filled
	log  *slog.Logger

	// cluster is the manager's client and cache; its methods (APIClient,
	// Cache, GetInformer, Mapping, WritesSeen, WaitForWrites) are the
	// manager's.
	cluster
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
	if typednil.Is(opts.LeaderElection) {
		opts.LeaderElection = nil
	}
	if typednil.Is(opts.Sharding) {
		opts.Sharding = nil
	}
	if typednil.Is(opts.WebhookServer) {
		opts.WebhookServer = nil
	}
	err := opts.withDefaults(nsFile)
	if err != nil {
		return nil, errs.Errorf("new manager: %w", err)
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
	counted, err := m.rest.instrument(config)
	var cl *cache.Cluster
	if err == nil {
		cl, err = cache.NewCluster(counted, m.clientOptions(), opts.Cache)
	}
	if err != nil {
		return nil, errs.Errorf("new manager: %w", err)
	}
	m.cluster = *cl
	m.client = newClient(m.Cache(), m.APIClient(), opts.DisableFor)
	if opts.LeaderElection != nil {
		if m.election, err = opts.LeaderElection.newElection(m, config, nsFile); err != nil {
			return nil, errs.Errorf("new manager: LeaderElection: %w", err)
		}
	}
	if opts.Sharding != nil {
		if m.ring, err = opts.Sharding.newRing(m, config, nsFile); err != nil {
			return nil, errs.Errorf("new manager: Sharding: %w", err)
		}
	}
	m.events = newEventSink(m.APIClient(), opts.Logger)
	m.registry = metrics.NewRegistry(registered(m.rest), metrics.CollectorFunc(m.collect), registered(m.events.dropped))
	m.addBuiltinChecks()
	_ = m.caches.add(classify(m.Cache())) // the groups are idle: adds cannot fail
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

// cluster is the type of the manager's embedded client and cache.
type cluster = cache.Cluster

// clientOptions are the options of the manager's clients.
func (m *Manager) clientOptions() kube.ClientOptions {
	return kube.ClientOptions{FieldManager: m.opts.FieldManager, Logger: m.log}
}

// newClient makes a client of cfg whose requests are counted.
func (m *Manager) newClient(cfg *kube.Config) (*kube.Client, error) {
	counted, err := m.rest.instrument(cfg)
	if err != nil {
		return nil, err
	}
	return kube.NewClient(counted, m.clientOptions())
}

// Client returns the client controllers use: reads from the cache (except
// the kinds of Options.DisableFor), writes to the API server.
func (m *Manager) Client() *Client {
	if !m.made() {
		return nil
	}
	return m.client
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

// Add adds a runnable, before or after Start: a runnable added to a
// running manager starts at once if its group runs (a leader runnable
// waits for the election). The group is chosen by the methods r has (see
// [Runnable]). A controller (a runnable with Name and CollectMetrics
// methods) is added as [Manager.AddController] adds it. Add fails once the
// manager has stopped.
func (m *Manager) Add(r Runnable) error {
	if !m.made() {
		return errs.Errorf("add runnable: %w", errNoManager)
	}
	if typednil.Is(r) {
		return errors.New("add runnable: runnable is nil")
	}
	c := classify(r)
	if c.controller {
		return m.addController(c.r.(named).Name(), c)
	}
	if err := m.groupFor(c).add(c); err != nil {
		return errs.Errorf("add runnable %s: %w", c.name, err)
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
		return errs.Errorf("add controller %q: %w", name, errNoManager)
	}
	if typednil.Is(r) {
		return errs.Errorf("add controller %q: runnable is nil", name)
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
		return errs.Errorf("add controller %q: a controller of that name was added before; names must be unique within a manager", name)
	}
	r.key = name
	if err := m.groupFor(r).add(r); err != nil {
		return errs.Errorf("add controller %q: %w", name, err)
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
