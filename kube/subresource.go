// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/internal/typednil"
)

// SubResource returns the client of the subresource name (…/NAME) of
// objects: "scale" (a [Scale]), "eviction" of a Pod (an [Eviction]),
// "status", or any other the server serves. It costs nothing (no
// allocation), and a program that never calls it links none of it.
//
//	var sc kube.Scale
//	err := c.SubResource("scale").Get(ctx, deploy, &sc)
//	sc.Spec.Replicas = 3
//	err = c.SubResource("scale").Update(ctx, deploy, &sc)
//	err = c.SubResource("eviction").Create(ctx, pod, &kube.Eviction{})
//
// [Client.Status] is the same for "status", spelled as
// controller-runtime spells it.
func (c *Client) SubResource(name string) SubResourceClient {
	return SubResourceClient{c: c, name: name}
}

// SubResourceClient reads and writes one subresource of objects (get one
// from [Client.SubResource]). Each method addresses the subresource of
// obj (by its kind, namespace and name) and sends and reads sub, the
// subresource's own kind ([Scale], [Eviction], …); a nil sub stands for
// obj itself, as for "status", whose body is the object. Create, Update
// and Apply give a sub without a name obj's name and namespace. Writes
// take the options of any write ([WriteOptions]) and are reported to
// [ClientOptions.OnWrite] when the answer names the object (a Scale
// does, with the object's resourceVersion; an eviction's Status does
// not). A subresource the kind does not have answers NotFound; a verb it
// does not serve, MethodNotAllowed.
type SubResourceClient struct {
	c    *Client
	name string
}

// Get reads obj's subresource into sub (into obj when sub is nil).
func (s SubResourceClient) Get(ctx context.Context, obj, sub Object) error {
	if err := s.c.check(obj); err != nil {
		return err
	}
	out := or(sub, obj)
	gvk, ogvk, meta := obj.GroupVersionKind(), out.GroupVersionKind(), obj.GetObjectMeta()
	r, err := s.c.objectRequest(ctx, http.MethodGet, gvk, meta.Key(), s.name)
	if err == nil {
		r.accept = acceptFor(out)
		err = s.c.call(ctx, r, out)
	}
	if err != nil {
		return fmt.Errorf("get %s of %s %s: %w", s.name, gvk.Kind, meta.Key(), err)
	}
	stampKind(out, ogvk)
	return nil
}

// Create posts sub to obj's subresource (an eviction) and reads the
// answer into sub. The server may answer with another kind (an eviction
// answers a Success Status). A 429 that says when to come back (the
// eviction of a Pod a PodDisruptionBudget protects) is retried as every
// write's is (see [Client]); bound it with ctx.
func (s SubResourceClient) Create(ctx context.Context, obj, sub Object, opts ...WriteOption) error {
	return s.c.write(ctx, "create "+s.name+" of", http.MethodPost, obj, s.name, named(sub, obj), nil, WriteOptions{}, opts, nil)
}

// Update replaces obj's subresource with sub and reads back what the
// server answered into sub. A stale resourceVersion in sub fails with a
// Conflict; an empty one writes over whatever version is stored. As
// [Client.Update] does, it keeps what sub's type does not declare,
// reading the subresource first unless sub's type holds everything (a
// [Scale] does).
func (s SubResourceClient) Update(ctx context.Context, obj, sub Object, opts ...WriteOption) error {
	return s.c.write(ctx, "update "+s.name+" of", http.MethodPut, obj, s.name, named(sub, obj), nil, WriteOptions{}, opts, putKeeping)
}

// Patch patches obj's subresource and reads the result into sub. A patch
// made by [MergeFrom] from a copy of sub sends what sub changed.
func (s SubResourceClient) Patch(ctx context.Context, obj, sub Object, patch Patch, opts ...WriteOption) error {
	return s.c.write(ctx, "patch "+s.name+" of", http.MethodPatch, obj, s.name, or(sub, obj), &patch, WriteOptions{}, opts, nil)
}

// Apply sends sub as a server-side apply configuration of obj's
// subresource (see [Client.Apply]) and reads the result into sub.
func (s SubResourceClient) Apply(ctx context.Context, obj, sub Object, opts ...WriteOption) error {
	return s.c.apply(ctx, "apply "+s.name+" of", obj, s.name, named(sub, obj), opts)
}

// named returns or(sub, obj), given obj's name and namespace when it has
// no name: what Create, Update and Apply send.
func named(sub, obj Object) Object {
	if typednil.Is(sub) {
		return obj
	}
	if typednil.Is(obj) {
		return sub
	}
	if m := sub.GetObjectMeta(); m.Name == "" {
		om := obj.GetObjectMeta()
		m.Name, m.Namespace = om.Name, om.Namespace
	}
	return sub
}

// or returns sub, or obj when sub is nil.
func or(sub, obj Object) Object {
	if typednil.Is(sub) {
		return obj
	}
	return sub
}
