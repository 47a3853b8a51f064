// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubeloop/kubeloop/internal/errs"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/internal/metrics"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
)

// This file is the manager's side of sharded controllers: the ring member
// it runs (package leader), the works of the sharded controllers it calls
// for each range held, and the readiness check and metrics of the ring.
// The manager's own paths reach it only through its shardRing field (see
// "Binary size" in the package doc).

// Sharding is what Options.Sharding holds: a [ShardingOptions], or nil.
type Sharding interface {
	newRing(m *Manager, config *kube.Config, nsFile string) (shardRing, error)
}

// shardRing is what the manager's own paths call of its ring: Manager.ring
// holds a *ring when Options.Sharding is set, nil otherwise.
type shardRing interface {
	// add registers the work of a sharded controller of obj's kind and
	// makes the kind sharded in the manager's cache.
	add(name string, obj kube.Object, work func(ctx context.Context, sel kube.ShardSelector) error) error
	// run runs the ring member until ctx is done and it has left.
	run(ctx context.Context) error
	readiness(*http.Request) error
	collect(e *metrics.Emitter)
	status() leader.RingStatus
}

// ShardingOptions make the manager a member of a ring of replicas that
// share the objects of its sharded controllers (see package leader's ring,
// and controller.Builder.Sharded): each replica caches and reconciles only
// the objects whose shard field hashes into the ranges it holds. It needs the
// API server's sharded list and watch (Kubernetes 1.36, feature gate
// ShardedListAndWatch) to save memory and traffic; without it every
// replica receives every object and filters on its side, with the same
// guarantees.
//
// Sharding and leader election are independent: a sharded controller runs
// on every replica and needs no leader (the ring keeps two replicas off
// one object); the manager's other controllers and runnables still follow
// LeaderElection when it is set.
//
// Set Options.Sharding to a ShardingOptions to make the manager a member
// of the ring while it runs; the controllers built with
// controller.Builder.Sharded are sharded, the others are not.
type ShardingOptions struct {
	// Ring names the ring: every replica of the program uses the same
	// name; it labels and prefixes the members' Leases. A DNS-1123 label
	// of at most 63 characters. Required.
	Ring string
	// Namespace holds the members' Leases. Empty means the namespace of
	// the pod (as for LeaderElection.Namespace); outside a pod it must be
	// set.
	Namespace string
	// Identity is this replica's name in its Lease; empty means the
	// hostname and a random UUID ([leader.DefaultIdentity]).
	Identity string
	// Ranges is how many ranges the hash space is cut into (every
	// replica must use the same number); zero means
	// [leader.DefaultRanges], 64.
	Ranges int
	// Field is the shard field: [kube.ShardByUID] (the default) spreads
	// objects evenly; [kube.ShardByNamespace] keeps the objects of a
	// namespace on one replica.
	Field kube.ShardField
	// LeaseDuration, RenewDeadline and RetryPeriod are the member's
	// timings; zero means 15s, 10s and 2s (see [leader.RingOptions]). A
	// replica that dies hands its ranges over within LeaseDuration +
	// RetryPeriod plus seven Lease requests (the ranges the survivors
	// then swap, plus a drain and a quarter RetryPeriod: see package
	// leader); one that stops gracefully, within RetryPeriod plus its
	// reconciles in flight.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Config, when set, reaches the API server that holds the Leases,
	// instead of the manager's config.
	Config *kube.Config
}

// withDefaults fills the namespace and the field and checks what the
// member does not check itself.
func (s ShardingOptions) withDefaults(nsFile string) (ShardingOptions, error) {
	var errs []error
	if s.Ring == "" {
		errs = append(errs, errors.New(`Sharding.Ring "" must name the ring`))
	}
	if s.Namespace == "" {
		ns, err := podNamespace(nsFile, "Sharding.Namespace")
		errs = append(errs, err)
		s.Namespace = ns
	}
	switch s.Field {
	case "":
		s.Field = kube.ShardByUID
	case kube.ShardByUID, kube.ShardByNamespace:
	default:
		errs = append(errs, fmt.Errorf("Sharding.Field %q: want %q or %q", s.Field, kube.ShardByUID, kube.ShardByNamespace))
	}
	return s, errors.Join(errs...)
}

