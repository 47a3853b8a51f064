// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// Two shards by uid, a quarter of the hash space each, apart.
var (
	shardA = kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 62}}}
	shardB = kube.ShardSelector{Ranges: []kube.HashRange{{Start: 1 << 63, End: 3 << 62}}}
)

// union returns the union of maps.
func union(ms ...map[string]string) map[string]string {
	out := map[string]string{}
	for _, m := range ms {
		maps.Copy(out, m)
	}
	return out
}

// TestInformerShards adds and removes shards of a sharded informer at run
// time, on a server that filters and on one that ignores the selector:
// the store and a handler hold the objects of the shards held and nothing
// else, through the first read of each shard, changes, a relist of every
// shard after a compaction (each replacing its own objects only), and a
// removal, which tells the handler nothing and stops its notifications.
// Adding a shard costs one watch (WatchList) or one list and watch.
func TestInformerShards(t *testing.T) { onShardServers(t, testInformerShards) }

// onShardServers runs test in a bubble on a server that filters by shard
// and on one that ignores the selector, in each informer mode.
func onShardServers(t *testing.T, test func(t *testing.T, srvOpts kubetest.Options, opts InformerOptions)) {
	for _, server := range []struct {
		name string
		opts kubetest.Options
	}{{"filtering", kubetest.Options{}}, {"gate-off", kubetest.Options{DisableShardedListAndWatch: true}}} {
		for _, mode := range modes {
			t.Run(server.name+"/"+mode.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) { test(t, server.opts, mode.opts) })
			})
		}
	}
}

// addShard adds the shard of sel to inf, waits for its first state, and
// returns how many watch and list requests that made.
func addShard(t *testing.T, inf *informer, sel kube.ShardSelector) (watches, lists uint64) {
	t.Helper()
	before := inf.stats()
	if err := inf.AddShard(sel); err != nil {
		t.Fatal(err)
	}
	if err := inf.WaitForShard(context.Background(), sel); err != nil {
		t.Fatal(err)
	}
	// In list mode the shard is synced after its list, before its watch
	// is asked for: count once every goroutine is blocked.
	synctest.Wait()
	after := inf.stats()
	return after.WatchRequests - before.WatchRequests, after.ListRequests - before.ListRequests
}

// shardReaders returns filtering on a server that filters by shard (a
// reflector per shard), and fallback on one that ignores the selector
// (one for all shards).
func shardReaders(srvOpts kubetest.Options, filtering, fallback uint64) uint64 {
	if srvOpts.DisableShardedListAndWatch {
		return fallback
	}
	return filtering
}

// checkHeld fails the test unless the store of inf and the view of rec
// both equal want, once the bubble is idle.
func checkHeld(t *testing.T, inf *informer, rec *recorder, when string, want map[string]string) {
	t.Helper()
	synctest.Wait()
	if got := storeState(inf); !maps.Equal(got, want) {
		t.Errorf("%s: store = %v\nwant %v", when, sorted(got), sorted(want))
	}
	if got := rec.snapshot(); !maps.Equal(got, want) {
		t.Errorf("%s: handler's view = %v\nwant %v", when, sorted(got), sorted(want))
	}
}

