// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"encoding/json"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// gauge is a custom resource whose CRD keeps unknown fields: its schema
// bounds spec.replicas, and status is written by a controller alone.
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

var gaugeKind = kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gauge"}

func (*gauge) GroupVersionKind() kube.GroupVersionKind { return gaugeKind }

const gaugeCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gauges.example.com"},
"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"gauges","kind":"Gauge"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{
   "spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"replicas":{"type":"integer","maximum":10}}},
   "status":{"type":"object","properties":{"ready":{"type":"integer"}}}}}}}]}}`

// forgedGauge is the tenant's object of issue #35: keys that differ from
// the schema's names by case or Unicode folding (ſ folds to s), which the
// schema keeps as unknown fields and encoding/json would fold onto
// replicas and status.
const forgedGauge = `{"apiVersion":"example.com/v1","kind":"Gauge","metadata":{"name":"g","namespace":"default"},
"spec":{"replicas":3,"replicaſ":1000,"Replicas":1000},"statuſ":{"ready":1000},"Status":{"ready":1000}}`

// createForgedGauge installs the CRD and creates the tenant's object.
func createForgedGauge(t *testing.T, c *kube.Client) {
	t.Helper()
	for _, doc := range []string{gaugeCRD, forgedGauge} {
		var u kube.Unstructured
		if err := json.Unmarshal([]byte(doc), &u); err != nil {
			t.Fatal(err)
		}
		if err := c.Create(t.Context(), &u); err != nil {
			t.Fatalf("create %s: %v", u.Kind, err)
		}
	}
}

// TestForgedKeysIgnored: a typed Get, List and watch event read the
// tenant's object as the API server does (replicas 3, no status), though
// the server keeps the forged keys, which an Unstructured read shows.
func TestForgedKeysIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := kubetest.New(kubetest.Options{})
		defer srv.Close()
		c, err := srv.Client(kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		createForgedGauge(t, c)
		key := kube.Key{Namespace: "default", Name: "g"}
		w, err := c.Watch(ctx, gaugeKind, kube.ListOptions{Namespace: "default", ResourceVersion: "0"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()

		u := &kube.Unstructured{}
		u.SetGroupVersionKind(gaugeKind)
		if err := c.Get(ctx, key, u); err != nil {
			t.Fatal(err)
		}
		if v, ok := u.Field("spec", "replicaſ"); !ok || v != float64(1000) {
			t.Fatalf("the server did not keep spec.replicaſ (%v, %v): the test proves nothing", v, ok)
		}
		if _, ok := u.Field("statuſ"); !ok {
			t.Fatalf("the server did not keep statuſ: the test proves nothing")
		}

		var g gauge
		if err := c.Get(ctx, key, &g); err != nil {
			t.Fatal(err)
		}
		checkGauge(t, "Get", &g)
		var list kube.List[gauge]
		if err := c.List(ctx, &list, kube.InNamespace("default")); err != nil || len(list.Items) != 1 {
			t.Fatalf("List = %d items, %v; want 1", len(list.Items), err)
		}
		checkGauge(t, "List", &list.Items[0])
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		var fromWatch gauge
		if err := ev.Decode(&fromWatch); err != nil {
			t.Fatal(err)
		}
		checkGauge(t, "a watch event", &fromWatch)
	})
}

func checkGauge(t *testing.T, read string, g *gauge) {
	t.Helper()
	if g.Spec.Replicas != 3 || g.Status.Ready != 0 {
		t.Errorf("%s of the tenant's Gauge: replicas %d, ready %d; want 3 and 0 (the forged keys ignored)", read, g.Spec.Replicas, g.Status.Ready)
	}
}
