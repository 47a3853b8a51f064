// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// This file is the member as a program built on the manager runs:
// manager.Options.Sharding and a controller the builder makes with For
// and Sharded (--manager), rather than wired by hand from leader.Member, a sharded
// informer and controller.Shards. The protocol is the same; HOLD and DROP
// come from the ring member's log records (ringMarks): "range held:
// starting its work", logged before the range's work starts, and "range
// drained: releasing it" (or "work returned by itself"), logged after it
// returned, with the records' times.

func runManaged(f flags) error {
	sel, cfg, caFile, wire, err := connect(f)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	ringCfg := &kube.Config{Host: cfg.Host, BearerToken: cfg.BearerToken}
	ringCfg.TLS.CAFile = caFile
	log := slog.New(ringMarks{slog.NewTextHandler(os.Stderr, nil)})
	mgr, err := manager.New(cfg, manager.Options{
		Logger:             log,
		MetricsBindAddress: "0",
		Cache: cache.Options{
			SyncPeriod: time.Hour, // no resync within a run, as in run
			ByObject:   []cache.ByObject{{Object: &kube.ConfigMap{}, LabelSelector: sel}},
		},
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
	if err := controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Named("shardmember").Sharded().
		WithOptions(controller.Options{MaxConcurrentReconciles: f.workers}).Complete(r); err != nil {
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
	emit("READY")
	return mgr.Start(ctx)
}

// ringMarks passes records on to its handler and prints HOLD and DROP
// for the ring member's records of a range held and released.
type ringMarks struct{ slog.Handler }

func (h ringMarks) Handle(ctx context.Context, r slog.Record) error {
	mark := ""
	switch r.Message {
	case "range held: starting its work":
		mark = "HOLD"
	case "range drained: releasing it", "work returned by itself: releasing the range":
		mark = "DROP"
	}
	if mark != "" {
		r.Attrs(func(a slog.Attr) bool {
			if a.Key != "range" {
				return true
			}
			if i, _, ok := strings.Cut(a.Value.String(), "/"); ok {
				emit("%s %s %d", mark, i, r.Time.UnixNano())
			}
			return false
		})
	}
	return h.Handler.Handle(ctx, r)
}

func (h ringMarks) WithAttrs(attrs []slog.Attr) slog.Handler {
	return ringMarks{h.Handler.WithAttrs(attrs)}
}

func (h ringMarks) WithGroup(name string) slog.Handler { return ringMarks{h.Handler.WithGroup(name)} }