func testInformerShards(t *testing.T, srvOpts kubetest.Options, opts InformerOptions) {
	srv, c := newServer(t, srvOpts)
	for n := range 40 {
		createCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), nil)
	}
	opts.Sharded = true
	inf, rec := startSynced(t, c, opts) // synced at once, holding nothing
	check := func(when string, want map[string]string) {
		t.Helper()
		checkHeld(t, inf, rec, when, want)
	}
	check("before any shard", map[string]string{})

	first := true
	add := func(sel kube.ShardSelector) {
		t.Helper()
		watches, lists := addShard(t, inf, sel)
		want := uint64(1)
		if first && srvOpts.DisableShardedListAndWatch && opts.WatchList {
			want = 2 // the shard's own, which finds the server ignores the selector, then the fallback's
		}
		first = false
		if watches != want {
			t.Errorf("AddShard(%s) made %d watch requests, want %d", sel, watches, want)
		}
		if opts.WatchList && lists != 0 {
			t.Errorf("AddShard(%s) made %d list requests with WatchList, want 0", sel, lists)
		}
	}
	add(shardA)
	check("shard A added", shardState(t, srv, shardA))
	if rec.initialAdds != len(shardState(t, srv, shardA)) {
		t.Errorf("initial adds = %d, want %d (the shard's objects)", rec.initialAdds, len(shardState(t, srv, shardA)))
	}
	add(shardB)
	check("shard B added", union(shardState(t, srv, shardA), shardState(t, srv, shardB)))
	if err := inf.AddShard(shardB); err != nil {
		t.Errorf("AddShard of a shard held = %v, want nil", err)
	}

	for n := range 10 {
		createCM(t, srv, namespaces[n%2], fmt.Sprintf("new%d", n), nil)
		updateCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), map[string]string{"n": "1"})
		deleteCM(t, srv, namespaces[(39-n)%2], fmt.Sprintf("cm%d", 39-n))
	}
	check("after changes", union(shardState(t, srv, shardA), shardState(t, srv, shardB)))

	// Changes while the watches are down, then a relist of each shard.
	undo := srv.ExpireWatches()
	srv.CutWatches()
	for n := range 5 {
		deleteCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", 10+n))
		createCM(t, srv, namespaces[n%2], fmt.Sprintf("late%d", n), nil)
	}
	time.Sleep(time.Minute)
	undo()
	time.Sleep(time.Minute) // past the backoffs
	check("after relists", union(shardState(t, srv, shardA), shardState(t, srv, shardB)))
	if r, want := inf.stats().Relists, shardReaders(srvOpts, 2, 1); r < want {
		t.Errorf("Relists = %d, want %d at least: one per reflector", r, want)
	}

	deletes := rec.deletes
	keysA, err := inf.ShardKeys(shardA)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keysA {
		if sel, ok := inf.ShardOf(k); !ok || sel.String() != shardA.String() {
			t.Errorf("ShardOf(%s) = %s, %v; want shard A %s, true", k, sel, ok, shardA)
		}
	}
	dropped, err := inf.RemoveShard(shardA)
	if err != nil {
		t.Fatal(err)
	}
	inA := shardState(t, srv, shardA)
	if dropped != len(inA) || len(keysA) != len(inA) {
		t.Errorf("RemoveShard(A) dropped %d objects, ShardKeys(A) had %d, want %d", dropped, len(keysA), len(inA))
	}
	for _, k := range keysA {
		if sel, ok := inf.ShardOf(k); ok {
			t.Errorf("ShardOf(%s) after RemoveShard(A) = %s, true; want false", k, sel)
		}
	}
	for n := range 30 { // changes to A's objects reach no handler now
		if n >= 10 && n < 15 {
			continue // deleted
		}
		updateCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), map[string]string{"n": "2"})
	}
	synctest.Wait()
	if got := storeState(inf); !maps.Equal(got, shardState(t, srv, shardB)) {
		t.Errorf("shard A removed: store = %v\nwant shard B %v", sorted(got), sorted(shardState(t, srv, shardB)))
	}
	if rec.deletes != deletes {
		t.Errorf("RemoveShard told the handler %d deletions, want none", rec.deletes-deletes)
	}
	for k := range rec.snapshot() { // what the handler heard of A stays as it was
		if _, inB := shardState(t, srv, shardB)[k]; !inB && !slices.ContainsFunc(keysA, func(key kube.Key) bool { return key.String() == k }) {
			t.Errorf("handler holds %s, in neither shard", k)
		}
	}

	// The handler drops A's share itself, as documented; A comes back.
	rec.mu.Lock()
	for _, k := range keysA {
		delete(rec.state, k.String())
	}
	rec.mu.Unlock()
	add(shardA)
	check("shard A added again", union(shardState(t, srv, shardA), shardState(t, srv, shardB)))

	shardDropped := inf.stats().ShardDropped
	if srvOpts.DisableShardedListAndWatch != (shardDropped > 0) {
		t.Errorf("ShardDropped = %d with the gate off %v", shardDropped, srvOpts.DisableShardedListAndWatch)
	}
}

// TestInformerShardsErrors checks the errors of the shard methods and
// options.
func TestInformerShardsErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newServer(t, kubetest.Options{})
		plain := newCMInformer(t, c, InformerOptions{})
		sharded := newCMInformer(t, c, InformerOptions{Sharded: true})
		for _, tc := range []struct {
			err  error
			want string
		}{
			{plain.AddShard(shardA), "add shard shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') to the ConfigMap informer: informer is not sharded"},
			{sharded.AddShard(kube.ShardSelector{}), "add shard to the ConfigMap informer: the selector is empty"},
			{second(sharded.RemoveShard(shardA)), "remove shard shardRange(object.metadata.uid, '0x0000000000000000', '0x4000000000000000') from the ConfigMap informer: not added"},
			{sharded.WaitForShard(context.Background(), shardB), "wait for shard shardRange(object.metadata.uid, '0x8000000000000000', '0xc000000000000000') of the ConfigMap informer: not added"},
			{second(NewInformer[kube.ConfigMap](c, InformerOptions{Sharded: true, ShardSelector: shardA})), "new informer: Sharded takes its shards from AddShard: leave ShardSelector empty"},
		} {
			if tc.err == nil || tc.err.Error() != tc.want {
				t.Errorf("error = %v, want %q", tc.err, tc.want)
			}
		}
		// A shard removed while waited for ends the wait.
		if err := sharded.AddShard(shardA); err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { done <- sharded.WaitForShard(context.Background(), shardA) }()
		synctest.Wait()
		if _, err := sharded.RemoveShard(shardA); err != nil {
			t.Fatal(err)
		}
		if err := <-done; err == nil || !strings.Contains(err.Error(), "removed") {
			t.Errorf("WaitForShard of a shard removed = %v, want removed", err)
		}
	})
}

