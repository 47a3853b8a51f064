// SPDX-License-Identifier: Apache-2.0

// Mirror copies Secrets and ConfigMaps into other namespaces and keeps
// the copies in sync. A source is a Secret or ConfigMap with either or
// both of the annotations
//
//	kubeloop.dev/mirror-to: team-a,team-b
//	kubeloop.dev/mirror-to-selector: mirror=yes
//
// The controller, and what it guarantees, is package internal/mirror;
// this program runs it with a kubeconfig (--kubeconfig, $KUBECONFIG,
// in-cluster or ~/.kube/config). cmd/demo runs it on an in-process API
// server. See cmd/README.md for the flags, the RBAC it needs, and its
// size.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/kubeloop/kubeloop/internal/mirror"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// The exit codes.
const (
	exitOK      = 0 // stopped by SIGINT or SIGTERM
	exitRuntime = 1 // failed while running, or lost the leadership
	exitConfig  = 2 // bad flags or configuration
)

func main() {
	os.Exit(run(manager.SetupSignalHandler(), os.Args[1:], os.Stderr))
}

// run is the program: it returns the exit code. Logs and usage go to
// stderr.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "mirror: %v\n", err)
		return exitConfig
	}
	log := newLogger(stderr, opts)
	cfg, err := kube.LoadConfig(kube.LoadOptions{Path: opts.kubeconfig, Context: opts.context})
	if err != nil {
		fmt.Fprintf(stderr, "mirror: %v\n", err)
		if opts.kubeconfig == "" {
			fmt.Fprintln(stderr, "mirror: pass --kubeconfig (or set KUBECONFIG) to reach a cluster,"+
				" or run the demo on an in-process API server: go run ./cmd/demo")
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
	o := mirror.Options{
		Namespace:               opts.namespace,
		Workers:                 opts.workers,
		QPS:                     opts.qps,
		Burst:                   opts.burst,
		LeaderElection:          opts.leaderElect,
		LeaderElectionNamespace: opts.leaderNS,
		MetricsBindAddress:      opts.metricsAddr,
		HealthProbeBindAddress:  opts.healthAddr,
		Logger:                  log,
	}
	mgr, err := mirror.NewManager(cfg, o)
	if err != nil {
		return exitConfig, err
	}
	if err := mirror.Run(ctx, mgr, o); err != nil {
		return exitRuntime, err
	}
	return exitOK, nil
}
