// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"context"
	"log/slog"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// LeaseName is the name of the leader election Lease, and the reporting
// controller of the mirror's Events.
const LeaseName = "kubeloop-mirror"

// Options are the mirror's settings, as its command line gives them.
type Options struct {
	// Namespace limits sources to one namespace; "" means all. Copies go
	// to any namespace.
	Namespace string
	// Workers is the number of reconciles run at once, per kind.
	Workers int
	// QPS and Burst are the client-side rate limit of the API requests.
	QPS   float64
	Burst int
	// LeaderElection runs the mirror on one replica at a time, elected
	// through the Lease [LeaseName] in LeaderElectionNamespace ("" means
	// the pod's namespace).
	LeaderElection          bool
	LeaderElectionNamespace string
	// MetricsBindAddress and HealthProbeBindAddress are the addresses of
	// /metrics and of /healthz and /readyz; "0" turns them off.
	MetricsBindAddress     string
	HealthProbeBindAddress string
	// Logger receives the mirror's logs; nil means discard.
	Logger *slog.Logger
}

// NewManager makes the mirror's manager for the cluster cfg reaches: a
// metadata-only cache of the mirrored kinds and of Namespaces (declared,
// so a standby replica keeps it warm), the field manager of the copies,
// leader election and the endpoints. It sets cfg's rate limit. An error is
// one of configuration (a Lease namespace unknown); an address in use is
// an error of the manager's Start.
func NewManager(cfg *kube.Config, o Options) (*manager.Manager, error) {
	cfg.QPS, cfg.Burst = o.QPS, o.Burst
	kinds := []cache.ByObject{{Object: namespaceMeta()}}
	for _, k := range mirroredKinds() {
		kinds = append(kinds, cache.ByObject{Object: k.meta()})
	}
	opts := manager.Options{
		Logger:                 o.Logger,
		Cache:                  cache.Options{ByObject: kinds},
		FieldManager:           FieldManager,
		MetricsBindAddress:     o.MetricsBindAddress,
		HealthProbeBindAddress: o.HealthProbeBindAddress,
	}
	if o.LeaderElection {
		opts.LeaderElection = manager.LeaderElectionOptions{LeaseName: LeaseName, Namespace: o.LeaderElectionNamespace, ReleaseOnCancel: true}
	}
	return manager.New(cfg, opts)
}

// Run registers the mirror's controllers with mgr, made by [NewManager]
// with the same options, and runs it until ctx is done or something fails
// (leadership lost included). It returns nil once stopped by ctx, even
// while setting up.
func Run(ctx context.Context, mgr *manager.Manager, o Options) error {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	err := Setup(ctx, SetupOptions{
		Manager:   mgr,
		Cache:     mgr.Cache(),
		Client:    mgr.APIClient(),
		Events:    mgr.GetEventRecorderFor(LeaseName),
		Namespace: o.Namespace,
		Workers:   o.Workers,
		Logger:    log,
	})
	switch {
	case err != nil && ctx.Err() != nil:
		return nil // stopped while starting
	case err != nil:
		return err
	}
	log.Info("starting the mirror", "namespace", o.Namespace, "leaderElection", o.LeaderElection)
	if err := mgr.Start(ctx); err != nil {
		return err
	}
	log.Info("mirror stopped")
	return nil
}
