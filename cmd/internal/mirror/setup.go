// SPDX-License-Identifier: Apache-2.0

package mirror

import (
	"context"
	"log/slog"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/kube"
)

// SetupOptions are what the mirror's controllers are made of.
type SetupOptions struct {
	Manager controller.Manager
	Cache   *cache.Cache
	Client  *kube.Client
	Events  Recorder
	// Namespace limits sources to one namespace; "" means all. Copies go
	// to any namespace.
	Namespace string
	Workers   int
	Logger    *slog.Logger
}

// Setup registers one controller per mirrored kind with the
// manager, and the cache index the reconcilers read copies through. Each
// controller watches, metadata only:
//
//   - its kind, and queues the sources (objects with a mirror-to
//     annotation, or the mirror's finalizer) and, for each copy, its
//     source;
//   - Namespaces, and queues the sources whose annotations name or select
//     a namespace that appears or changes its labels. The namespaces of
//     the initial list and of resyncs are not mapped: every source is
//     reconciled then anyway, from its own events.
//
// It asks discovery where the kinds live (for the index), so it needs the
// API server.
func Setup(ctx context.Context, cfg SetupOptions) error {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	for _, k := range mirroredKinds() {
		err := cfg.Cache.IndexField(ctx, k.meta(), indexCopyOf, func(obj kube.Object) []string {
			if key, ok := sourceOf(obj.GetObjectMeta(), k.name()); ok {
				return []string{key.String()}
			}
			return nil
		})
		if err != nil {
			return errs.Errorf("set up the %s mirror: %w", k.lower(), err)
		}
		r := &reconciler{kind: k, cache: cfg.Cache, client: cfg.Client, events: cfg.Events,
			namespace: cfg.Namespace, log: cfg.Logger}
		err = controller.NewBuilder(cfg.Manager).
			Named("mirror-"+k.lower()).
			Watches(k.meta(), controller.EnqueueMapped(r.requestsFor)).
			Watches(namespaceMeta(), controller.EnqueueMapped(r.requestsForNamespace),
				controller.PredicateFunc(isChange), controller.LabelsChanged()).
			WithOptions(controller.Options{MaxConcurrentReconciles: cfg.Workers, Logger: cfg.Logger}).
			Complete(r)
		if err != nil {
			return errs.Errorf("set up the %s mirror: %w", k.lower(), err)
		}
	}
	return nil
}

// isChange reports whether ev is a change, not an object of the initial
// list or a resync (which are queued at low priority).
func isChange(ev controller.Change) bool { return ev.Priority() != controller.LowPriority }

// requestsFor maps an object of the mirror's kind to the source to
// reconcile: a copy to its source, a source to itself (a source being
// deleted, or whose annotation was removed, still has the finalizer).
// Objects that are neither map to nothing: most Secrets and ConfigMaps.
func (r *reconciler) requestsFor(_ context.Context, obj kube.Object) []controller.Request {
	m := obj.GetObjectMeta()
	var key kube.Key
	switch of, ok := sourceOf(m, r.kind.name()); {
	case ok:
		key = of
	case isSource(m) || m.HasFinalizer(Finalizer):
		key = m.Key()
	default:
		return nil
	}
	if r.namespace != "" && key.Namespace != r.namespace {
		return nil
	}
	return []controller.Request{{Key: key}}
}

// requestsForNamespace maps a Namespace to the sources that want it (for
// an update, the handler maps the old labels too, so a namespace that stops
// matching queues the sources that lose it). The cost is one pass over the
// cached objects of the kind per namespace event.
func (r *reconciler) requestsForNamespace(ctx context.Context, obj kube.Object) []controller.Request {
	ns := obj.GetObjectMeta()
	objects, err := r.sources(ctx)
	if err != nil {
		r.log.Error("map namespace to sources", "namespace", ns.Name, "err", err)
		return nil
	}
	var reqs []controller.Request
	for _, o := range objects {
		spec, err := parseTargets(o.Annotations)
		if err == nil && o.Namespace != ns.Name && spec.wants(ns) {
			reqs = append(reqs, controller.Request{Key: o.Key()})
		}
	}
	return reqs
}

// sources returns the cached sources of the reconciler's kind, without
// copying them: they must not be modified.
func (r *reconciler) sources(ctx context.Context) ([]*kube.PartialObjectMetadata, error) {
	view, err := cache.View(ctx, r.cache, r.kind.meta())
	if err != nil {
		return nil, err
	}
	all, err := view.List(kube.ListOptions{Namespace: r.namespace})
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, o := range all {
		if isSource(&o.ObjectMeta) {
			out = append(out, o)
		}
	}
	return out, nil
}
