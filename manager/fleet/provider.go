// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
)

// Provider finds the clusters of a fleet and engages them, and
// disengages them when they go: from a static list ([Static]), from
// kubeconfig Secrets ([Secrets]), or from an inventory written outside
// this module (cluster-api's Clusters, a ClusterProfile API, a cloud's
// list). A fleet runs its providers while it runs (Options.Providers).
type Provider interface {
	// Run engages and disengages clusters through e until ctx is done,
	// then returns nil; it returns after every goroutine it started has
	// ended. An error returned while ctx is live stops the fleet, and
	// with it the manager: return one only when the provider cannot go
	// on, and log what a retry may mend. The clusters it engaged are
	// disengaged by the fleet when it stops.
	Run(ctx context.Context, e Engager) error
}

// Engager is what a [Provider] drives: a *Fleet.
type Engager interface {
	// Engage engages, or engages again with a new config, the cluster
	// named name (see [Fleet.Engage]).
	Engage(ctx context.Context, name string, cfg *kube.Config) error
	// Disengage disengages it (see [Fleet.Disengage]); the error wraps
	// [ErrNotEngaged] for a name not engaged.
	Disengage(ctx context.Context, name string) error
}

// Static is a [Provider] of a fixed list of clusters, by name: it
// engages them all when the fleet starts and keeps them until it stops.
// Load kubeconfig files with kube.LoadConfig(kube.LoadOptions{Path: p}).
type Static map[string]*kube.Config

// Run implements [Provider]: it engages the clusters in the order of
// their names; a cluster that cannot be engaged (a config no client can
// be made of) is Run's error.
func (s Static) Run(ctx context.Context, e Engager) error {
	for _, name := range slices.Sorted(maps.Keys(s)) {
		if err := e.Engage(ctx, name, s[name]); err != nil {
			return fmt.Errorf("static clusters: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}
