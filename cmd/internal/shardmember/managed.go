// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
	"github.com/kubeloop/kubeloop/manager"
)

// This file is the member as a program built on the manager runs:
// manager.Options.Sharding and a controller the builder makes with For
// (--manager), rather than wired by hand from leader.Member, a sharded
// informer and controller.Shards. The protocol is the same, but for HOLD
// and DROP, which come from the manager's ring status polled every
// holdPoll: a HOLD's time is that of the poll before the one that saw
// the range held (its work started within holdPoll after, and no
// reconcile of its objects before), a DROP's that of the poll that saw
// it released.

// holdPoll is how often the ring status is read for HOLD and DROP.
const holdPoll = 10 * time.Millisecond

func runManaged(f flags) error {
	if f.id == "" {
		return fmt.Errorf("--id is required")
	}
	sel, err := kube.ParseSelector(f.selector)
	if err != nil {
		return fmt.Errorf("--selector: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()

	var wire atomic.Int64
	caFile := os.Getenv("KUBELOOP_CA_FILE")
	tr, err := countingTransport(caFile, &wire)
	if err != nil {
		return err
	}
	cfg := &kube.Config{Host: os.Getenv("KUBELOOP_SERVER"), BearerToken: os.Getenv("KUBELOOP_TOKEN"), QPS: -1, Transport: tr}
	ringCfg := &kube.Config{Host: cfg.Host, BearerToken: cfg.BearerToken}
	ringCfg.TLS.CAFile = caFile
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	mgr, err := manager.New(cfg, manager.Options{
		Logger:             log,
		MetricsBindAddress: "0",
		SyncPeriod:         time.Hour, // no resync within a run, as in run
		ByObject:           []cache.ByObject{{Object: &kube.ConfigMap{}, LabelSelector: sel}},
		Sharding: manager.ShardingOptions{
			Ring: f.ring, Namespace: f.namespace, Identity: f.id, Ranges: f.ranges,
			LeaseDuration: f.lease, RenewDeadline: f.renew, RetryPeriod: f.retry, Config: ringCfg,
		},
	})
	if err != nil {
		return err
	}
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		emit("START %s %d", req.Key, time.Now().UnixNano())
		time.Sleep(f.reconcileTime)
		emit("END %s %d", req.Key, time.Now().UnixNano())
		return controller.Result{}, nil
	})
	if err := controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Named("shardmember").
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).Complete(r); err != nil {
		return err
	}

	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	go func() {
		for range usr1 {
			s := stats{WireBytes: wire.Load()}
			for _, st := range mgr.Cache().Stats() {
				if st.Kind.Kind == "ConfigMap" {
					s.Objects += st.Objects
					s.ListRequests += st.ListRequests
					s.WatchRequests += st.WatchRequests
					s.Relists += st.Relists
					s.Events += st.Events
					s.ShardDropped += st.ShardDropped
				}
			}
			if rs, ok := mgr.RingStatus(); ok {
				s.Held = len(rs.Held)
			}
			b, _ := json.Marshal(s)
			emit("STATS %s", b)
		}
	}()
	go pollHeld(ctx, mgr)
	emit("READY")
	return mgr.Start(ctx)
}

// pollHeld prints HOLD and DROP lines for the ranges the manager's ring
// member starts and stops holding, until ctx is done.
func pollHeld(ctx context.Context, mgr *manager.Manager) {
	var held []leader.Range
	t := time.NewTicker(holdPoll)
	defer t.Stop()
	prev := time.Now().UnixNano()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now().UnixNano()
		rs, _ := mgr.RingStatus()
		for _, rg := range rs.Held {
			if !slices.Contains(held, rg) {
				emit("HOLD %d %d", rg.Index, prev)
			}
		}
		for _, rg := range held {
			if !slices.Contains(rs.Held, rg) {
				emit("DROP %d %d", rg.Index, now)
			}
		}
		held, prev = rs.Held, now
	}
}
