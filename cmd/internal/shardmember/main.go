// SPDX-License-Identifier: Apache-2.0

// Command shardmember is one replica of a sharded ConfigMap controller,
// for internal/integration's three-process test of sharding
// (TestShardProcesses); it is not an example to copy (cmd/README.md lists
// those). It joins a ring with leader.NewMember, caches the ConfigMaps of
// its ranges with a sharded informer, and reconciles them with a
// controller gated by controller.Shards; with --unsharded it is a plain
// replica that caches and reconciles every ConfigMap the label selector
// picks, for comparison; with --manager it is built as programs on the
// manager are (managed.go).
//
// It reaches the server named by KUBELOOP_SERVER with the bearer token
// KUBELOOP_TOKEN and the CA of KUBELOOP_CA_FILE (what the integration
// harness's env file exports), and prints on standard output, one line
// each, unbuffered so that a SIGKILL loses none:
//
//	READY
//	START namespace/name unixnano     a reconcile begins
//	END namespace/name unixnano       and ends
//	HOLD index unixnano               the member starts holding a range
//	DROP index unixnano               and has released it
//	STATS {json}                      on SIGUSR1: see stats
//
// Timestamps are wall-clock nanoseconds: comparable across processes of
// one machine only.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
)

// flags are the command line.
type flags struct {
	id, namespace, ring, selector string
	ranges, workers               int
	lease, renew, retry           time.Duration
	reconcileTime                 time.Duration
	unsharded, managed            bool
}

func main() {
	var f flags
	flag.StringVar(&f.id, "id", "", "member identity (required)")
	flag.StringVar(&f.namespace, "namespace", "default", "namespace of the ring's Leases")
	flag.StringVar(&f.ring, "ring", "shardmember", "ring name")
	flag.StringVar(&f.selector, "selector", "", "label selector of the ConfigMaps to reconcile (all namespaces)")
	flag.IntVar(&f.ranges, "ranges", leader.DefaultRanges, "ranges of the hash space")
	flag.DurationVar(&f.lease, "lease-duration", 4*time.Second, "ring LeaseDuration")
	flag.DurationVar(&f.renew, "renew-deadline", 3*time.Second, "ring RenewDeadline")
	flag.DurationVar(&f.retry, "retry-period", 500*time.Millisecond, "ring RetryPeriod")
	flag.DurationVar(&f.reconcileTime, "reconcile-time", 5*time.Millisecond, "how long each reconcile takes")
	flag.IntVar(&f.workers, "workers", 4, "the controller's MaxConcurrentReconciles")
	flag.BoolVar(&f.unsharded, "unsharded", false, "cache and reconcile every selected ConfigMap, with no ring")
	flag.BoolVar(&f.managed, "manager", false, "run as a manager with Options.Sharding and a builder's For controller (managed.go)")
	flag.Parse()
	start := run
	if f.managed {
		start = runManaged
	}
	if err := start(f); err != nil {
		fmt.Fprintln(os.Stderr, "shardmember:", err)
		os.Exit(1)
	}
}

// outMu keeps the lines of the protocol whole.
var outMu sync.Mutex

// emit writes one line of the protocol, in one write.
func emit(format string, args ...any) {
	outMu.Lock()
	defer outMu.Unlock()
	fmt.Fprintf(os.Stdout, format+"\n", args...)
}

// stats is what STATS reports: the ConfigMaps in the member's cache, the
// bytes its informer's client read from the server, the informer's list
// and watch requests and relists, the objects it received (Events, those
// it kept) and dropped because the server did not filter them, and the
// ranges it holds.
type stats struct {
	Objects       int    `json:"objects"`
	WireBytes     int64  `json:"wireBytes"`
	ListRequests  uint64 `json:"listRequests"`
	WatchRequests uint64 `json:"watchRequests"`
	Relists       uint64 `json:"relists"`
	Events        uint64 `json:"events"`
	ShardDropped  uint64 `json:"shardDropped"`
	Held          int    `json:"held"`
}

