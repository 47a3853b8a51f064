// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"encoding/json"
	"fmt"
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
// the schema's names by case or Unicode folding (ſ folds to s), kept by
// the server as unknown fields, which encoding/json would fold onto
// replicas and status.
const forgedGauge = `{"apiVersion":"example.com/v1","kind":"Gauge","metadata":{"name":"g","namespace":"default"},
"spec":{"replicas":3,"replicaſ":1000,"Replicas":1000},"statuſ":{"ready":1000},"Status":{"ready":1000}}`

// TestForgedKeysNotCached: an informer, plain or compact, keeps the
// tenant's object as the API server reads it (replicas 3, no status),
// from the list and from a watch event alike.
func TestForgedKeysNotCached(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprintf("compact=%v", compact), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				_, c := newServer(t, kubetest.Options{})
				ctx := t.Context()
				var u kube.Unstructured
				for _, doc := range []string{gaugeCRD, forgedGauge} {
					u = kube.Unstructured{}
					if err := json.Unmarshal([]byte(doc), &u); err != nil {
						t.Fatal(err)
					}
					if err := c.Create(ctx, &u); err != nil {
						t.Fatalf("create %s: %v", u.Kind, err)
					}
				}
				inf, err := NewInformer[gauge](c, InformerOptions{Compact: compact})
				if err != nil {
					t.Fatal(err)
				}
				stop := startInformer(t, inf.ObjectInformer())
				defer stop()
				waitSynced(t, inf.ObjectInformer())
				key := kube.Key{Namespace: "default", Name: "g"}
				checkCachedGauge(t, inf, key, compact, "listed", 3)

				u.SetField(map[string]any{"replicas": 4, "replicaſ": 2000, "REPLICAS": 2000}, "spec")
				if err := c.Update(ctx, &u); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				checkCachedGauge(t, inf, key, compact, "updated", 4)
			})
		})
	}
}

func checkCachedGauge(t *testing.T, inf *Informer[gauge], key kube.Key, compact bool, when string, replicas int) {
	t.Helper()
	g, ok := inf.Get(key)
	if !ok {
		t.Fatalf("compact %v, %s: Get(%s) found nothing", compact, when, key)
	}
	if g.Spec.Replicas != replicas || g.Status.Ready != 0 {
		t.Errorf("compact %v, %s: cached Gauge has replicas %d, ready %d; want %d and 0 (the forged keys ignored)",
			compact, when, g.Spec.Replicas, g.Status.Ready, replicas)
	}
}

// TestCompactLoadKeysExact: what a compact store keeps is decoded with
// keys matched exactly, whatever JSON it holds.
func TestCompactLoadKeysExact(t *testing.T) {
	c := newCodec(gaugeKind, func() kube.Object { return new(gauge) })
	obj := c.load(&packed{json: forgedGauge})
	g := obj.(*gauge)
	if g.Spec.Replicas != 3 || g.Status.Ready != 0 || g.Kind != "Gauge" {
		t.Errorf("load(%s) = %+v, want replicas 3, ready 0, kind Gauge", forgedGauge, g)
	}
}
