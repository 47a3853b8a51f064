// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// ManagedBy is the label the copies carry, naming this program.
const ManagedBy = "app.kubernetes.io/managed-by"

// setup is what the program is made of: the host cluster's config, the
// ConfigMap to mirror, and where the clusters come from.
type setup struct {
	source    kube.Key                // the host's ConfigMap mirrored
	secretsNS string                  // kubeconfig Secrets of the host, "" for none
	static    map[string]*kube.Config // clusters named on the command line
	resync    time.Duration           // how often each copy is compared with the source, changed or not
	ring      *fleet.RingOptions      // shares the clusters among the replicas; nil for none
	// configureSecret adjusts the config of each kubeconfig Secret
	// (tests give the in-process transport); nil for none.
	configureSecret func(*kube.Config) (*kube.Config, error)
	log             *slog.Logger
}

// newProgram makes the manager of the host cluster, its fleet, and the
// controller that mirrors s.source into every engaged cluster.
func newProgram(host *kube.Config, s setup, opts manager.Options) (*manager.Manager, *fleet.Fleet, error) {
	opts.Logger = s.log
	// The host's cache holds the source alone.
	opts.Cache.ByObject = append(opts.Cache.ByObject, cache.ByObject{Object: &kube.ConfigMap{}, Namespaces: []string{s.source.Namespace},
		FieldSelector: kube.FieldSelectorFromSet(map[string]string{"metadata.name": s.source.Name})})
	mgr, err := manager.New(host, opts)
	if err != nil {
		return nil, nil, err
	}
	var providers []fleet.Provider
	if len(s.static) > 0 {
		providers = append(providers, fleet.Static(s.static))
	}
	if s.secretsNS != "" {
		providers = append(providers, fleet.Secrets{Client: mgr.APIClient(), Namespace: s.secretsNS, Configure: s.configureSecret, Logger: s.log})
	}
	// Each cluster's cache holds the source's namespace only.
	fo := fleet.Options{Logger: s.log, FieldManager: "kubeloop-fleet", Providers: providers,
		Cache: cache.Options{Namespaces: []string{s.source.Namespace}}}
	if s.ring != nil {
		ring := *s.ring
		if ring.Client, err = kube.NewClient(host, kube.ClientOptions{}); err != nil { // the ring's own client
			return nil, nil, err
		}
		fo.Sharding = ring
	}
	f, err := fleet.New(mgr, fo)
	if err != nil {
		return nil, nil, err
	}
	m := &mirror{host: mgr.Client(), source: s.source, resync: s.resync}
	// In each cluster: the namespace of the copy (there from the start,
	// so every cluster engaged is reconciled once at least) and the copy
	// itself (its change or deletion is undone at once).
	err = controller.NewBuilder(mgr).Named("fleet-mirror").
		For(&kube.Namespace{}, controller.ObjectFilter(func(o kube.Object) bool { return o.GetObjectMeta().Name == s.source.Namespace })).
		Watches(&kube.ConfigMap{}, controller.EnqueueMapped(func(_ context.Context, o kube.Object) []controller.Request {
			if o.GetObjectMeta().Key() != s.source {
				return nil
			}
			return []controller.Request{{Key: kube.Key{Name: s.source.Namespace}}}
		})).
		Clusters(f).
		// The source, in the host: a change of it reaches every
		// cluster's controller at once, each on its own queue.
		WatchesIn(mgr, &kube.ConfigMap{}, func(_ context.Context, _ string, o kube.Object) []controller.Request {
			if o.GetObjectMeta().Key() != s.source {
				return nil
			}
			return []controller.Request{{Key: kube.Key{Name: s.source.Namespace}}}
		}).
		WithOptions(controller.Options{Logger: s.log}).
		Complete(m)
	if err != nil {
		return nil, nil, err
	}
	return mgr, f, nil
}

// mirror copies the host's source ConfigMap into the cluster of each
// request (a request names the namespace of the copy).
type mirror struct {
	host   *manager.Client // the host's cache
	source kube.Key
	resync time.Duration
}

// Reconcile makes the cluster's copy hold the source's data, creating it
// if it is missing. The source is read from the host's cache; a change
// of it queues every cluster's request at once (WatchesIn), and resync
// compares each copy anyway.
func (m *mirror) Reconcile(ctx context.Context, _ controller.Request) (controller.Result, error) {
	cl := fleet.ClusterFrom(ctx)
	var src kube.ConfigMap
	if err := m.host.Get(ctx, m.source, &src); err != nil {
		if kube.IsNotFound(err) {
			controller.LoggerFrom(ctx).Info("source ConfigMap not found: nothing to mirror", "source", m.source.String())
			return controller.Result{RequeueAfter: m.resync}, nil
		}
		return controller.Result{}, fmt.Errorf("read source %s: %w", m.source, err)
	}
	dst := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: m.source.Namespace, Name: m.source.Name}}
	op, err := controller.CreateOrPatch(ctx, cl.Client(), dst, func() error {
		if dst.Labels == nil {
			dst.Labels = map[string]string{}
		}
		dst.Labels[ManagedBy] = "kubeloop-fleet"
		dst.Data = maps.Clone(src.Data)
		return nil
	})
	if err != nil {
		return controller.Result{}, fmt.Errorf("mirror into cluster %s: %w", cl.Name(), err)
	}
	if op != controller.OperationUnchanged {
		controller.LoggerFrom(ctx).Info("mirrored", "source", m.source.String(), "op", string(op))
	}
	return controller.Result{RequeueAfter: m.resync}, nil
}
