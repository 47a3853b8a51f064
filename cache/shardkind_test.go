// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestShardKind checks that a kind made sharded is cached by a sharded
// informer (holding nothing until a shard is added), even in a cache
// limited to namespaces, and that ShardKind is refused once an informer
// of the kind exists, or for a kind declared with a selector of its own.
func TestShardKind(t *testing.T) {
	_, client := newServer(t, kubetest.Options{})
	c, err := New(client, Options{Namespaces: []string{"default"},
		ByObject: []ByObject{{Object: &kube.Secret{}, Namespaces: []string{"default"}}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ShardKind(&kube.ConfigMap{}); err != nil {
		t.Fatal(err)
	}
	inf, err := c.GetInformer(context.Background(), &kube.ConfigMap{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := inf.(interface {
		AddShard(kube.ShardSelector) error
	}); !ok || !inf.(*informer).opts.Sharded {
		t.Errorf("the informer of a sharded kind is not sharded: %+v", inf.(*informer).opts)
	}
	if err := c.ShardKind(&kube.ConfigMap{}); err == nil || !strings.Contains(err.Error(), "an informer of the kind was made before") {
		t.Errorf("ShardKind after the informer was made: %v", err)
	}
	if err := c.ShardKind(&kube.Secret{}); err == nil || !strings.Contains(err.Error(), "declared in ByObject") {
		t.Errorf("ShardKind of a kind declared with Namespaces: %v", err)
	}
}
