// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
)

// parseKind reads a --kind value: "group/version/Kind", or "version/Kind"
// for the core group ("v1/ConfigMap", "apps/v1/Deployment").
func parseKind(s string) (kube.GroupVersionKind, error) {
	parts := strings.Split(s, "/")
	var gvk kube.GroupVersionKind
	switch len(parts) {
	case 2:
		gvk = kube.GroupVersionKind{Version: parts[0], Kind: parts[1]}
	case 3:
		gvk = kube.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}
	default:
		return gvk, fmt.Errorf("want group/version/Kind, or version/Kind for the core group (apps/v1/Deployment, v1/ConfigMap)")
	}
	if gvk.Version == "" || gvk.Kind == "" || parts[0] == "" {
		return gvk, fmt.Errorf("want group/version/Kind with none of them empty")
	}
	return gvk, nil
}

// setupOptions are what the TTL controllers are made of.
type setupOptions struct {
	Manager controller.Manager
	Cache   *cache.Cache
	Client  *kube.Client
	Events  recorder
	Kinds   []kube.GroupVersionKind
	Workers int
	// Sharded builds the controllers sharded (the manager is a member of
	// a ring).
	Sharded bool
	Logger  *slog.Logger
}

// setupTTL registers one controller per kind with the manager. Each
// watches its kind, metadata only, and is queued only by objects that
// carry the TTL annotation. It asks discovery whether the kinds exist: an
// unknown kind fails here with a *kube.NoKindMatchError.
func setupTTL(ctx context.Context, cfg setupOptions) error {
	for _, gvk := range cfg.Kinds {
		if _, err := cfg.Manager.Mapping(ctx, gvk); err != nil {
			return fmt.Errorf("set up the ttl of %s: %w", gvk, err)
		}
		r := &reconciler{gvk: gvk, cache: cfg.Cache, client: cfg.Client, events: cfg.Events}
		b := controller.NewBuilder(cfg.Manager).
			Named(controllerName(gvk)).
			For(r.meta(), controller.ObjectFilter(hasTTL)).
			WithOptions(controller.Options{MaxConcurrentReconciles: cfg.Workers, Logger: cfg.Logger})
		if cfg.Sharded {
			b = b.Sharded()
		}
		err := b.Complete(r)
		if err != nil {
			return fmt.Errorf("set up the ttl of %s: %w", gvk, err)
		}
	}
	return nil
}

// controllerName is "ttl-deployment.apps", or "ttl-configmap" in the core
// group: a kind's controller name, unique for a group and kind.
func controllerName(gvk kube.GroupVersionKind) string {
	name := "ttl-" + strings.ToLower(gvk.Kind)
	if gvk.Group != "" {
		name += "." + gvk.Group
	}
	return name
}