// connect checks the flags both modes need and returns the member's
// selector and the config of its informer's client, whose bytes wire
// counts (the ring's client is apart, made from caFile, so that its Lease
// traffic is not counted).
func connect(f flags) (sel kube.Selector, cfg *kube.Config, caFile string, wire *atomic.Int64, err error) {
	if f.id == "" {
		return sel, nil, "", nil, fmt.Errorf("--id is required")
	}
	if sel, err = kube.ParseSelector(f.selector); err != nil {
		return sel, nil, "", nil, fmt.Errorf("--selector: %w", err)
	}
	wire = new(atomic.Int64)
	caFile = os.Getenv("KUBELOOP_CA_FILE")
	tr, err := countingTransport(caFile, wire)
	if err != nil {
		return sel, nil, "", nil, err
	}
	cfg = &kube.Config{Host: os.Getenv("KUBELOOP_SERVER"), BearerToken: os.Getenv("KUBELOOP_TOKEN"), QPS: -1, Transport: tr}
	return sel, cfg, caFile, wire, nil
}

func run(f flags) error {
	sel, cfg, caFile, wire, err := connect(f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	client, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var member *leader.Member
	// No resync within a run (an hour): every reconcile the ledger shows
	// comes from a change or a range taken. The claims waiting for their
	// holders are the shards about to be added, as the manager wires them
	// (manager/sharding.go): member is set before the informer starts.
	inf, err := cache.NewInformer[kube.ConfigMap](client, cache.InformerOptions{
		LabelSelector: sel, Sharded: !f.unsharded, SyncPeriod: time.Hour, Logger: log,
		ShardsPending: func() bool { return member != nil && len(member.Status().Claimed) > 0 },
	})
	if err != nil {
		return err
	}
	var r controller.Reconciler = controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		emit("START %s %d", req.Key, time.Now().UnixNano())
		time.Sleep(f.reconcileTime) // not cancelled: a reconcile in flight runs to its end
		emit("END %s %d", req.Key, time.Now().UnixNano())
		return controller.Result{}, nil
	})
	var (
		src    controller.Source = controller.Kind(inf.ObjectInformer(), controller.EnqueueObject())
		shards *controller.Shards
	)
	if !f.unsharded {
		if shards, err = controller.NewShards(inf.ObjectInformer().(controller.ShardedInformer)); err != nil {
			return err
		}
		src, r = shards, shards.Reconciler(r)
		ringCfg := &kube.Config{Host: cfg.Host, BearerToken: cfg.BearerToken}
		ringCfg.TLS.CAFile = caFile
		ringClient, err := kube.NewClient(ringCfg, kube.ClientOptions{})
		if err != nil {
			return err
		}
		member, err = leader.NewMember(leader.RingOptions{
			Client: ringClient, Namespace: f.namespace, Ring: f.ring, Identity: f.id, Ranges: f.ranges,
			LeaseDuration: f.lease, RenewDeadline: f.renew, RetryPeriod: f.retry,
			Logger: log,
			Work: func(ctx context.Context, shardSel kube.ShardSelector) error {
				rg := leader.RangeOf(shardSel.Ranges[0].Start, f.ranges)
				emit("HOLD %d %d", rg.Index, time.Now().UnixNano())
				err := shards.Work(ctx, shardSel)
				if err != nil && ctx.Err() == nil {
					fmt.Fprintf(os.Stderr, "work on %s: %v\n", rg, err)
				}
				emit("DROP %d %d", rg.Index, time.Now().UnixNano())
				return err
			},
		})
		if err != nil {
			return err
		}
	}
	c, err := controller.New("shardmember", r, controller.Options{MaxConcurrentReconciles: f.workers})
	if err != nil {
		return err
	}
	if err := c.Watch(src); err != nil {
		return err
	}

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		for range usr1 {
			st := inf.Stats()
			s := stats{Objects: st.Objects, WireBytes: wire.Load(), ListRequests: st.ListRequests,
				WatchRequests: st.WatchRequests, Relists: st.Relists, Events: st.Events, ShardDropped: st.ShardDropped}
			if member != nil {
				s.Held = len(member.Status().Held)
			}
			b, _ := json.Marshal(s)
			emit("STATS %s", b)
		}
	}()

	var wg sync.WaitGroup
	errs := make(chan error, 3)
	wg.Go(func() { errs <- inf.Start(ctx) })
	wg.Go(func() { errs <- c.Start(ctx) })
	if member != nil {
		wg.Go(func() { errs <- member.Run(ctx) })
	}
	emit("READY")
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil && ctx.Err() == nil {
			return err
		}
	}
	return nil
}
