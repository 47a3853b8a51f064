// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// testOwnerIndex lists, through a cache with Cache.IndexOwner, the
// ConfigMaps a Deployment controls (cache.OwnedBy): those whose
// controller reference names its group, kind and name, in any version;
// not a mere owner, not another kind of the same name; and the index
// follows an orphaning and a new dependent as the watch brings them.
// The Deployment exists, so that the garbage collector keeps its
// dependents; references to versions no server serves (apps/v1beta2) are
// left alone by it.
func testOwnerIndex(t *testing.T, f *fixture) {
	web := f.deployment("web")
	f.mustCreate(t, web)
	deploy := &kube.PartialObjectMetadata{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: "web"}}
	deploy.SetGroupVersionKind(kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"})
	yes, no := true, false
	create := func(name, apiVersion, kind string, controller *bool) {
		t.Helper()
		cm := f.configMap(name, nil, nil)
		cm.OwnerReferences = []kube.OwnerReference{{APIVersion: apiVersion, Kind: kind, Name: "web", UID: web.UID, Controller: controller}}
		f.mustCreate(t, cm)
	}
	create("mine", "apps/v1", "Deployment", &yes)
	create("mine-v1beta2", "apps/v1beta2", "Deployment", &yes)
	create("owned", "apps/v1", "Deployment", &no)
	create("other-kind", "apps/v1beta2", "ReplicaSet", &yes)

	c, err := cache.New(f.c, cache.Options{Namespaces: []string{f.ns}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.IndexOwner(f.ctx, &kube.ConfigMap{}, deploy); err != nil {
		t.Fatal(err)
	}
	defer f.run(t, "cache", c.Start)()
	if err := c.WaitForSync(f.ctx); err != nil {
		t.Fatal(err)
	}
	owned := func() []string {
		var cms kube.List[kube.ConfigMap]
		if err := c.List(f.ctx, &cms, cache.OwnedBy(deploy)); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, cm := range cms.Items {
			out = append(out, cm.Name)
		}
		slices.Sort(out)
		return out
	}
	if got, want := owned(), []string{"mine", "mine-v1beta2"}; !slices.Equal(got, want) {
		t.Errorf("List(OwnedBy(Deployment web)) = %v, want %v", got, want)
	}
	create("later", "apps/v1", "Deployment", &yes)
	var mine kube.ConfigMap
	if err := f.c.Get(f.ctx, kube.Key{Namespace: f.ns, Name: "mine"}, &mine); err != nil {
		t.Fatal(err)
	}
	mine.OwnerReferences = nil
	if err := f.c.Update(f.ctx, &mine); err != nil {
		t.Fatal(err)
	}
	f.eventually(t, "the index after a create and an orphaning", func() error {
		if got, want := owned(), []string{"later", "mine-v1beta2"}; !slices.Equal(got, want) {
			return fmt.Errorf("List(OwnedBy(Deployment web)) = %v, want %v", got, want)
		}
		return nil
	})
}
