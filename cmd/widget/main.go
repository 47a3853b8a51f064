// SPDX-License-Identifier: Apache-2.0

// Widget is a small CRD operator, the third example program: a Widget
// (widgets.example.kubeloop.dev/v1, declared in Go in types.go) gets a
// ConfigMap holding its spec.
//
// It shows the pieces an operator author reaches for, with nothing
// generated:
//
//   - the CRD is built from the Go type at start-up (kube/crd) and
//     installed or updated before the controller starts (--install-crd);
//   - the status subresource, written with Status().Patch and
//     kube.MergeFrom (no Conflict on a stale read), carries a Ready
//     condition (kube.Condition) and the observed generation;
//   - the ConfigMap is owned (SetControllerReference, Owns): a hand edit
//     is undone at once;
//   - a finalizer deletes the ConfigMaps, found through the owner index of
//     the cache, before a Widget goes;
//   - events for what it writes; leader election with --leader-elect;
//   - with --metrics-cert-dir, its metrics over HTTPS to the callers the
//     API server authorizes (manager/metricsauth), as kubebuilder
//     scaffolds them.
//
// See cmd/README.md for how to run it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/metricsauth"
	"github.com/kubeloop/kubeloop/manager/pprof"
)

// Name is the name of the leader election Lease, of the field manager
// and of the events' reporting controller.
const Name = "kubeloop-widget"

func main() {
	os.Exit(operator.Main(manager.SetupSignalHandler(), program, os.Args[1:], os.Stderr))
}

var program = operator.Program[options]{Name: "widget", Parse: parseFlags, Run: runWidget}

// run is the program from its arguments to its exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	return operator.Main(ctx, program, args, stderr)
}

// options are the command line, checked.
type options struct {
	operator.Flags
	installCRD     bool
	pprofAddr      string
	metricsCertDir string
}

func parseFlags(args []string, out io.Writer) (options, *operator.Flags, error) {
	var o options
	fs := flag.NewFlagSet("widget", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprint(out, `Usage: widget [flags]

Keeps a ConfigMap widget-NAME for each Widget (example.kubeloop.dev/v1)
holding its spec, and reports in the Widget's Ready condition.

Exit codes: 0 stopped cleanly (SIGINT, SIGTERM), 1 runtime error or
leadership lost, 2 bad flags or configuration.

Flags:
`)
		fs.PrintDefaults()
	}
	fs.BoolVar(&o.installCRD, "install-crd", true, "create or update the Widget CRD as the manager starts (on every replica), before the controller reads Widgets")
	fs.StringVar(&o.pprofAddr, "pprof-bind-address", "", `serve the Go runtime's profiles at this "host:port" (for go tool pprof); empty serves none`)
	fs.StringVar(&o.metricsCertDir, "metrics-cert-dir", "", `serve the metrics at --metrics-bind-address over HTTPS, with this directory's tls.crt and tls.key, to the callers the API server authorizes to get /metrics; empty serves plain HTTP to anyone`)
	o.Register(fs, 2, "Widgets reconciled at once")
	if err := fs.Parse(args); err != nil {
		return o, &o.Flags, err
	}
	var errs []error
	if fs.NArg() > 0 {
		errs = append(errs, fmt.Errorf("unexpected arguments %q", fs.Args()))
	}
	errs = append(errs, o.Validate())
	if o.metricsCertDir != "" && o.MetricsBindAddress == "0" {
		errs = append(errs, errors.New(`--metrics-cert-dir with --metrics-bind-address "0": want an address to serve the metrics on`))
	}
	return o, &o.Flags, errors.Join(errs...)
}

// runWidget runs the operator until ctx is done or something fails.
func runWidget(ctx context.Context, cfg *kube.Config, opts options, log *slog.Logger) (int, error) {
	flags := opts.Flags
	if opts.metricsCertDir != "" {
		flags.MetricsBindAddress = "0" // the metrics server below serves them
	}
	mgr, err := newManager(cfg, flags, log)
	if err != nil {
		return operator.ExitConfig, err
	}
	if opts.metricsCertDir != "" {
		ms, err := metricsauth.New(mgr, metricsauth.Options{BindAddress: opts.MetricsBindAddress, CertDir: opts.metricsCertDir, Logger: log})
		if err != nil {
			return operator.ExitConfig, err
		}
		if err := mgr.Add(ms); err != nil {
			return operator.ExitRuntime, err
		}
	}
	if opts.pprofAddr != "" {
		profiles, err := pprof.New(pprof.Options{BindAddress: opts.pprofAddr, Logger: log})
		if err != nil {
			return operator.ExitConfig, err
		}
		if err := mgr.Add(profiles); err != nil {
			return operator.ExitRuntime, err
		}
	}
	if opts.installCRD {
		def, err := widgetCRD()
		if err != nil {
			return operator.ExitRuntime, err
		}
		if err := mgr.Add(crd.NewInstaller(mgr.APIClient(), def).WithLogger(log)); err != nil {
			return operator.ExitRuntime, err
		}
	}
	if err := setup(ctx, mgr, opts.Workers, log); err != nil {
		if ctx.Err() != nil {
			return operator.ExitOK, nil // stopped by a signal while starting
		}
		return operator.ExitRuntime, err
	}
	log.Info("starting the widget operator", "leaderElection", opts.LeaderElect)
	if err := mgr.Start(ctx); err != nil {
		return operator.ExitRuntime, err
	}
	log.Info("widget operator stopped")
	return operator.ExitOK, nil
}

// newManager makes the manager: a cache of the operator's own
// ConfigMaps only (by label), leader election and the endpoints.
func newManager(cfg *kube.Config, f operator.Flags, log *slog.Logger) (*manager.Manager, error) {
	cfg.QPS, cfg.Burst = f.QPS, f.Burst
	opts := manager.Options{
		Logger: log,
		Cache: cache.Options{ByObject: []cache.ByObject{{Object: &kube.ConfigMap{},
			LabelSelector: kube.SelectorFromSet(map[string]string{LabelManagedBy: Name})}}},
		FieldManager:           Name,
		Permissions:            manager.PermissionsCheck{}, // fail at start, naming the rules, rather than log 403s
		MetricsBindAddress:     f.MetricsBindAddress,
		HealthProbeBindAddress: f.HealthProbeBindAddress,
	}
	if f.LeaderElect {
		opts.LeaderElection = manager.LeaderElectionOptions{LeaseName: Name, Namespace: f.LeaderElectionNamespace, ReleaseOnCancel: true}
	}
	return manager.New(cfg, opts)
}

// setup registers the Widget controller with mgr: it watches Widgets and
// the ConfigMaps they control, and indexes those ConfigMaps by owner.
func setup(ctx context.Context, mgr *manager.Manager, workers int, log *slog.Logger) error {
	if err := mgr.Cache().IndexOwner(ctx, &kube.ConfigMap{}, &Widget{}); err != nil {
		return fmt.Errorf("set up the widget controller: %w", err)
	}
	r := &reconciler{client: mgr.Client(), events: mgr.GetEventRecorderFor(Name)}
	err := controller.NewBuilder(mgr).
		Named("widget").
		For(&Widget{}).
		Owns(&kube.ConfigMap{}).
		// A reconcile stuck on the API server is cut after a minute and
		// retried (counted in controller_runtime_reconcile_timeouts_total).
		WithOptions(controller.Options{MaxConcurrentReconciles: workers, Logger: log, ReconcileTimeout: time.Minute}).
		Complete(r)
	if err != nil {
		return fmt.Errorf("set up the widget controller: %w", err)
	}
	return nil
}
