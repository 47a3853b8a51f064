// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// The scenario of this file is issue #35's forged keys: a custom resource
// whose CRD keeps unknown fields carries keys that differ from its
// schema's names only by case or Unicode folding ("replicaſ" with a long
// s, "Replicas", "statuſ"). The server validates replicas, keeps the
// others as unknown fields, and reads the object with replicas and no
// status; kubeloop must read it so too (keys matched exactly, as
// sigs.k8s.io/json does), where encoding/json would fold them onto
// replicas and status.

// gaugeSchema bounds spec.replicas and keeps unknown fields at the top
// and in spec.
const gaugeSchema = `{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"replicas":{"type":"integer","maximum":10}}},
"status":{"type":"object","properties":{"ready":{"type":"integer"}}}}}`

// gauge is the typed object of a gauge CRD; its kind is its TypeMeta's.
type gauge struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            struct {
		Replicas int `json:"replicas"`
	} `json:"spec"`
	Status struct {
		Ready int `json:"ready"`
	} `json:"status,omitzero"`
}

func testForgedKeys(t *testing.T, f *fixture) {
	crd := f.installSchemaCRD(t, "Gauge", "gauges", gaugeSchema)
	forged := fmt.Sprintf(`{"apiVersion":%q,"kind":%q,"metadata":{"name":"g"},
"spec":{"replicas":3,"replicaſ":1000,"Replicas":1000},"statuſ":{"ready":1000},"Status":{"ready":1000}}`, crd.apiVersion, crd.kind)
	if r := f.send(t, "POST", crd.collection, ctJSON, forged); r.code != 201 {
		t.Fatalf("create the forged Gauge = %d %s", r.code, r.body)
	}
	key := kube.Key{Namespace: f.ns, Name: "g"}
	stored := f.getUnstructured(t, crd.gvk, f.ns, "g")
	if v, ok := stored.Field("spec", "replicaſ"); !ok || fmt.Sprint(v) != "1000" {
		t.Fatalf("the server did not keep spec.replicaſ (%v, %v): the scenario proves nothing", v, ok)
	}
	if _, ok := stored.Field("statuſ"); !ok {
		t.Fatalf("the server did not keep statuſ: the scenario proves nothing")
	}

	g := &gauge{}
	g.SetGroupVersionKind(crd.gvk)
	if err := f.c.Get(f.ctx, key, g); err != nil {
		t.Fatal(err)
	}
	checkGauge(t, "Get", g, 3)
	var list kube.List[gauge]
	list.SetGroupVersionKind(kube.GroupVersionKind{Group: crd.gvk.Group, Version: crd.gvk.Version, Kind: crd.kind + "List"})
	if err := f.c.List(f.ctx, &list, kube.InNamespace(f.ns)); err != nil || len(list.Items) != 1 {
		t.Fatalf("List = %d items, %v; want 1", len(list.Items), err)
	}
	checkGauge(t, "List", &list.Items[0], 3)

	w, err := f.c.Watch(f.ctx, crd.gvk, kube.ListOptions{Namespace: f.ns, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	inf, err := cache.NewInformer[gauge](f.c, cache.InformerOptions{Kind: crd.gvk, Namespaces: []string{f.ns}, Compact: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(f.run(t, "informer", inf.Start))
	if err := inf.WaitForSync(f.ctx); err != nil {
		t.Fatal(err)
	}
	cached, _ := inf.Get(key)
	checkGauge(t, "a compact informer's list", cached, 3)

	patch := `{"spec":{"replicas":4,"replicaſ":2000,"REPLICAS":2000},"statuſ":{"ready":2000}}`
	r := f.send(t, "PATCH", crd.collection+"/g", "application/merge-patch+json", patch)
	if r.code != 200 {
		t.Fatalf("patch the forged Gauge = %d %s", r.code, r.body)
	}
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	var watched gauge
	if err := ev.Decode(&watched); err != nil {
		t.Fatal(err)
	}
	checkGauge(t, "a watch event", &watched, 4)
	f.eventually(t, "the informer holds the patched Gauge", func() error {
		if g, ok := inf.Get(key); !ok || g.ResourceVersion != watched.ResourceVersion {
			return fmt.Errorf("cached %v, want resourceVersion %s", g, watched.ResourceVersion)
		}
		return nil
	})
	cached, _ = inf.Get(key)
	checkGauge(t, "a compact informer's watch", cached, 4)
}

func checkGauge(t *testing.T, read string, g *gauge, replicas int) {
	t.Helper()
	if g == nil {
		t.Errorf("%s of the forged Gauge: none", read)
		return
	}
	if g.Spec.Replicas != replicas || g.Status.Ready != 0 {
		t.Errorf("%s of the forged Gauge: replicas %d, ready %d; want %d and 0 (the forged keys ignored)", read, g.Spec.Replicas, g.Status.Ready, replicas)
	}
}
