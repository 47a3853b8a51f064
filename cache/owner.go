// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"github.com/kubeloop/kubeloop/internal/errs"

	"github.com/kubeloop/kubeloop/kube"
)

// IndexOwner indexes the objects of obj's kind (and Go type) by the name
// of their controller of owner's kind: the owner reference with
// controller set whose group and kind are owner's (any version). It is
// the index every operator writes by hand (controller-runtime's CronJob
// tutorial indexes Jobs so), and [OwnedBy] is the List option that reads
// it:
//
//	if err := mgr.Cache().IndexOwner(ctx, &kube.ConfigMap{}, &Widget{}); err != nil { ... }
//	...
//	err := client.List(ctx, &cms, cache.OwnedBy(&w))
//
// Of owner only its kind is read. Registering the same pair twice is an
// error, as [Cache.IndexField] says. The cost is that of IndexField: one
// pass over the owner references of each cached object, and a lookup by
// name.
func (c *Cache) IndexOwner(ctx context.Context, obj, owner kube.Object) error {
	if !c.made() {
		return errNoCache
	}
	gvk := owner.GroupVersionKind()
	if gvk.Kind == "" {
		return errs.Errorf("index %s by owner: owner %T names no kind", obj.GroupVersionKind().Kind, owner)
	}
	return c.IndexField(ctx, obj, ownerField(gvk), func(o kube.Object) []string {
		for _, ref := range o.GetObjectMeta().OwnerReferences {
			if !ref.IsController() || ref.Kind != gvk.Kind {
				continue
			}
			if g, _ := kube.ParseAPIVersion(ref.APIVersion); g == gvk.Group {
				return []string{ref.Name}
			}
		}
		return nil
	})
}

// OwnedBy is the List option of the index [Cache.IndexOwner] makes: the
// objects whose controller is owner (by group, kind and name), in
// owner's namespace (in every namespace for a cluster-scoped owner). It
// is a kube.ListOptions, so it serves [Cache.List] and, as a
// kube.ListOption, a client's List beside other options. A
// list of a kind without that index fails with an error that names the
// index; the API server knows no such field, so list through the cache.
func OwnedBy(owner kube.Object) kube.ListOptions {
	m := owner.GetObjectMeta()
	return kube.ListOptions{
		Namespace:     m.Namespace,
		FieldSelector: kube.FieldSelector{}.Add(kube.FieldRequirement{Field: ownerField(owner.GroupVersionKind()), Operator: kube.OpEquals, Value: m.Name}),
	}
}

// ownerField names the index of dependents by their controller of kind
// gvk: "metadata.controller:KIND.GROUP" ("metadata.controller:Deployment.apps").
func ownerField(gvk kube.GroupVersionKind) string {
	if gvk.Group == "" {
		return "metadata.controller:" + gvk.Kind
	}
	return "metadata.controller:" + gvk.Kind + "." + gvk.Group
}
