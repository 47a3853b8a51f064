// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"

	"github.com/kubeloop/kubeloop/kube"
)

// Client reads and writes objects: the one client interface of this
// module's helpers ([CreateOrUpdate], [CreateOrPatch], [EnsureFinalizer],
// [RemoveFinalizer]) and of a reconciler's code. Two clients satisfy it:
//
//   - the manager's (manager.Manager.Client): Get and List from the
//     cache, writes to the API server. What a reconciler normally uses.
//   - *kube.Client: every call a request to the API server.
//
// Status writes are spelled as controller-runtime spells them, and the
// same on both: c.Status().Update(ctx, obj) and c.Status().Patch(ctx,
// obj, patch) ([kube.StatusWriter]); other subresources' as
// c.SubResource("scale").Get(ctx, obj, &scale) ([kube.SubResourceClient]).
// List takes options as controller-runtime's does, and a plain
// [kube.ListOptions] is one:
//
//	c.List(ctx, &list, kube.InNamespace(ns), kube.MatchingFields{"spec.owner": name})
//	c.List(ctx, &list, kube.ListOptions{Namespace: ns})
//	c.List(ctx, &children, cache.OwnedBy(&parent))
//
// The last lists the objects parent controls, from the manager's cache
// with the owner index mgr.Cache().IndexOwner(ctx, &Child{}, &Parent{})
// made first ([cache.OwnedBy], [cache.Cache.IndexOwner]); the API server
// knows no such field.
//
// Writes and deletes take options for the one call, as
// controller-runtime's do ([kube.WriteOption], [kube.DeleteOption],
// [kube.DeleteAllOfOption]); none is the defaults:
//
//	c.Create(ctx, obj, kube.DryRunAll, kube.FieldOwner("installer"))
//	c.Apply(ctx, obj, kube.FieldOwner("me"), kube.ForceOwnership)
//	c.Delete(ctx, obj, kube.PropagationForeground)
type Client interface {
	Get(ctx context.Context, key kube.Key, obj kube.Object) error
	List(ctx context.Context, list kube.ObjectList, opts ...kube.ListOption) error
	Create(ctx context.Context, obj kube.Object, opts ...kube.WriteOption) error
	Update(ctx context.Context, obj kube.Object, opts ...kube.WriteOption) error
	Patch(ctx context.Context, obj kube.Object, patch kube.Patch, opts ...kube.WriteOption) error
	Apply(ctx context.Context, obj kube.Object, opts ...kube.WriteOption) error
	Delete(ctx context.Context, obj kube.Object, opts ...kube.DeleteOption) error
	DeleteAllOf(ctx context.Context, gvk kube.GroupVersionKind, opts ...kube.DeleteAllOfOption) error
	Status() kube.StatusWriter
	SubResource(name string) kube.SubResourceClient
}
