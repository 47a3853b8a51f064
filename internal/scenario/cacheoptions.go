// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
)

// testCacheOptions runs a manager whose cache takes its defaults and a
// kind's settings from manager.Options: ConfigMaps read in pages of one
// without WatchList, stored compact, and selected per namespace (the
// web tier in one namespace, by a label; the object named db in the
// other, by a field). The cache holds what each namespace's selectors
// select, at the start and as the watches bring new objects.
func testCacheOptions(t *testing.T, f *fixture) {
	a, b := f.ns, f.ns+"-sel"
	nsb := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: b}}
	f.mustCreate(t, nsb)
	t.Cleanup(func() { _ = f.c.Delete(context.Background(), nsb) })
	create := func(ns, name, tier string) {
		t.Helper()
		f.mustCreate(t, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"tier": tier}}})
	}
	for _, ns := range []string{a, b} {
		create(ns, "web", "web")
		create(ns, "db", "db")
	}
	m, err := manager.New(f.env.Config, manager.Options{
		MetricsBindAddress: "0",
		Cache: cache.Options{PageSize: 1, Compact: true,
			ByObject: []cache.ByObject{{Object: &kube.ConfigMap{}, Namespaces: []string{a, b}, NamespaceSelectors: map[string]cache.Selectors{
				a: {Label: kube.MustParseSelector("tier=web")},
				b: {Field: kube.FieldSelectorFromSet(map[string]string{"metadata.name": "db"})},
			}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer f.run(t, "manager", m.Start)()
	select {
	case <-m.Elected():
	case <-f.ctx.Done():
		t.Fatal("the manager's cache never synced")
	}
	cached := func() []string {
		var list kube.List[kube.ConfigMap]
		if err := m.Client().List(f.ctx, &list); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, cm := range list.Items {
			out = append(out, cm.Namespace+"/"+cm.Name)
		}
		slices.Sort(out)
		return out
	}
	if got, want := cached(), sorted(a+"/web", b+"/db"); !slices.Equal(got, want) {
		t.Errorf("cached at sync = %q, want %q", got, want)
	}
	for _, st := range m.Cache().Stats() {
		if st.Kind.Kind == "ConfigMap" && st.ListRequests < 2 {
			t.Errorf("ConfigMap list requests = %d, want one page a namespace or more (PageSize 1, no WatchList)", st.ListRequests)
		}
	}
	create(a, "web2", "web")
	create(a, "db2", "db")
	create(b, "web2", "web")
	f.eventually(t, "the cache after creates", func() error {
		if got, want := cached(), sorted(a+"/web", a+"/web2", b+"/db"); !slices.Equal(got, want) {
			return fmt.Errorf("cached = %q, want %q", got, want)
		}
		return nil
	})
}

func sorted(s ...string) []string { slices.Sort(s); return s }
