// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// TestShards holds one half of the hash space with Shards: every object
// of the half is reconciled once held, requests for the other half are
// dropped, a deletion in the half is reconciled, and Work returns only
// after the reconciles of the half in flight have ended, having dropped
// the half from the cache.
func TestShards(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t)
		var mine, others []Request
		for n := range 20 {
			o := createCM(t, srv, cm{ns: "default", name: fmt.Sprint("cm", n)})
			r := req("default", fmt.Sprint("cm", n))
			if kube.ShardHash(o["metadata"].(map[string]any)["uid"].(string)) < 1<<63 {
				mine = append(mine, r)
			} else {
				others = append(others, r)
			}
		}
		if len(mine) == 0 || len(others) == 0 {
			t.Fatalf("%d objects in the half held, %d out: the test needs both", len(mine), len(others))
		}
		half := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 63}}}

		inf, err := cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{Sharded: true})
		if err != nil {
			t.Fatal(err)
		}
		run(t, inf.Start)
		shards, err := NewShards(inf.ObjectInformer().(ShardedInformer))
		if err != nil {
			t.Fatal(err)
		}
		block := make(chan struct{}) // holds the reconciles of mine[0] once asked
		blocking := false
		rec := newRecorder(func(ctx context.Context, r Request, n int) (Result, error) {
			if blocking && r == mine[0] {
				<-block
			}
			return Result{}, nil
		})
		keys := make(chan Change)
		ctl := mustNew(t, "shards", shards.Reconciler(rec), Options{MaxConcurrentReconciles: 2})
		mustWatch(t, ctl, shards)
		mustWatch(t, ctl, Channel(keys, EnqueueObject()))
		startController(t, ctl)

		workCtx, release := context.WithCancel(context.Background())
		worked := make(chan error, 1)
		go func() { worked <- shards.Work(workCtx, half) }()
		synctest.Wait()
		counts := map[Request]int{}
		for _, r := range mine {
			if counts[r] = rec.count(r); counts[r] != 1 {
				t.Errorf("%s reconciled %d times once its shard is held, want 1", r, counts[r])
			}
		}

		for _, r := range append(slices.Clone(others), mine...) { // from another source
			keys <- Change{Key: r.Key}
		}
		synctest.Wait()
		for _, r := range others {
			if n := rec.count(r); n != 0 {
				t.Errorf("%s, of a shard not held, reconciled %d times, want 0", r, n)
			}
		}
		for _, r := range mine {
			if n := rec.count(r); n != counts[r]+1 {
				t.Errorf("%s reconciled %d times after one more request, want %d", r, n, counts[r]+1)
			}
		}

		if err := srv.Delete(configMaps, "default", mine[1].Name); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if n := rec.count(mine[1]); n != counts[mine[1]]+2 {
			t.Errorf("%s deleted: reconciled %d times, want %d (the deletion)", mine[1], n, counts[mine[1]]+2)
		}

		blocking = true
		keys <- Change{Key: mine[0].Key}
		synctest.Wait() // mine[0] is in flight
		release()
		time.Sleep(time.Hour)
		select {
		case err := <-worked:
			close(block)
			t.Fatalf("Work returned (%v) while a reconcile of its shard is in flight", err)
		default:
		}
		close(block)
		if err := <-worked; err != nil {
			t.Errorf("Work = %v, want nil", err)
		}
		if objs, _ := inf.List(kube.ListOptions{}); len(objs) != 0 {
			t.Errorf("the cache holds %d objects after Work returned, want 0", len(objs))
		}
		before := rec.total()
		keys <- Change{Key: mine[2].Key}
		synctest.Wait()
		if n := rec.total() - before; n != 0 {
			t.Errorf("%d reconciles after the shard was released, want 0", n)
		}
	})
}

// TestShardsErrors checks what Shards refuses.
func TestShardsErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newServer(t)
		if _, err := NewShards(nil); err == nil || err.Error() != "new shards: informer is nil" {
			t.Errorf("NewShards(nil) = %v", err)
		}
		plain := startCMInformer(t, c)
		shards, err := NewShards(plain.ObjectInformer().(ShardedInformer))
		if err != nil {
			t.Fatal(err)
		}
		err = shards.Work(context.Background(), kube.ShardSelector{Ranges: []kube.HashRange{{End: 1}}})
		if want := "informer is not sharded"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Work on an informer not sharded = %v, want %q", err, want)
		}
	})
}
