// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// dataOnly declares a ConfigMap's data, not its binaryData.
type dataOnly struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (*dataOnly) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

// An object read from a cache of a partial type, without its
// managedFields, and then updated keeps what the type does not declare
// (binaryData) and what the cache dropped (managedFields).
func TestUpdateFromCacheKeepsUndeclaredFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		ctx := context.Background()
		full := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm"},
			Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": {0, 1}}}
		if err := client.Create(ctx, kube.Object(full), kube.FieldOwner("creator")); err != nil {
			t.Fatal(err)
		}
		c, err := New(client, Options{DefaultTransform: DropManagedFields})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.GetInformer(ctx, &dataOnly{}); err != nil {
			t.Fatal(err)
		}
		startCache(t, c)
		p := &dataOnly{}
		if err := c.Get(ctx, full.Key(), p); err != nil {
			t.Fatal(err)
		}
		p.Data["a"] = "2"
		if err := client.Update(ctx, p); err != nil {
			t.Fatal(err)
		}
		stored, err := srv.Get(configMaps, "default", "cm")
		if err != nil {
			t.Fatal(err)
		}
		data, _ := stored["data"].(map[string]any)
		binary, _ := stored["binaryData"].(map[string]any)
		if data["a"] != "2" || binary["b"] != "AAE=" {
			t.Errorf("stored data %v binaryData %v, want a=2 and b kept", data, binary)
		}
		managed, _ := stored["metadata"].(map[string]any)["managedFields"].([]any)
		if len(managed) == 0 || managed[0].(map[string]any)["manager"] != "creator" {
			t.Errorf("stored managedFields %v, want the creator's kept", managed)
		}
	})
}
