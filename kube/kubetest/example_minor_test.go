// SPDX-License-Identifier: Apache-2.0

package kubetest_test

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// An operator that reads its ConfigMaps by WatchList and keeps one shard
// of them (the namespace team-a's) runs against the newest release and
// against 1.33, which refuses WatchList (422) and ignores the shard
// selector: there the informer falls back to a list and watch and drops
// the other shards' objects itself (team-b's two and kube-system's
// ConfigMap), and caches the same objects.
func ExampleOptions_minor() {
	for _, minor := range []int{33, kubetest.NewestMinor} {
		srv := kubetest.New(kubetest.Options{Minor: minor})
		fmt.Printf("1.%d: %s\n", minor, runShardedInformer(srv))
		srv.Close()
	}
	// Output:
	// 1.33: cached [team-a/one team-a/two]; lists 1, objects dropped outside the shard 3
	// 1.37: cached [team-a/one team-a/two]; lists 0, objects dropped outside the shard 0
}

// runShardedInformer seeds srv with ConfigMaps in two namespaces, syncs
// an informer of team-a's shard, and says what it cached and how.
func runShardedInformer(srv *kubetest.Server) string {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		return err.Error()
	}
	for _, ns := range []string{"team-a", "team-b"} {
		if err := client.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
			return err.Error()
		}
		for _, name := range []string{"one", "two"} {
			if err := client.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: name}}); err != nil {
				return err.Error()
			}
		}
	}
	h := kube.ShardHash("team-a")
	teamA := kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: h, End: h + 1}}}
	inf, err := cache.NewInformer[kube.ConfigMap](client, cache.InformerOptions{WatchList: true, ShardSelector: teamA})
	if err != nil {
		return err.Error()
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Go(func() { _ = inf.Start(ctx) })
	if err := inf.WaitForSync(ctx); err != nil {
		return err.Error()
	}
	cms, err := inf.List(kube.ListOptions{})
	if err != nil {
		return err.Error()
	}
	var keys []string
	for _, cm := range cms {
		keys = append(keys, cm.Namespace+"/"+cm.Name)
	}
	slices.Sort(keys)
	st := inf.Stats()
	return fmt.Sprintf("cached %v; lists %d, objects dropped outside the shard %d", keys, st.ListRequests, st.ShardDropped)
}
