// SPDX-License-Identifier: Apache-2.0

// Mirror copies Secrets and ConfigMaps into other namespaces and keeps
// the copies in sync.
//
// A source is a Secret or ConfigMap with either or both of the annotations
//
//	kubeloop.dev/mirror-to: team-a,team-b
//	kubeloop.dev/mirror-to-selector: mirror=yes
//
// Its copies are written with server-side apply (field manager
// "kubeloop-mirror") in every namespace named or selected, except its own,
// and carry the labels kubeloop.dev/mirror-of-namespace, -name and -kind.
// The mirror:
//
//   - updates the copies when the source changes, and puts back a copy
//     changed or deleted by hand;
//   - deletes the copies no longer wanted when the annotations change or a
//     namespace stops matching, and copies into namespaces that appear;
//   - holds the source with the finalizer kubeloop.dev/mirror until its
//     copies are deleted;
//   - never overwrites an object that is not its copy, never copies into
//     the source's own namespace, and never mirrors a copy;
//   - records Events on the source for what it does.
//
// Run it with a kubeconfig (--kubeconfig, $KUBECONFIG, in-cluster or
// ~/.kube/config), or with -demo on an in-process API server. See
// cmd/README.md for the flags, the RBAC it needs, and its size.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// The exit codes.
const (
	exitOK      = 0 // stopped by SIGINT or SIGTERM, or the demo succeeded
	exitRuntime = 1 // failed while running, or lost the leadership
	exitConfig  = 2 // bad flags or configuration
)

// LeaseName is the name of the leader election Lease.
const LeaseName = "kubeloop-mirror"

func main() {
	os.Exit(run(manager.SetupSignalHandler(), os.Args[1:], os.Stdout, os.Stderr))
}

// run is the program: it returns the exit code. Logs go to stderr, the
// demo's story to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "mirror: %v\n", err)
		return exitConfig
	}
	if opts.demo {
		if !opts.logLevelSet {
			opts.logLevel = slog.LevelWarn // the story on stdout is the demo's output
		}
		return runDemo(ctx, opts, stdout, newLogger(stderr, opts))
	}
	log := newLogger(stderr, opts)
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: opts.kubeconfig, Context: opts.context})
	if err != nil {
		fmt.Fprintf(stderr, "mirror: %v\n", err)
		if opts.kubeconfig == "" {
			fmt.Fprintln(stderr, "mirror: pass --kubeconfig (or set KUBECONFIG) to reach a cluster,"+
				" or run the demo on an in-process API server: go run ./cmd/mirror -demo")
		}
		return exitConfig
	}
	code, err := runMirror(ctx, cfg, opts, log)
	switch {
	case code == exitConfig:
		fmt.Fprintf(stderr, "mirror: %v\n", err)
	case err != nil:
		log.Error("mirror failed", "err", err)
	}
	return code
}

// runMirror runs the mirror on the cluster cfg reaches until ctx is done
// or something fails, and returns the exit code and the error behind it.
func runMirror(ctx context.Context, cfg *kube.Config, opts options, log *slog.Logger) (int, error) {
	mgr, err := newManager(cfg, opts, log)
	if err != nil {
		return exitConfig, err
	}
	err = setupMirror(ctx, mirrorConfig{
		Manager:   mgr,
		Cache:     mgr.Cache(),
		Client:    mgr.APIClient(),
		Events:    mgr.GetEventRecorderFor(LeaseName),
		Namespace: opts.namespace,
		Workers:   opts.workers,
		Logger:    log,
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return exitOK, nil // stopped by a signal while starting
	case err != nil:
		return exitRuntime, err
	}
	log.Info("starting the mirror", "namespace", opts.namespace, "leaderElection", opts.leaderElect)
	if err := mgr.Start(ctx); err != nil {
		return exitRuntime, err
	}
	log.Info("mirror stopped")
	return exitOK, nil
}

// newManager makes the manager: a metadata-only cache of the mirrored
// kinds and of Namespaces (declared, so a standby replica keeps it warm),
// the field manager of the copies, leader election and the endpoints.
func newManager(cfg *kube.Config, opts options, log *slog.Logger) (*manager.Manager, error) {
	cfg.QPS, cfg.Burst = opts.qps, opts.burst
	kinds := []cache.KindOptions{{Object: namespaceMeta()}}
	for _, k := range mirroredKinds() {
		kinds = append(kinds, cache.KindOptions{Object: k.meta()})
	}
	return manager.New(cfg, manager.Options{
		Logger:           log,
		ByObject:         kinds,
		DefaultTransform: cache.DropManagedFields,
		FieldManager:     FieldManager,
		LeaderElection: manager.LeaderElectionOptions{
			Enabled:         opts.leaderElect,
			ID:              LeaseName,
			Namespace:       opts.leaderNS,
			ReleaseOnCancel: true,
		},
		MetricsBindAddress:     opts.metricsAddr,
		HealthProbeBindAddress: opts.healthAddr,
	})
}