// ring is what the manager runs for its sharded controllers: the
// manager's shardRing.
type ring struct {
	member *leader.Member
	cache  *cache.Cache
	name   string // "namespace/ring", in messages
	ring   string // the ring's name, in metrics

	mu    sync.Mutex
	works []func(ctx context.Context, sel kube.ShardSelector) error // of the sharded controllers
	kinds []kube.GroupVersionKind                                   // of the sharded controllers

	handovers *HistogramVec
}

// newRing fills the defaults of so, checks it, and makes the ring member,
// with a client of its own (as the elector's).
func (so ShardingOptions) newRing(m *Manager, config *kube.Config, nsFile string) (shardRing, error) {
	so, err := so.withDefaults(nsFile)
	if err != nil {
		return nil, err
	}
	if so.Config != nil {
		config = so.Config
	}
	c, err := m.newClient(config)
	if err != nil {
		return nil, err
	}
	r := &ring{cache: m.Cache(), name: so.Namespace + "/" + so.Ring,
		handovers: NewHistogramVec("kubeloop_ring_handover_duration_seconds",
			"Seconds from the moment the ring's assignment gave a range to this replica (a member gone, leaving or joined) to the start of its work here; the count is the number of ranges taken over.",
			[]float64{0.1, 0.5, 1, 2, 5, 10, 15, 20, 30, 60, 120}, "ring")}
	r.ring = so.Ring
	r.member, err = leader.NewMember(leader.RingOptions{
		Client: c, Namespace: so.Namespace, Ring: so.Ring, Identity: so.Identity, Ranges: so.Ranges,
		Field:         so.Field,
		LeaseDuration: so.LeaseDuration, RenewDeadline: so.RenewDeadline, RetryPeriod: so.RetryPeriod,
		Work:   r.work,
		OnHeld: func(_ leader.Range, waited time.Duration) { r.handovers.Observe(waited.Seconds(), so.Ring) },
		Logger: m.log,
	})
	return r, err
}

// claimsWaiting reports whether the member has claimed ranges that wait
// for their previous holders: shards about to be added to the sharded
// informers, which, on a server that ignores the shard selector, read the
// kind once for all of them (see cache.InformerOptions.ShardsPending).
func (r *ring) claimsWaiting() bool { return len(r.member.Status().Claimed) > 0 }

