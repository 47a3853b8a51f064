// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// testShardedRanges runs a sharded informer whose shards change at run
// time, as a ring member's: the first and last quarters of the hash space
// added one after the other (each its own list and watch, the last one's
// bound written 0x10000000000000000), changes, then the first quarter
// removed. The store holds the objects of the shards held and nothing
// else, the server filtering each watch (nothing dropped on the client).
func testShardedRanges(t *testing.T, f *fixture) {
	label := map[string]string{"kubeloop.dev/sharded-ranges": f.ns}
	for i := range 24 {
		f.mustCreate(t, f.configMap(fmt.Sprintf("sr-%02d", i), label, nil))
	}
	inf, _ := f.startViewed(t, f.c, cache.InformerOptions{Sharded: true, LabelSelector: kube.SelectorFromSet(label)})
	first := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}}}
	last := kube.ShardSelector{Ranges: []kube.HashRange{{Start: 3 << 62}}}
	for _, sel := range []kube.ShardSelector{first, last} {
		if err := inf.AddShard(sel); err != nil {
			t.Fatal(err)
		}
		if err := inf.WaitForShard(f.ctx, sel); err != nil {
			t.Fatal(err)
		}
	}
	f.shardsCached(t, inf, label, first, last)

	for i := range 6 {
		f.mustCreate(t, f.configMap(fmt.Sprintf("sr-new-%d", i), label, nil))
		if err := f.c.Patch(f.ctx, f.configMap(fmt.Sprintf("sr-%02d", i), nil, nil), kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"n":"1"}}`)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.c.Delete(f.ctx, f.configMap("sr-23", nil, nil)); err != nil {
		t.Fatal(err)
	}
	f.shardsCached(t, inf, label, first, last)

	if _, err := inf.RemoveShard(first); err != nil {
		t.Fatal(err)
	}
	f.shardsCached(t, inf, label, last)
	f.checkShardDropped(t, int64(inf.Stats().ShardDropped))
}

// shardsCached waits until the informer's store holds exactly the objects
// of f.ns labelled label that one of sels selects, at the server's
// resourceVersions.
func (f *fixture) shardsCached(t *testing.T, inf *cache.Informer[kube.ConfigMap], label map[string]string, sels ...kube.ShardSelector) {
	t.Helper()
	f.eventually(t, "the shards cached equal the server's", func() error {
		var list kube.List[kube.ConfigMap]
		if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, LabelSelector: kube.SelectorFromSet(label)}); err != nil {
			return err
		}
		want := map[string]string{}
		for i := range list.Items {
			for _, sel := range sels {
				if sel.Matches(&list.Items[i]) {
					want[list.Items[i].Name] = list.Items[i].ResourceVersion
				}
			}
		}
		if len(want) == 0 || len(want) == len(list.Items) {
			return fmt.Errorf("the shards hold %d objects of %d: the scenario needs some in and some out", len(want), len(list.Items))
		}
		return storeHolds(inf, want)
	})
}
