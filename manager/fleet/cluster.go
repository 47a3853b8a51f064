// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"fmt"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// Cluster is one cluster of a fleet: a client of its API server, the
// cache its controllers read through (its informers), and its mapper
// (discovery, in the client), which are its embedded cache.Cluster's
// (APIClient, Cache, GetInformer, Mapping, WritesSeen, WaitForWrites).
// A Cluster is made by [Fleet.Engage] and lives until it is disengaged:
// its cache runs while it is engaged and the fleet runs, and stops,
// dropping every object it held, when it is disengaged. Its methods are
// safe for concurrent use.
type Cluster struct {
	*cluster
	name   string
	client *manager.Client
}

// cluster is the type of a Cluster's embedded client and cache.
type cluster = cache.Cluster

// newCluster makes the cluster name of cfg, with the fleet's options. It
// does no I/O but read the certificate files cfg names (as
// kube.NewClient does) and starts nothing.
func newCluster(name string, cfg *kube.Config, opts Options) (*Cluster, error) {
	co := opts.Cache
	co.Logger = opts.Logger
	// Its writes are remembered by its cache, so that reads after them
	// wait until the cache holds them.
	cl, err := cache.NewCluster(cfg, kube.ClientOptions{FieldManager: opts.FieldManager, Logger: opts.Logger}, co)
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	return &Cluster{cluster: cl, name: name, client: manager.NewClient(cl.Cache(), cl.APIClient(), opts.DisableFor)}, nil
}

// Name returns the name the cluster was engaged under.
func (c *Cluster) Name() string {
	if !c.made() {
		return ""
	}
	return c.name
}

// Client returns the client a reconciler uses for this cluster: reads
// from the cluster's cache (except the kinds of Options.DisableFor),
// writes to its API server; reads see its own writes (see
// manager.Client).
func (c *Cluster) Client() *manager.Client {
	if !c.made() {
		return nil
	}
	return c.client
}
