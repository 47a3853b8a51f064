// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"maps"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// namespaces are where TestInformerShard's objects are.
var namespaces = [2]string{"default", "kube-system"}

// shardState returns key → resourceVersion of the server's ConfigMaps that
// sel selects, read without a request.
func shardState(t *testing.T, srv *kubetest.Server, sel kube.ShardSelector) map[string]string {
	t.Helper()
	objs, err := srv.List(configMaps, "")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, o := range objs {
		m := o["metadata"].(map[string]any)
		meta := kube.ObjectMeta{Namespace: m["namespace"].(string), Name: m["name"].(string), UID: m["uid"].(string)}
		if sel.ContainsHash(kube.ShardHash(sel.Field.ValueOf(&meta))) {
			out[meta.Key().String()] = m["resourceVersion"].(string)
		}
	}
	return out
}

// TestInformerShard runs informers limited to a shard of the ConfigMaps,
// by uid and by namespace, on a server that filters and on one that
// ignores the selector (the gate off): the store and a handler hold the
// objects of the shard and nothing else, through the first read and the
// changes after it, and only the second server's objects are dropped on
// the client.
func TestInformerShard(t *testing.T) {
	byUID := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}, {Start: 1 << 63, End: 3 << 62}}}
	// One namespace in, the other out.
	h0 := kube.ShardHash(namespaces[0])
	byNamespace := kube.ShardSelector{Field: kube.ShardByNamespace, Ranges: []kube.HashRange{{Start: h0, End: h0 + 1}}}
	for _, sel := range []kube.ShardSelector{byUID, byNamespace} {
		for _, server := range []struct {
			name string
			opts kubetest.Options
		}{{"filtering", kubetest.Options{}}, {"gate-off", kubetest.Options{DisableShardedListAndWatch: true}}} {
			for _, mode := range modes {
				t.Run(fmt.Sprintf("%s/%s/%s", sel.Field.ValueOf(&kube.ObjectMeta{UID: "uid", Namespace: "namespace"}), server.name, mode.name), func(t *testing.T) {
					synctest.Test(t, func(t *testing.T) { testInformerShard(t, server.opts, mode.opts, sel) })
				})
			}
		}
	}
}

func testInformerShard(t *testing.T, srvOpts kubetest.Options, opts InformerOptions, sel kube.ShardSelector) {
	srv, c := newServer(t, srvOpts)
	for n := range 30 {
		createCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), nil)
	}
	opts.ShardSelector = sel
	inf, rec := startSynced(t, c, opts)
	check := func(when string) {
		t.Helper()
		want := shardState(t, srv, sel)
		if len(want) == 0 || len(want) == len(serverState(t, srv, "")) {
			t.Fatalf("%s: the shard holds %d objects of %d: the test needs some in and some out", when, len(want), len(serverState(t, srv, "")))
		}
		if got := storeState(inf); !maps.Equal(got, want) {
			t.Errorf("%s: store = %v\nshard of the server = %v", when, sorted(got), sorted(want))
		}
		if got := rec.snapshot(); !maps.Equal(got, want) {
			t.Errorf("%s: handler's view = %v\nshard of the server = %v", when, sorted(got), sorted(want))
		}
	}
	check("after sync")

	for n := range 20 {
		createCM(t, srv, namespaces[n%2], fmt.Sprintf("new%d", n), nil)
		updateCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), map[string]string{"n": "1"})
		if k := 29 - n; n%3 == 0 && k >= 20 {
			deleteCM(t, srv, namespaces[k%2], fmt.Sprintf("cm%d", k))
		}
	}
	synctest.Wait()
	check("after changes")

	dropped := inf.stats().ShardDropped
	if srvOpts.DisableShardedListAndWatch && dropped == 0 {
		t.Errorf("ShardDropped = 0 on a server that ignores the selector, want the objects outside the shard")
	}
	if !srvOpts.DisableShardedListAndWatch && dropped != 0 {
		t.Errorf("ShardDropped = %d on a server that filters, want 0 (the selector was not sent?)", dropped)
	}
}

func TestNewInformerShardSelectorErrors(t *testing.T) {
	_, c := newServer(t, kubetest.Options{})
	for _, tc := range []struct {
		sel  kube.ShardSelector
		want string
	}{
		{kube.ShardSelector{Field: "object.metadata.name", Ranges: []kube.HashRange{{End: 1}}},
			`new informer: ShardSelector: shard selector field "object.metadata.name" is not object.metadata.uid or object.metadata.namespace`},
		{kube.ShardSelector{Ranges: []kube.HashRange{{Start: 2, End: 1}}},
			"new informer: ShardSelector: shard selector range [0x0000000000000002, 0x0000000000000001) is empty"},
	} {
		_, err := NewInformer[kube.ConfigMap](c, InformerOptions{ShardSelector: tc.sel})
		if err == nil || err.Error() != tc.want {
			t.Errorf("NewInformer with %+v = %v, want %q", tc.sel, err, tc.want)
		}
	}
}
