// SPDX-License-Identifier: Apache-2.0

package fleet

import (
	"context"
	"fmt"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// Cluster is one cluster of a fleet: a client of its API server, the
// cache its controllers read through (its informers), and its mapper
// (discovery, in the client). A Cluster is made by [Fleet.Engage] and
// lives until it is disengaged: its cache runs while it is engaged and
// the fleet runs, and stops, dropping every object it held, when it is
// disengaged. Its methods are safe for concurrent use.
type Cluster struct {
	name   string
	api    *kube.Client
	cache  *cache.Cache
	client *manager.Client
}

// newCluster makes the cluster name of cfg, with the fleet's options. It
// does no I/O but read the certificate files cfg names (as
// kube.NewClient does) and starts nothing.
func newCluster(name string, cfg *kube.Config, opts Options) (*Cluster, error) {
	c := &Cluster{name: name}
	var err error
	c.api, err = kube.NewClient(cfg, kube.ClientOptions{
		FieldManager: opts.FieldManager, Logger: opts.Logger,
		// Its writes are remembered by its cache, so that reads after
		// them wait until the cache holds them.
		OnWrite: func(w kube.Written) { c.cache.RecordWrite(w) },
	})
	if err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	co := opts.Cache
	co.Logger = opts.Logger
	if c.cache, err = cache.New(c.api, co); err != nil {
		return nil, fmt.Errorf("cluster %q: %w", name, err)
	}
	c.client = manager.NewClient(c.cache, c.api, opts.DisableFor)
	return c, nil
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

// APIClient returns the client that talks to the cluster's API server
// directly.
func (c *Cluster) APIClient() *kube.Client {
	if !c.made() {
		return nil
	}
	return c.api
}

// Cache returns the cluster's cache: for informers, indexes and
// zero-copy reads.
func (c *Cluster) Cache() *cache.Cache {
	if !c.made() {
		return nil
	}
	return c.cache
}

// GetInformer returns the cluster's informer of obj's kind and Go type,
// making it on first use: what the controllers built with
// controller.Builder.Clusters watch.
func (c *Cluster) GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error) {
	if !c.made() {
		return nil, errNoCluster
	}
	return c.cache.GetInformer(ctx, obj)
}

// Mapping says where a kind lives in this cluster, from its discovery.
func (c *Cluster) Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error) {
	if !c.made() {
		return kube.Mapping{}, errNoCluster
	}
	return c.api.Mapping(ctx, gvk)
}

// WritesSeen reports whether the cluster's cache holds the writes of its
// client to the object of kind gvk at key and to the objects it owns
// (see cache.Cache.WritesSeen): with WaitForWrites, what gives the
// controllers built with controller.Builder.Clusters stale-safe
// reconciles.
func (c *Cluster) WritesSeen(gvk kube.GroupVersionKind, key kube.Key) bool {
	if !c.made() {
		return true // it made no writes
	}
	return c.cache.WritesSeen(gvk, key)
}

// WaitForWrites waits, bounded, until [Cluster.WritesSeen] holds; see
// cache.Cache.WaitForWrites.
func (c *Cluster) WaitForWrites(ctx context.Context, gvk kube.GroupVersionKind, key kube.Key) bool {
	if !c.made() {
		return true // it made no writes
	}
	return c.cache.WaitForWrites(ctx, gvk, key)
}