func second[T any](_ T, err error) error { return err }

// TestInformerShardsNoResync runs a sharded informer with resyncs off: it
// runs until its context ends (it has no reflector of its own, and no
// resync loop to keep Start waiting), and a shard added later is read.
func TestInformerShardsNoResync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		for n := range 10 {
			createCM(t, srv, namespaces[0], fmt.Sprintf("cm%d", n), nil)
		}
		inf := newCMInformer(t, c, InformerOptions{Sharded: true, SyncPeriod: -1})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() { done <- inf.Start(ctx) }()
		time.Sleep(time.Hour)
		select {
		case err := <-done:
			t.Fatalf("Start returned (%v) before its context ended", err)
		default:
		}
		whole := kube.ShardSelector{Ranges: []kube.HashRange{{}}}
		if err := inf.AddShard(whole); err != nil {
			t.Fatalf("AddShard after an hour = %v, want nil", err)
		}
		if err := inf.WaitForShard(ctx, whole); err != nil {
			t.Fatal(err)
		}
		if got := len(storeState(inf)); got != 10 {
			t.Errorf("the store holds %d objects, want 10", got)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Start = %v, want nil", err)
		}
	})
}

// inNamespaces returns the entries of state whose keys are in one of
// namespaces.
func inNamespaces(state map[string]string, namespaces ...string) map[string]string {
	out := map[string]string{}
	for k, v := range state {
		if slices.Contains(namespaces, strings.SplitN(k, "/", 2)[0]) {
			out[k] = v
		}
	}
	return out
}

// TestInformerShardsNamespaces runs a sharded informer limited to two
// namespaces of three, on a server that filters and on one that ignores
// the selector: a shard costs one watch per namespace, holds the shard's
// objects of those namespaces alone, and a relist of each namespace
// replaces that namespace's share of the shard only.
func TestInformerShardsNamespaces(t *testing.T) { onShardServers(t, testInformerShardsNamespaces) }

func testInformerShardsNamespaces(t *testing.T, srvOpts kubetest.Options, opts InformerOptions) {
	srv, c := newServer(t, srvOpts)
	if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
		map[string]any{"metadata": map[string]any{"name": "outside"}}); err != nil {
		t.Fatal(err)
	}
	all := []string{namespaces[0], namespaces[1], "outside"}
	for n := range 60 {
		createCM(t, srv, all[n%3], fmt.Sprintf("cm%d", n), nil)
	}
	opts.Sharded, opts.Namespaces = true, namespaces[:]
	inf, rec := startSynced(t, c, opts)
	want := func(sels ...kube.ShardSelector) map[string]string {
		var states []map[string]string
		for _, sel := range sels {
			states = append(states, shardState(t, srv, sel))
		}
		return inNamespaces(union(states...), namespaces[:]...)
	}
	check := func(when string, want map[string]string) {
		t.Helper()
		checkHeld(t, inf, rec, when, want)
	}
	for n, sel := range []kube.ShardSelector{shardA, shardB} {
		want := uint64(2)
		if n == 0 && srvOpts.DisableShardedListAndWatch && opts.WatchList {
			want = 4 // the shard's own, which find the server ignores the selector, then the fallback's
		}
		if got, _ := addShard(t, inf, sel); got != want {
			t.Errorf("AddShard(%s) made %d watch requests, want %d: one per namespace", sel, got, want)
		}
	}
	check("shards A and B added", want(shardA, shardB))
	if len(want(shardA)) == 0 || len(want(shardB)) == 0 {
		t.Fatal("the test needs objects in both shards")
	}

	undo := srv.ExpireWatches()
	srv.CutWatches()
	for n := range 6 {
		deleteCM(t, srv, all[n%3], fmt.Sprintf("cm%d", n))
		createCM(t, srv, all[n%3], fmt.Sprintf("late%d", n), nil)
	}
	time.Sleep(time.Minute)
	undo()
	time.Sleep(time.Minute) // past the backoffs
	check("after relists", want(shardA, shardB))
	if r, want := inf.stats().Relists, shardReaders(srvOpts, 4, 2); r < want {
		t.Errorf("Relists = %d, want %d at least: one per reflector", r, want)
	}

	if _, err := inf.RemoveShard(shardA); err != nil {
		t.Fatal(err)
	}
	if got := storeState(inf); !maps.Equal(got, want(shardB)) {
		t.Errorf("shard A removed: store = %v\nwant %v", sorted(got), sorted(want(shardB)))
	}
	if err := inf.list(kube.ListOptions{Namespace: "outside"}, func(kube.Object) {}); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("list of a namespace outside = %v, want ErrNotAllowed", err)
	}
}
