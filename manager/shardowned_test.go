// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
)

// TestShardedOwns runs three managers whose sharded ConfigMap controller
// (made by the builder) owns Secrets, one for each ConfigMap: a change of
// a Secret reconciles its owner on the member holding the owner's range
// alone, before and after a member stops.
func TestShardedOwns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newShardServer(t, 45)
		secrets := kube.GroupVersionResource{Version: "v1", Resource: "secrets"}
		ids := uids(t, srv)
		for k, uid := range ids {
			ref := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": k.Name, "uid": uid, "controller": true}
			if _, err := srv.Create(secrets, map[string]any{"metadata": map[string]any{
				"namespace": k.Namespace, "name": k.Name, "ownerReferences": []any{ref}}}); err != nil {
				t.Fatal(err)
			}
		}
		var members []*shardMember
		for _, id := range []string{"m0", "m1", "m2"} {
			m := newTestManager(t, srv, func(o *Options) {
				o.Sharding = ShardingOptions{Ring: "cms", Namespace: "default", Identity: id, Ranges: shardRanges}
				o.GracefulShutdownTimeout = time.Minute
			})
			if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Owns(&kube.Secret{}).Sharded().Complete(l.reconciler(id)); err != nil {
				t.Fatal(err)
			}
			sm := &shardMember{id: id, m: m}
			sm.run = start(t, m)
			members = append(members, sm)
		}
		touchSecrets := func(members []*shardMember, round int) {
			t.Helper()
			settled(t, members, time.Minute)
			time.Sleep(time.Minute) // the reconciles of the ranges taken
			synctest.Wait()
			l.reset()
			for k := range ids {
				s, err := srv.Get(secrets, k.Namespace, k.Name)
				if err != nil {
					t.Fatal(err)
				}
				s["metadata"].(map[string]any)["labels"] = map[string]any{"round": fmt.Sprint(round)}
				if _, err := srv.Update(secrets, s); err != nil {
					t.Fatal(err)
				}
			}
			time.Sleep(30 * time.Second)
			synctest.Wait()
			byHolders(t, l, members, ids, fmt.Sprintf("round %d: %%s, its Secret changed, reconciled by %%v, want by its holder %%q alone", round))
		}
		touchSecrets(members, 1)
		if err := members[1].run.stop(); err != nil {
			t.Errorf("stop m1: %v", err)
		}
		touchSecrets([]*shardMember{members[0], members[2]}, 2)
	})
}
