// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestShardKind checks that a kind made sharded is cached by a sharded
// informer (holding nothing until a shard is added, then the shard's
// objects in the cache's namespaces alone), and that ShardKind is refused
// once an informer of the kind exists, or for a kind declared with a
// shard selector of its own.
func TestShardKind(t *testing.T) {
	srv, client := newServer(t, kubetest.Options{})
	for n := range 6 {
		createCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), nil)
	}
	c, err := New(client, Options{Namespaces: []string{"default"},
		ByObject: []ByObject{{Object: &kube.Secret{}, ShardSelector: shardA}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.ShardKind(&kube.ConfigMap{}, nil); err != nil {
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
	i := inf.(*informer)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go i.Start(ctx)
	all := kube.ShardSelector{Ranges: []kube.HashRange{{}}} // the whole space
	if err := i.AddShard(all); err != nil {
		t.Fatal(err)
	}
	if err := i.WaitForShard(ctx, all); err != nil {
		t.Fatal(err)
	}
	for key := range storeState(i) {
		if !strings.HasPrefix(key, "default/") {
			t.Errorf("a sharded kind in a cache limited to default holds %s", key)
		}
	}
	if got := len(storeState(i)); got != 3 {
		t.Errorf("the shard of every hash holds %d ConfigMaps, want default's 3", got)
	}
	if err := c.ShardKind(&kube.ConfigMap{}, nil); err == nil || !strings.Contains(err.Error(), "an informer of the kind was made before") {
		t.Errorf("ShardKind after the informer was made: %v", err)
	}
	if err := c.ShardKind(&kube.Secret{}, nil); err == nil || !strings.Contains(err.Error(), "declared in ByObject") {
		t.Errorf("ShardKind of a kind declared with a ShardSelector: %v", err)
	}
}
