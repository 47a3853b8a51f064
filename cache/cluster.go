// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"

	"github.com/kubeloop/kubeloop/kube"
)

// Cluster is a client of one API server and the cache its controllers
// read through, wired so that the cache remembers the client's writes
// (see "Reading your own writes"): what the manager, each cluster of a
// fleet and the test harnesses are. It lives in package cache, beside
// the Cache it pairs with a client, so that package manager, its fleet
// and the tests that stand in for a manager share it without importing
// each other (cache imports only kube). Its methods are what
// controller.Builder needs of a manager besides the registry of
// controllers, and are safe for concurrent use. A nil or zero Cluster
// has no client and no cache: its methods answer as a nil Cache and a
// nil kube.Client do (errors, nothing seen to wait for), never panic.
type Cluster struct {
	api   *kube.Client
	cache *Cache
}

// NewCluster makes a client of cfg with copts, whose writes are recorded
// by a cache made with opts on that client. copts.OnWrite, when set, is
// called after the cache has recorded a write. Like kube.NewClient and
// New, it does no I/O but read the certificate files cfg names, and
// starts nothing: run the cache with [Cluster.Cache]'s Start.
func NewCluster(cfg *kube.Config, copts kube.ClientOptions, opts Options) (*Cluster, error) {
	var cache *Cache
	onWrite := copts.OnWrite
	copts.OnWrite = func(w kube.Written) {
		cache.RecordWrite(w)
		if onWrite != nil {
			onWrite(w)
		}
	}
	api, err := kube.NewClient(cfg, copts)
	if err != nil {
		return nil, err
	}
	if cache, err = New(api, opts); err != nil {
		return nil, err
	}
	return &Cluster{api: api, cache: cache}, nil
}

// ClusterOf pairs a client and a cache that exist already (a manager's)
// as a Cluster. Unlike NewCluster it wires nothing: reads after writes
// wait for the writes only if the client's ClientOptions.OnWrite already
// records them in the cache, as a manager's does. It starts nothing.
func ClusterOf(api *kube.Client, cache *Cache) *Cluster {
	return &Cluster{api: api, cache: cache}
}

// APIClient returns the client that talks to the API server directly,
// for reads that must not come from the cache.
func (c *Cluster) APIClient() *kube.Client {
	if c == nil {
		return nil
	}
	return c.api
}

// Cache returns the cache: for informers, indexes ([Cache.IndexField])
// and zero-copy reads ([View]).
func (c *Cluster) Cache() *Cache {
	if c == nil {
		return nil
	}
	return c.cache
}

// GetInformer returns the cache's informer of obj's kind and Go type,
// making it on first use ([Cache.GetInformer]): what the controller
// builder watches.
func (c *Cluster) GetInformer(ctx context.Context, obj kube.Object) (ObjectInformer, error) {
	return c.Cache().GetInformer(ctx, obj)
}

// Mapping says where a kind lives, from the client's discovery.
func (c *Cluster) Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error) {
	return c.APIClient().Mapping(ctx, gvk)
}

// WritesSeen reports whether the cache holds the client's writes to the
// object of kind gvk at key and to the objects it owns; see
// [Cache.WritesSeen]. The controller builder's controllers ask it
// before they reconcile.
func (c *Cluster) WritesSeen(gvk kube.GroupVersionKind, key kube.Key) bool {
	return c.Cache().WritesSeen(gvk, key)
}

// WaitForWrites waits, bounded, until [Cluster.WritesSeen] holds for the
// writes made so far; see [Cache.WaitForWrites].
func (c *Cluster) WaitForWrites(ctx context.Context, gvk kube.GroupVersionKind, key kube.Key) bool {
	return c.Cache().WaitForWrites(ctx, gvk, key)
}
