// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"github.com/kubeloop/kubeloop/internal/errs"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"

	"github.com/kubeloop/kubeloop/internal/typednil"
)

// Client is the client a controller uses, as controller-runtime's
// manager client: Get and List read from the cache (so they cost no
// request), except for the kinds of Options.DisableFor, which they read
// from the API server; writes go to the API server. It is safe for
// concurrent use.
//
// Reads see this manager's own writes: a Get or List answers with a state
// that includes every write made through this Client (or APIClient) that
// the server had answered before the read began, waiting (at most
// Options.Cache.MaxFreshWait, 5s by default) for the cache to catch up; see
// "Reading your own writes" in package cache for what it promises and
// what not (other clients' and other processes' writes arrive when the
// watch brings them).
//
// Reads of a sharded kind (the For kind of a controller built with
// controller.Builder.Sharded) see only the objects of the ranges this
// replica holds: a Get of an object whose range another replica holds
// answers NotFound, and a List answers this replica's share; read such
// objects through the manager's APIClient ([cache.Cluster.APIClient]).
//
// Objects read are the caller's: the cache hands out deep copies.
type Client struct {
	cache    *cache.Cache
	api      *kube.Client
	uncached map[kube.GroupVersionKind]bool
}

// NewClient returns a [Client] that reads from c (except the kinds of
// disableFor, read through api) and writes through api: the client of
// another cluster's cache, such as a fleet's (package manager/fleet).
// For its reads to see its writes, api's kube.ClientOptions.OnWrite must
// hand them to c.RecordWrite.
func NewClient(c *cache.Cache, api *kube.Client, disableFor []kube.Object) *Client {
	return newClient(c, api, disableFor)
}

func newClient(c *cache.Cache, api *kube.Client, disableFor []kube.Object) *Client {
	uncached := map[kube.GroupVersionKind]bool{}
	for _, obj := range disableFor {
		uncached[obj.GroupVersionKind()] = true
	}
	return &Client{cache: c, api: api, uncached: uncached}
}

// Get reads the object at key into obj, whose kind picks the informer (see
// [cache.Cache.Get]; a kind read for the first time gets an informer, and
// Get waits for it to sync within ctx). An object not found gives an error
// [kube.IsNotFound] reports.
func (c *Client) Get(ctx context.Context, key kube.Key, obj kube.Object) error {
	if err := c.ready(obj); err != nil {
		return errs.Errorf("get %s: %w", key, err)
	}
	if c.uncached[obj.GroupVersionKind()] {
		return c.api.Get(ctx, key, obj)
	}
	return c.cache.Get(ctx, key, obj)
}

// List reads the objects opts select into list (see [cache.Cache.List]
// for the options the cache answers). opts are applied in order as
// [kube.NewListOptions] does: kube.InNamespace(ns),
// kube.MatchingFields{index: value}, or a plain [kube.ListOptions].
func (c *Client) List(ctx context.Context, list kube.ObjectList, opts ...kube.ListOption) error {
	if err := c.ready(list); err != nil {
		return errs.Errorf("list: %w", err)
	}
	o := kube.NewListOptions(opts...)
	if c.uncached[list.ItemGroupVersionKind()] {
		return c.api.List(ctx, list, o)
	}
	return c.cache.List(ctx, list, o)
}

// Create creates obj on the server and reads back what it stored.
func (c *Client) Create(ctx context.Context, obj kube.Object, opts ...kube.WriteOption) error {
	return c.kube().Create(ctx, obj, opts...)
}

// Update replaces the fields obj's type declares on the server and keeps
// the rest, reading the stored object first (see [kube.Client.Update]);
// a stale resourceVersion fails with an error [kube.IsConflict] reports.
func (c *Client) Update(ctx context.Context, obj kube.Object, opts ...kube.WriteOption) error {
	return c.kube().Update(ctx, obj, opts...)
}

// Patch patches the object obj names and reads the result into obj.
func (c *Client) Patch(ctx context.Context, obj kube.Object, patch kube.Patch, opts ...kube.WriteOption) error {
	return c.kube().Patch(ctx, obj, patch, opts...)
}

// Apply sends obj as a server-side apply configuration (see
// [kube.Client.Apply]); the field manager defaults to
// Options.FieldManager.
func (c *Client) Apply(ctx context.Context, obj kube.Object, opts ...kube.WriteOption) error {
	return c.kube().Apply(ctx, obj, opts...)
}

// Delete deletes the object obj names (see [kube.Client.Delete]).
func (c *Client) Delete(ctx context.Context, obj kube.Object, opts ...kube.DeleteOption) error {
	return c.kube().Delete(ctx, obj, opts...)
}

// DeleteAllOf deletes every object of kind gvk that opts select (see
// [kube.Client.DeleteAllOf]).
func (c *Client) DeleteAllOf(ctx context.Context, gvk kube.GroupVersionKind, opts ...kube.DeleteAllOfOption) error {
	return c.kube().DeleteAllOf(ctx, gvk, opts...)
}

// Status returns the writer of the status subresource, which writes to
// the API server: c.Status().Update(ctx, obj), c.Status().Patch(ctx,
// obj, patch). It is the same type as [kube.Client.Status] gives, so one
// interface (controller.Client) covers both clients.
func (c *Client) Status() kube.StatusWriter { return c.kube().Status() }

// SubResource returns the client of the subresource name of objects
// (scale, eviction, …), which reads and writes the API server (see
// [kube.Client.SubResource]).
func (c *Client) SubResource(name string) kube.SubResourceClient {
	return c.kube().SubResource(name)
}

// kube is the API client, nil for a Client that NewClient did not make
// (whose calls then fail with kube's error for that).
func (c *Client) kube() *kube.Client {
	if c == nil {
		return nil
	}
	return c.api
}

// ready returns an error when c was not made by [NewClient] or obj is
// nil (a nil interface or a typed nil pointer).
func (c *Client) ready(obj any) error {
	switch {
	case c == nil || c.api == nil || c.cache == nil:
		return errors.New("manager.Client: use Manager.Client or NewClient")
	case typednil.Is(obj):
		return errors.New("the object is nil")
	}
	return nil
}