// work is the member's Work for the range of sel: every sharded
// controller's work holds the shard of sel until ctx ends. If one of them
// fails, the others are asked to stop too, and work returns the errors of
// those that failed (not of those stopped) once they all have, so that the
// member releases the range and claims it again later.
func (r *ring) work(ctx context.Context, sel kube.ShardSelector) error {
	r.mu.Lock()
	works := slices.Clone(r.works)
	r.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(works))
	var wg sync.WaitGroup
	for n, work := range works {
		wg.Go(func() {
			if err := work(ctx, sel); err != nil && ctx.Err() == nil {
				errs[n] = err
				cancel()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// AddShardedController adds a sharded controller of obj's kind under
// name, as [Manager.AddController] adds a controller, and work, called for
// each range this replica holds with the range's shard selector until the
// range moves (as a runnable's Start is called): r runs on every replica,
// and obj's kind is cached sharded (see [cache.Cache.ShardKind]). It is
// what controller.Builder.Sharded calls. It fails without
// Options.Sharding, once Start was called (a controller added later would
// miss the ranges held already), for a taken name, and when the kind's
// informer was made before.
func (m *Manager) AddShardedController(name string, obj kube.Object, r LeaderElectionRunnable, work func(ctx context.Context, sel kube.ShardSelector) error) error {
	if !m.made() {
		return errs.Errorf("add sharded controller %q: %w", name, errNoManager)
	}
	switch {
	case m.ring == nil:
		return errs.Errorf("add sharded controller %q: Options.Sharding is not set: only a manager in a ring runs sharded controllers", name)
	case obj == nil || r == nil || work == nil:
		return errs.Errorf("add sharded controller %q: object, runnable and work must not be nil", name)
	case m.started.Load():
		return errs.Errorf("add sharded controller %q: the manager has started; add sharded controllers before Start", name)
	}
	m.mu.Lock()
	_, taken := m.controllers[name]
	m.mu.Unlock()
	if taken { // checked before the kind is made sharded for nothing
		return errs.Errorf("add controller %q: a controller of that name was added before; names must be unique within a manager", name)
	}
	if err := m.ring.add(name, obj, work); err != nil {
		return errs.Errorf("add sharded controller %q: %w", name, err)
	}
	c := classify(r)
	c.sharded = true
	return m.addController(name, c)
}

// add implements [shardRing].
func (r *ring) add(name string, obj kube.Object, work func(ctx context.Context, sel kube.ShardSelector) error) error {
	if err := r.cache.ShardKind(obj, r.claimsWaiting); err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.works = append(r.works, work)
	r.kinds = append(r.kinds, obj.GroupVersionKind())
	return nil
}

// run implements [shardRing].
func (r *ring) run(ctx context.Context) error {
	if err := r.member.Run(ctx); err != nil {
		return errs.Errorf("run ring %s: %w", r.name, err)
	}
	return nil
}

// status implements [shardRing].
func (r *ring) status() leader.RingStatus { return r.member.Status() }

// CheckRing is the readiness check of a sharding manager (see
// [ShardingOptions]): it fails until this replica has seen the ring's
// membership, and while the ring assigns it ranges it does not hold yet
// (their previous holders have not released them, or their shards'
// first lists are not stored), naming those ranges; it passes once it
// holds every range assigned, none included (more replicas than ranges).
const CheckRing = "ring"

// readiness is the check of [CheckRing].
func (r *ring) readiness(*http.Request) error {
	s := r.member.Status()
	if len(s.Members) == 0 {
		return errs.Errorf("ring %s: no membership seen yet: this replica has not joined", r.name)
	}
	var missing []leader.Range
	for _, a := range s.Assigned {
		if !slices.Contains(s.Held, a) {
			missing = append(missing, a)
		}
	}
	if len(missing) > 0 {
		return errs.Errorf("ring %s: %d of the %d ranges assigned are not held yet: %s",
			r.name, len(missing), len(s.Assigned), leader.FormatRanges(missing))
	}
	return nil
}

// collect writes the ring's series: see the package documentation.
func (r *ring) collect(e *metrics.Emitter) {
	name := r.ring
	s := r.member.Status()
	e.Gauge("kubeloop_ring_members", "Live members of the ring this replica counts, itself included.", float64(len(s.Members)), "ring", name)
	for _, st := range []struct {
		state  string
		ranges []leader.Range
	}{{"assigned", s.Assigned}, {"held", s.Held}, {"claimed", s.Claimed}, {"draining", s.Draining}} {
		e.Gauge("kubeloop_ring_ranges",
			"Ranges of the ring by state on this replica: assigned to it, held (their work runs), claimed (waiting for the previous holder), draining (their work stopping).",
			float64(len(st.ranges)), "ring", name, "state", st.state)
	}
	for _, ig := range []struct {
		reason string
		n      uint64
	}{{"unreadable", s.Ignored.Unreadable}, {"foreign", s.Ignored.Foreign}, {"long_duration", s.Ignored.LongDuration}} {
		e.Counter("kubeloop_ring_ignored_leases_total",
			"Leases of the ring this replica ignored, wholly or in part, once per Lease and reason: ranges it cannot read (unreadable), no member's (foreign), trusted for PeerTrust lease durations only (long_duration).",
			float64(ig.n), "ring", name, "reason", ig.reason)
	}
	r.handovers.CollectMetrics(e)
	r.mu.Lock()
	kinds := slices.Clone(r.kinds)
	r.mu.Unlock()
	objects := map[kube.GroupVersionKind]float64{}
	for _, st := range r.cache.Stats() {
		if slices.Contains(kinds, st.Kind) {
			objects[st.Kind] += float64(st.Objects)
		}
	}
	for _, k := range kinds {
		e.Gauge("kubeloop_ring_objects", "Objects of the sharded kinds this replica caches: those of the shards it holds.",
			objects[k], "ring", name, "group", k.Group, "version", k.Version, "kind", k.Kind)
	}
}

// RingStatus returns what this replica's ring member knows of the ring
// (see [leader.RingStatus]); false without Options.Sharding.
func (m *Manager) RingStatus() (leader.RingStatus, bool) {
	if !m.made() || m.ring == nil {
		return leader.RingStatus{}, false
	}
	return m.ring.status(), true
}
