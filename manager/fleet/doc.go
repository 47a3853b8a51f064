// SPDX-License-Identifier: Apache-2.0

// Package fleet runs one controller program across many clusters: a
// [Fleet] is the set of clusters a manager's fleet controllers watch,
// engaged and disengaged while the manager runs. A [Cluster] is a
// client of its API server, a cache, and the mapper in the client: a
// second cluster is a second pair, as kubeloop keeps no global state.
//
// It is a subpackage of manager because that is the concept it extends:
// the manager runs the fleet (its clusters' caches start with the
// manager's caches and stop after its controllers), serves its metrics,
// and its controllers are registered with the manager like any other.
// Package controller does not import it: a controller built with
// controller.Builder.Clusters(f) asks only for the small interface
// controller.Clusters, which a *Fleet has. Nor does this package import
// controller. A program that never imports it links none of it (see
// "Binary size" in package manager; cmd/mirror's
// TestOptionalPartsNotLinked checks it).
//
// A [Fleet] guarantees:
//
//   - Engaged at run time: [Fleet.Engage] adds a cluster before Start or
//     while the manager runs; its cache starts at once (with a ring, on
//     the replica holding its range), and every controller built with
//     controller.Builder.Clusters(f) starts a controller of its own for
//     it (queue, workers, the chain's sources in the cluster's
//     informers). Engage does no I/O.
//   - Disengaged without a trace: when [Fleet.Disengage] returns nil,
//     each controller's requests for the cluster still queued have been
//     dropped, its reconciles in flight have been cancelled and have
//     returned, its sources have left the cluster's informers, and the
//     cluster's cache has stopped: no goroutine of it runs, and its
//     objects are garbage once the callers drop the *Cluster and the
//     Go runtime has dropped the stopped timers of its contexts, which
//     it does lazily, at the latest when they would have fired (the
//     controllers' CacheSyncTimeout, 2m). TestEngageDisengage: the heap
//     is then back within 2% of what it was before the cluster came.
//   - The manager's own cluster, shared: [Fleet.EngageLocal] makes it a
//     member under a name, with the manager's client and cache (no
//     second cache; the fleet neither starts nor stops it), so that a hub
//     is reconciled as its members are (TestEngageLocal: its ConfigMaps
//     listed once). controller.Builder.WatchesIn routes a hub's changes
//     to every member's queue, and controller.Builder.ClusterFilter
//     chooses the members a controller runs in.
//   - One name, one cluster: a name engaged again (a kubeconfig that
//     changed) has its previous cluster stopped first; two clusters of
//     one name never run side by side.
//   - The reconciler knows its cluster: [ClusterFrom] of a reconcile's
//     context is the cluster of the request, and its logger has the key
//     "cluster". Read and write through ClusterFrom(ctx).Client(), whose
//     reads see its own writes (manager.Client).
//   - Isolated: each cluster has its own client, cache, queue and
//     workers; a cluster that is unreachable or slow holds up no other,
//     nor the manager's start (the fleet does not wait for its clusters
//     to sync).
//   - Counted: the controllers' series carry the label cluster, and the
//     fleet adds its own (see [Fleet.CollectMetrics]).
//   - Bounded: at most Options.MaxClusters clusters are engaged at once
//     ([DefaultMaxClusters], 100: see the costs below); Engage of one
//     more fails with [ErrClusterLimit] before anything of it is made,
//     the fleet logs the limit once each time it is reached, and
//     kubeloop_fleet_clusters_refused_total counts the refusals
//     (TestSecretsClusterLimit: 1,000 Secrets engage 100 clusters).
//   - Shared among replicas, with Options.Sharding set to a
//     [RingOptions]: the replicas form a ring of Leases (package leader)
//     and each runs only the clusters whose name hashes ([NameHash])
//     into a range it holds. Never two replicas on one cluster (a range
//     is started only once its previous holder has stopped its
//     clusters), every engaged cluster running on a live replica within
//     the ring's bounds (TestRingSharesClusters: two replicas share six
//     clusters, and the one left runs them all). A program that does not
//     name RingOptions links none of the ring.
//   - No panics from zero values: every exported type's zero value works
//     or returns an error (a zero or nil [Fleet] answers "fleet.Fleet: use
//     fleet.New", a zero or nil [Cluster] "fleet.Cluster: use
//     Fleet.Cluster"); a typed nil is treated as nil. TestZeroValues walks
//     the exported API for this.
//
// Providers ([Provider]) engage and disengage clusters from somewhere:
// [Static] from a fixed list, [Secrets] from kubeconfig Secrets of a
// namespace. The interface is two methods, Engage and Disengage, so a
// provider of cluster-api Clusters or of a cluster inventory can live
// outside this module.
//
// What a kubeconfig Secret grants. [Static] holds the kubeconfigs the
// program's operator gives, trusted as kubectl trusts them. [Secrets]
// reads kubeconfigs that whoever may write a Secret in its namespace
// wrote: that person points the program at any server, over https,
// with any credentials the Secret carries as data, and the program's
// controllers act there. It guarantees:
//
//   - Not code execution: by default ([Secrets].Policy, a
//     kube.KubeconfigPolicy, at its zero value) a kubeconfig with an
//     exec plugin, a file path (tokenFile, client-certificate,
//     client-key, certificate-authority), a plain http server,
//     insecure-skip-tls-verify or a proxy-url is refused, with a log
//     naming the Secret and the field, before any command runs or any
//     file is looked at, and its cluster is not engaged (or is
//     disengaged); each is allowed by name (TestSecretsPolicy). With
//     AllowExec, writing a Secret is running a command in the program's
//     pod; with AllowFiles, reading its files (its own service account
//     token) and sending them to a server of the writer's choice.
//   - Not a start and stop storm: a cluster is engaged again only when
//     its kubeconfig's bytes change (TestSecretsKubeconfigUnchanged),
//     and at most once per [Secrets].ReengageInterval (30s by default);
//     a Secret removed or refused disengages at once. A kubeconfig
//     changed 100 times in 10s engages its cluster twice
//     (TestSecretsChangingInLoop).
//
// Not refused: a server at a loopback, link-local or private address
// (a name may resolve to one; plain http, which the usual metadata
// endpoints speak, is refused). The environment's proxy is never used.
//
// Costs, measured (BenchmarkEngage, kubetest servers in process, one
// controller watching ConfigMaps): an engaged cluster costs 9 goroutines
// (its informer's, its controller's workers and source, its client's
// connection) and about 110 kB of heap (its client and discovery, its
// cache, its controller's queue) plus what it caches (about 1.6 kB a
// ConfigMap of 512 bytes). Engaging a cluster until its controller has
// reconciled every object takes 1.5 ms for one ConfigMap, 22 ms for
// 1,000; disengaging it 0.05 to 0.2 ms.
//
// Where it departs from multicluster-runtime, on purpose:
//   - The request does not carry the cluster; the reconcile's context
//     does. A Cluster field on controller.Request would cost every
//     single-cluster program about 5 kB of binary (measured), against
//     kubeloop's size budget; the context costs them nothing.
//   - Each cluster gets its own queue and workers, rather than one queue
//     for all: disengaging drops its requests by stopping its queue, and
//     the memory goes with it; a busy cluster cannot starve the others.
//     Options.MaxConcurrentReconciles is per cluster.
//   - A provider drives the fleet through two methods; it does not
//     build clusters (the fleet builds them from a kube.Config, with
//     one set of options).
//
// Usage:
//
//	mgr, _ := manager.New(cfg, manager.Options{})
//	f, _ := fleet.New(mgr, fleet.Options{Providers: []fleet.Provider{
//		fleet.Secrets{Client: mgr.APIClient(), Namespace: "fleet"},
//	}})
//	err := controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
//		func(ctx context.Context, req controller.Request) (controller.Result, error) {
//			cl := fleet.ClusterFrom(ctx) // the request's cluster
//			var cm kube.ConfigMap
//			if err := cl.Client().Get(ctx, req.Key, &cm); err != nil {
//				return controller.Result{}, kube.IgnoreNotFound(err)
//			}
//			// ... act in cl
//			return controller.Result{}, nil
//		}))
//	err = mgr.Start(manager.SetupSignalHandler())
package fleet
