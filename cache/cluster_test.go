// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestClusterKeepsCallersOnWrite: a Cluster's client reports its writes
// to the cache (reads wait for them) and still to the OnWrite the
// caller gave, once each.
func TestClusterKeepsCallersOnWrite(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newBareServer(t, kubetest.Options{})
		var heard []kube.Written
		cl, err := NewCluster(srv.Config(), kube.ClientOptions{OnWrite: func(w kube.Written) { heard = append(heard, w) }},
			Options{ByObject: []ByObject{{Object: &kube.ConfigMap{}}}})
		if err != nil {
			t.Fatal(err)
		}
		go cl.Cache().Start(t.Context())
		synctest.Wait()
		t.Cleanup(srv.LagWatches("", time.Second, time.Second))
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}}
		if err := cl.APIClient().Create(t.Context(), cm); err != nil {
			t.Fatal(err)
		}
		if len(heard) != 1 || heard[0].Key != (kube.Key{Namespace: "default", Name: "a"}) {
			t.Errorf("caller's OnWrite heard %+v, want the one create of default/a", heard)
		}
		if cl.WritesSeen(cm.GroupVersionKind(), kube.Key{Namespace: "default", Name: "a"}) {
			t.Error("WritesSeen while the watch lags = true, want false: the cache did not record the create")
		}
	})
}
