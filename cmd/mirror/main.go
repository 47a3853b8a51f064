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
	"io"
	"log/slog"
	"os"

	"github.com/kubeloop/kubeloop/cmd/internal/mirror"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

func main() {
	os.Exit(operator.Main(manager.SetupSignalHandler(), program, os.Args[1:], os.Stderr))
}

// program is the mirror as [operator.Main] runs it.
var program = operator.Program[options]{
	Name:  "mirror",
	Hint:  ", or run the demo on an in-process API server: go run ./cmd/demo",
	Parse: parseFlags,
	Run:   runMirror,
}

// run is the program from its arguments to its exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	return operator.Main(ctx, program, args, stderr)
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
