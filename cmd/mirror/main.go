// SPDX-License-Identifier: Apache-2.0

// Mirror copies Secrets and ConfigMaps into other namespaces and keeps
// the copies in sync. A source is a Secret or ConfigMap with either or
// both of the annotations
//
//	kubeloop.dev/mirror-to: team-a,team-b
//	kubeloop.dev/mirror-to-selector: mirror=yes
//
// The controller, and what it guarantees, is package cmd/internal/mirror;
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

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

func main() {
	os.Exit(run(manager.SetupSignalHandler(), os.Args[1:], os.Stderr))
}

// run is the program: it returns the exit code. Logs and usage go to
// stderr.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	opts, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return operator.ExitOK
	}
	if err != nil {
		fmt.Fprintf(stderr, "mirror: %v\n", err)
		return operator.ExitConfig
	}
	log := opts.Log.NewLogger(stderr)
	cfg, ok := opts.LoadConfig(stderr, "mirror", ", or run the demo on an in-process API server: go run ./cmd/demo")
	if !ok {
		return operator.ExitConfig
	}
	code, err := runMirror(ctx, cfg, opts, log)
	switch {
	case code == operator.ExitConfig:
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
		Workers:                 opts.Workers,
		QPS:                     opts.QPS,
		Burst:                   opts.Burst,
		LeaderElection:          opts.LeaderElect,
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		MetricsBindAddress:      opts.MetricsBindAddress,
		HealthProbeBindAddress:  opts.HealthProbeBindAddress,
		Logger:                  log,
	}
	mgr, err := mirror.NewManager(cfg, o)
	if err != nil {
		return operator.ExitConfig, err
	}
	if err := mirror.Run(ctx, mgr, o); err != nil {
		return operator.ExitRuntime, err
	}
	return operator.ExitOK, nil
}
