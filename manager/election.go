// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
)

// This file is the manager's side of leader election: the option that
// turns it on and the elector it makes (package leader). The manager's
// own paths reach the elector only through its election field (see
// "Binary size" in the package doc).

// LeaderElection is what Options.LeaderElection holds: a
// [LeaderElectionOptions], or nil for none.
type LeaderElection interface {
	newElection(m *Manager, config *kube.Config, nsFile string) (election, error)
}

// election is what the manager's own paths call of its elector:
// Manager.election holds one when Options.LeaderElection is set, nil
// otherwise.
type election interface {
	// Run campaigns, leads (calling the manager's lead and
	// stoppedLeading) and returns once ctx is done and it has stopped.
	Run(ctx context.Context) error
	// IsLeader reports whether this replica holds the Lease now.
	IsLeader() bool
	// Check is the liveness check of [CheckLeaderElection].
	Check(maxTolerableRenewDelay time.Duration) error
	// lease returns the Lease's namespace and name.
	lease() (namespace, name string)
}

// LeaderElectionOptions configure leader election: a
// coordination.k8s.io/v1 Lease that the replicas contend for (see package
// leader). Set Options.LeaderElection to one to turn it on.
type LeaderElectionOptions struct {
	// LeaseName is the name of the Lease (controller-runtime's
	// LeaderElectionID). Required.
	LeaseName string
	// Namespace is the namespace of the Lease. Empty means the namespace
	// of the pod (read from
	// /var/run/secrets/kubernetes.io/serviceaccount/namespace); outside a
	// pod it must be set.
	Namespace string
	// Identity is this replica's name in the Lease; empty means the
	// hostname and a random UUID ([leader.DefaultIdentity]).
	Identity string
	// LeaseDuration, RenewDeadline and RetryPeriod are the elector's
	// timings; zero means 15s, 10s and 2s. See [leader.Options].
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// ReleaseOnCancel gives the Lease up when the manager stops, once the
	// runnables that need leader election have stopped, so a successor
	// takes over at its next poll instead of after LeaseDuration.
	ReleaseOnCancel bool
	// Config, when set, reaches the API server that holds the Lease,
	// instead of the manager's config.
	Config *kube.Config
}

// withDefaults fills the namespace and checks the lease name; the
// elector checks the rest.
func (le LeaderElectionOptions) withDefaults(nsFile string) (LeaderElectionOptions, error) {
	var errs []error
	if le.LeaseName == "" {
		errs = append(errs, errors.New(`LeaderElection.LeaseName "" must name the Lease`))
	}
	if le.Namespace == "" {
		ns, err := podNamespace(nsFile, "LeaderElection.Namespace")
		errs = append(errs, err)
		le.Namespace = ns
	}
	return le, errors.Join(errs...)
}

// newElection fills the defaults of le, checks them, and makes the
// elector, with a client of its own (so that the Lease's renewals never
// wait behind the manager's client-side rate limit).
func (le LeaderElectionOptions) newElection(m *Manager, config *kube.Config, nsFile string) (election, error) {
	le, err := le.withDefaults(nsFile)
	if err != nil {
		return nil, err
	}
	if le.Config != nil {
		config = le.Config
	}
	c, err := m.newClient(config)
	if err != nil {
		return nil, err
	}
	e, err := leader.New(leader.Options{
		Client: c, Namespace: le.Namespace, LeaseName: le.LeaseName, Identity: le.Identity,
		LeaseDuration: le.LeaseDuration, RenewDeadline: le.RenewDeadline, RetryPeriod: le.RetryPeriod,
		ReleaseOnCancel:  le.ReleaseOnCancel,
		Logger:           m.log,
		OnStartedLeading: m.lead,
		OnStoppedLeading: m.stoppedLeading,
	})
	if err != nil {
		return nil, err
	}
	return elector{e, le.Namespace, le.LeaseName}, nil
}

// elector is a *leader.Elector with its Lease's name.
type elector struct {
	*leader.Elector
	namespace, name string
}

func (e elector) lease() (namespace, name string) { return e.namespace, e.name }
