// SPDX-License-Identifier: Apache-2.0

// Package manager runs a controller program: the cache and the clients
// controllers read and write with, the controllers and other runnables,
// leader election, the Prometheus metrics and health endpoints, the event
// recorder, and (in its slot) the admission webhook server.
//
// A [Manager] guarantees:
//
//   - Ordered start: the webhook server, then the caches, which sync
//     before anything else starts, then the runnables that run on every
//     replica, then, once this replica leads (or at once without leader
//     election), the runnables that need the lease. A runnable added after
//     Start joins its group at once (see [Manager.Add]).
//   - Ordered stop: the start order backwards. The controllers stop first
//     and finish their reconciles in flight while the caches, the webhook
//     server and the probes still serve them; the metrics and health
//     servers stop last. The whole stop is bounded by
//     Options.GracefulShutdownTimeout, and Start's error names what did
//     not stop in time.
//   - Fail fast: a runnable that fails stops the manager, and Start returns
//     its error joined with any error of the stop.
//   - One leader: with leader election, the runnables that need it run on
//     at most one replica; losing the lease cancels them at once and Start
//     returns an error wrapping [leader.ErrLeadershipLost]. Exit then.
//   - Warm standby: replicas that do not lead keep their caches started
//     and synced (every kind of Options.Cache.ByObject, and every kind read
//     before), so a new leader starts its runnables the moment it wins the
//     lease, and they find their informers synced: no initial list stands
//     between the election and the first reconcile. Declare the kinds your
//     controllers watch in Cache.ByObject, or give them a Warmup method (see
//     [Runnable]) that makes their informers on every replica: an informer
//     a controller makes only when it starts begins its list then.
//   - Observable from the start: Start opens the metrics and health
//     listeners before anything else (an address in use is Start's
//     error, and New opens nothing), serves them whether or not this
//     replica leads, and keeps serving them until everything else has
//     stopped. Their connections are bounded: 10s to send a request's
//     headers, a minute to read a request and a minute to write an
//     answer, 90s idle between requests. controller-runtime's servers
//     bound only the first (32s) and the last (90s, as here, the
//     keep-alive of http.DefaultTransport); a scrape or a probe is one
//     short answer, so tighter bounds cost nothing.
//   - Metrics served as controller-runtime serves them by default:
//     plain HTTP on :8080 of every interface, to anyone who reaches it
//     (Options.MetricsBindAddress; "0" turns it off). To serve them over
//     HTTPS only to the callers the API server authenticates and
//     authorizes (a TokenReview of the bearer token, a
//     SubjectAccessReview of get on /metrics), as kubebuilder scaffolds
//     on :8443, set MetricsBindAddress to "0" and add a server of
//     package manager/metricsauth, which serves [Manager.MetricsHandler].
//     The health probes are off by default (HealthProbeBindAddress, as
//     controller-runtime's; kubebuilder scaffolds ":8081"), and answer
//     anyone, with the failing checks' reasons withheld but for
//     /readyz/NAME.
//   - Nothing global: no default registry, no package state. Metrics are
//     read at scrape time: every controller writes its own series through
//     one small interface ([MetricsCollector]), the cache's come from its
//     Stats snapshot; the families many controllers share are written
//     with one HELP and TYPE.
//   - Recording never blocks: [EventRecorder.Eventf] hands the event to a
//     bounded buffer and returns; repeats become a series count and each
//     object's events are rate-limited before they reach the API server.
//   - Every exported type's zero value works or returns an error (a zero
//     or nil [Manager] answers "manager.Manager: use manager.New"; a zero
//     [CounterVec] is a family without labels); a typed nil is treated as
//     nil: Options{LeaderElection: (*LeaderElectionOptions)(nil)} runs
//     without leader election, and a nil pointer's methods return zero
//     values or an error. TestZeroValues walks the exported API for this.
//
// Sharding ([Options.Sharding], a [ShardingOptions]): the replicas form a
// ring of Leases (package leader), and the controllers built with
// controller.Builder.Sharded (registered by [Manager.AddShardedController])
// are sharded across them: each replica caches and reconciles only the
// objects of their kinds whose shard field hashes into the ranges it
// holds; the other controllers, of other kinds, are not. The manager
// joins the ring once its caches have synced, beside the runnables that
// need no leader (sharded controllers need none; the others still follow
// LeaderElection), and on stop leaves it before stopping those runnables:
// it stops taking the ranges' requests, waits for their reconciles in
// flight, publishes each range's release, and deletes its Lease, so the
// others take over within RetryPeriod. It adds the readiness check
// [CheckRing] and these series (label ring, the ring's name):
//
//   - kubeloop_ring_members (gauge): live members this replica counts,
//     itself included;
//   - kubeloop_ring_ranges{state} (gauge): ranges assigned to this
//     replica, held (their work runs), claimed (waiting for their previous
//     holder) and draining (their work stopping);
//   - kubeloop_ring_handover_duration_seconds (histogram): for each range
//     this replica took, the seconds from the moment the assignment gave
//     it the range (a member gone, leaving or joined) to the start of its
//     work here; its _count is the number of ranges taken;
//   - kubeloop_ring_objects{group,version,kind} (gauge): objects of each
//     sharded kind this replica caches, those of the ranges it holds;
//   - kubeloop_ring_ignored_leases_total{reason} (counter): Leases of the
//     ring this replica ignored, once per Lease and reason (see
//     leader.IgnoredLeases): ranges it cannot read ("unreadable"), no
//     member's ("foreign"), trusted for leader.PeerTrust lease durations
//     only ("long_duration"). Another replica with this one's identity
//     stops one of the two with an error wrapping
//     leader.ErrIdentityShared, which stops its manager.
//
// A manager never imports package controller: a controller is a runnable.
// The controller builder asks for the little it needs (GetInformer, Mapping,
// AddController, AddShardedController), which a *Manager has. Calls go
// one way: the builder hands a sharded controller's work to the manager,
// which calls it for each range held as it calls a runnable's Start.
//
// Binary size: the manager's optional parts, leader election, sharding
// and the permissions check, are each reached only through an interface
// (the Manager's unexported fields election and ring, and
// Options.Permissions), nil unless [New] is given the option that makes
// it: Options.LeaderElection set to a [LeaderElectionOptions] (package
// leader's elector, about 72 KB of a program), Options.Sharding set to a
// [ShardingOptions] (the ring member and its Lease protocol, the sharded
// informers and controllers: about 360 KB), Options.Permissions set to a
// [PermissionsCheck] (the SelfSubjectAccessReviews and the rules'
// YAML). Naming the option
// type is the one entry point: it keeps the option's method that makes
// the part and stores it in the field. A program that never names it
// links none of it (cmd/mirror's TestOptionalPartsNotLinked checks for the
// ring and the shards). A part that needs a package nothing else imports
// lives in a package of its own, which the program imports to use it:
// the webhook server (manager/webhook), the profiling endpoint
// (manager/pprof, the one importer of runtime/pprof: imported by package
// manager, even unused, it would cost every program some 3 KB of debug
// information), the authenticated metrics server (manager/metricsauth).
// Such a part is a runnable; one with a Listen method is a server, which
// the manager starts first and stops last. cmd/mirror's
// TestOptionalPartsNotLinked checks that these stay out too.
//
// What every program links is kept small too: a helper off the hot path
// that the compiler would inline at many call sites (an error builder,
// a constructor, a metric emitter, GroupVersionKind.APIVersion) carries
// //go:noinline, and cold error paths make their errors with
// internal/errs.Errorf, fmt.Errorf behind one call: each inlined copy
// costs its code, its DWARF entries and its line tables in every
// program. Together these saved 64 KB of the mirror and 53 KB of the
// README's controller (cmd/mirror's TestBinarySize and
// TestReadmeControllerSize measure them).
//
// Usage:
//
//  1. Make a manager with [New] from a kube.Config (kube.LoadConfig).
//  2. Register controllers: controller.NewBuilder(mgr).For(...).Complete(r);
//     add other runnables with [Manager.Add], health checks with
//     [Manager.AddReadyzCheck] (the built-ins [CheckPing], [CheckCacheSync]
//     and [CheckLeaderElection] are there already), metrics with
//     [Manager.AddMetricsCollector].
//  3. Run [Manager.Start] with [SetupSignalHandler]'s context, and exit
//     non-zero on its error (leadership lost included).
//  4. While it runs, take out a controller with
//     [Manager.RemoveController], which waits for its reconciles in
//     flight, and then an informer nothing uses with
//     cache.Cache.RemoveInformer (on the manager's [cache.Cluster.Cache]).
package manager
