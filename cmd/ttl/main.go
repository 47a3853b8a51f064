// SPDX-License-Identifier: Apache-2.0

// TTL deletes objects once their time is up.
//
// An object of a kind given with --kind that carries the annotation
//
//	kubeloop.dev/ttl: 1h
//
// (a Go duration) is deleted once that long has passed since its
// creationTimestamp. The TTL controller:
//
//   - reads from a metadata-only cache and never lists the API server
//     after the cache's first list: an object with time left is looked at
//     again when it is due (Result.RequeueAfter), not polled;
//   - deletes with the uid and resourceVersion it judged as
//     preconditions, so an object changed meanwhile is judged again;
//   - never deletes on a value that is not a duration: it records a
//     Warning Event and logs the error instead;
//   - records a Normal Event for each deletion.
//
// See cmd/README.md for the flags and the RBAC it needs.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// Name is the name of the leader election Lease and of the events'
// reporting controller.
const Name = "kubeloop-ttl"

func main() {
	os.Exit(operator.Main(manager.SetupSignalHandler(), program, os.Args[1:], os.Stderr))
}

// program is the TTL controller as [operator.Main] runs it.
var program = operator.Program[options]{Name: "ttl", Parse: parseFlags, Run: runTTL}

// run is the program from its arguments to its exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	return operator.Main(ctx, program, args, stderr)
}

// runTTL runs the TTL controllers on the cluster cfg reaches until ctx is
// done or something fails, and returns the exit code and the error behind
// it.
func runTTL(ctx context.Context, cfg *kube.Config, opts options, log *slog.Logger) (int, error) {
	mgr, err := newManager(cfg, opts, log)
	if err != nil {
		return operator.ExitConfig, err
	}
	err = setupTTL(ctx, setupOptions{
		Manager: mgr,
		Cache:   mgr.Cache(),
		Client:  mgr.APIClient(),
		Events:  mgr.GetEventRecorderFor(Name),
		Kinds:   opts.kinds,
		Workers: opts.Workers,
		Sharded: opts.sharded,
		Logger:  log,
	})
	var noKind *kube.NoKindMatchError
	switch {
	case err != nil && ctx.Err() != nil:
		return operator.ExitOK, nil // stopped by a signal while starting
	case errors.As(err, &noKind):
		return operator.ExitConfig, fmt.Errorf("--kind: %w", err)
	case err != nil:
		return operator.ExitRuntime, err
	}
	log.Info("starting the ttl controller", "kinds", len(opts.kinds), "namespace", opts.namespace, "leaderElection", opts.LeaderElect, "sharded", opts.sharded)
	if err := mgr.Start(ctx); err != nil {
		return operator.ExitRuntime, err
	}
	log.Info("ttl controller stopped")
	return operator.ExitOK, nil
}

// newManager makes the manager: a metadata-only cache of the kinds
// (declared, so a standby replica keeps it warm), limited to a namespace
// and a label selector when asked, leader election and the endpoints; or,
// with --sharded, a member of the ring kubeloop-ttl, whose controllers
// cache and expire only the objects of the ranges it holds.
func newManager(cfg *kube.Config, opts options, log *slog.Logger) (*manager.Manager, error) {
	cfg.QPS, cfg.Burst = opts.QPS, opts.Burst
	var kinds []cache.ByObject
	for _, gvk := range opts.kinds {
		obj := &kube.PartialObjectMetadata{}
		obj.SetGroupVersionKind(gvk)
		kinds = append(kinds, cache.ByObject{Object: obj, LabelSelector: opts.selector})
	}
	var namespaces []string
	if opts.namespace != "" {
		namespaces = []string{opts.namespace}
	}
	mopts := manager.Options{
		Logger:                 log,
		Cache:                  cache.Options{Namespaces: namespaces, ByObject: kinds},
		FieldManager:           Name,
		MetricsBindAddress:     opts.MetricsBindAddress,
		HealthProbeBindAddress: opts.HealthProbeBindAddress,
	}
	if opts.LeaderElect {
		mopts.LeaderElection = manager.LeaderElectionOptions{LeaseName: Name, Namespace: opts.LeaderElectionNamespace, ReleaseOnCancel: true}
	}
	if opts.sharded {
		mopts.Sharding = manager.ShardingOptions{Ring: Name, Namespace: opts.ringNamespace, Ranges: opts.ringRanges}
	}
	return manager.New(cfg, mopts)
}
