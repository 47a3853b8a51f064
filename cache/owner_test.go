// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// IndexOwner and OwnedBy list the dependents whose controller is the
// owner, by group, kind, name and namespace: not a mere owner, not an
// owner of another kind or group of the same name, not one in another
// namespace; and the index follows the objects as they change.
func TestIndexOwner(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The owners are not created: without the garbage collector
		// their dependents stay.
		_, client := newServer(t, kubetest.Options{DisableGarbageCollection: true})
		ctx := context.Background()
		yes, no := true, false
		ref := func(apiVersion, kind, name string, controller bool) kube.OwnerReference {
			c := &no
			if controller {
				c = &yes
			}
			return kube.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: "u-" + name, Controller: c}
		}
		create := func(ns, name string, refs ...kube.OwnerReference) {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, OwnerReferences: refs}}
			if err := client.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
		create("default", "mine", ref("apps/v1", "Deployment", "web", true))
		create("default", "mine-v1beta1", ref("apps/v1beta1", "Deployment", "web", true))
		create("default", "owned-not-controlled", ref("apps/v1", "Deployment", "web", false))
		create("default", "other-kind", ref("apps/v1", "ReplicaSet", "web", true))
		create("default", "other-group", ref("extensions/v1beta1", "Deployment", "web", true))
		create("default", "other-name", ref("apps/v1", "Deployment", "api", true))
		create("kube-system", "other-namespace", ref("apps/v1", "Deployment", "web", true))

		c, err := New(client, Options{})
		if err != nil {
			t.Fatal(err)
		}
		deploy := &kube.PartialObjectMetadata{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "web"}}
		deploy.SetGroupVersionKind(kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
		if err := c.IndexOwner(ctx, &kube.ConfigMap{}, deploy); err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		list := func() []string {
			t.Helper()
			var cms kube.List[kube.ConfigMap]
			if err := c.List(ctx, &cms, OwnedBy(deploy)); err != nil {
				t.Fatal(err)
			}
			return names(cms.Items, func(cm *kube.ConfigMap) *kube.ObjectMeta { return &cm.ObjectMeta })
		}
		if got, want := list(), []string{"default/mine", "default/mine-v1beta1"}; !slices.Equal(got, want) {
			t.Errorf("List(OwnedBy(Deployment default/web)) = %v, want %v", got, want)
		}
		create("default", "later", ref("apps/v1", "Deployment", "web", true))
		var mine kube.ConfigMap
		if err := client.Get(ctx, kube.Key{Namespace: "default", Name: "mine"}, &mine); err != nil {
			t.Fatal(err)
		}
		mine.OwnerReferences = nil
		if err := client.Update(ctx, &mine); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if got, want := list(), []string{"default/later", "default/mine-v1beta1"}; !slices.Equal(got, want) {
			t.Errorf("after a create and an orphaning, List(OwnedBy) = %v, want %v", got, want)
		}

		// Without the index, the list names what is missing.
		rs := &kube.PartialObjectMetadata{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "web"}}
		rs.SetGroupVersionKind(kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"})
		var cms kube.List[kube.ConfigMap]
		if err := c.List(ctx, &cms, OwnedBy(rs)); err == nil || !strings.Contains(err.Error(), `no index for field "metadata.controller:ReplicaSet.apps"`) {
			t.Errorf("List(OwnedBy(ReplicaSet)) without its index = %v, want the index named", err)
		}
	})
}

// The ConfigMaps a Deployment controls, from the cache's owner index.
func ExampleCache_IndexOwner() {
	// The Deployment itself is not made here: the server's garbage
	// collector, which would delete the dependents of a missing owner, is
	// off.
	srv := kubetest.New(kubetest.Options{DisableGarbageCollection: true})
	defer srv.Close()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	deploy := &kube.PartialObjectMetadata{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "web"}}
	deploy.SetGroupVersionKind(kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	yes := true
	for _, name := range []string{"web-config", "web-env"} {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name,
			OwnerReferences: []kube.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "web", UID: "1", Controller: &yes}}}}
		if err := client.Create(ctx, cm); err != nil {
			panic(err)
		}
	}

	c, err := New(client, Options{})
	if err != nil {
		panic(err)
	}
	if err := c.IndexOwner(ctx, &kube.ConfigMap{}, deploy); err != nil {
		panic(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { _ = c.Start(ctx) })
	if err := c.WaitForSync(ctx); err != nil {
		panic(err)
	}
	var cms kube.List[kube.ConfigMap]
	if err := c.List(ctx, &cms, OwnedBy(deploy)); err != nil {
		panic(err)
	}
	for _, cm := range cms.Items {
		fmt.Println(cm.Name)
	}
	cancel()
	wg.Wait()
	// Unordered output:
	// web-config
	// web-env
}
