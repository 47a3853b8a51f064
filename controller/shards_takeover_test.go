// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file checks what a range taken over costs the controller: each
// object of the range reconciled once, promptly.

// takeoverServers are the two kinds of server a sharded controller meets:
// one that filters by shard, one that ignores the selector.
var takeoverServers = []struct {
	name string
	opts kubetest.Options
}{{"filtering", kubetest.Options{}}, {"gate-off", kubetest.Options{DisableShardedListAndWatch: true}}}

// quarter returns the selector of quarter i (0 to 3) of the hash space.
func quarter(i int) kube.ShardSelector {
	r := kube.HashRange{Start: uint64(i) << 62, End: uint64(i+1) << 62}
	return kube.ShardSelector{Ranges: []kube.HashRange{r}}
}

// takeover is a sharded controller of ConfigMaps on a server holding
// objects, whose keys are listed by the quarter they fall in.
type takeover struct {
	srv     *kubetest.Server
	inf     *cache.Informer[kube.ConfigMap]
	shards  *Shards
	rec     *recorder
	byQuart [4][]Request
}

// newTakeover starts the server with n ConfigMaps, the sharded informer
// and a controller with workers workers whose reconciles take d.
func newTakeover(t *testing.T, opts kubetest.Options, n, workers int, d time.Duration) *takeover {
	srv := kubetest.New(opts)
	t.Cleanup(srv.Close)
	if err := srv.Delete(configMaps, "kube-system", "kube-apiserver-legacy-service-account-token-tracking"); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	to := &takeover{srv: srv}
	for i := range n {
		o := createCM(t, srv, cm{ns: "default", name: fmt.Sprint("cm", i)})
		q := kube.ShardHash(o["metadata"].(map[string]any)["uid"].(string)) >> 62
		to.byQuart[q] = append(to.byQuart[q], req("default", fmt.Sprint("cm", i)))
	}
	for q, reqs := range to.byQuart {
		if len(reqs) == 0 {
			t.Fatalf("no object in quarter %d: the test needs some in each", q)
		}
	}
	if to.inf, err = cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{Sharded: true}); err != nil {
		t.Fatal(err)
	}
	run(t, to.inf.Start)
	if to.shards, err = NewShards(to.inf.ObjectInformer().(ShardedInformer)); err != nil {
		t.Fatal(err)
	}
	to.rec = newRecorder(func(ctx context.Context, r Request, n int) (Result, error) {
		time.Sleep(d)
		return Result{}, nil
	})
	ctl := mustNew(t, "takeover", to.shards.Reconciler(to.rec), Options{MaxConcurrentReconciles: workers})
	mustWatch(t, ctl, to.shards)
	startController(t, ctl)
	return to
}

// hold runs the Work of quarter q until the test ends.
func (to *takeover) hold(t *testing.T, q int) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- to.shards.Work(ctx, quarter(q)) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Work(quarter %d) = %v, want nil", q, err)
		}
	})
}

// TestShardsTakeoverOnce holds a quarter of the hash space, then takes
// over a second one, with no change on the server: each object of each
// quarter is reconciled exactly once (a shard's first list and Work's
// queueing of every object of it are one request, not two back to back).
func TestShardsTakeoverOnce(t *testing.T) {
	for _, server := range takeoverServers {
		t.Run(server.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				to := newTakeover(t, server.opts, 80, 2, 50*time.Millisecond)
				to.hold(t, 0)
				time.Sleep(time.Minute)
				synctest.Wait()
				to.hold(t, 1)
				time.Sleep(time.Minute)
				synctest.Wait()
				for q := range 2 {
					for _, r := range to.byQuart[q] {
						if n := to.rec.count(r); n != 1 {
							t.Errorf("%s, of quarter %d, reconciled %d times, want 1", r, q, n)
						}
					}
				}
				for _, r := range append(to.byQuart[2], to.byQuart[3]...) {
					if n := to.rec.count(r); n != 0 {
						t.Errorf("%s, of a quarter not held, reconciled %d times, want 0", r, n)
					}
				}
			})
		})
	}
}

// TestShardsTakeoverPrompt holds a quarter of the hash space whose
// objects change all along, enough to keep the one worker busy, then
// takes over a second quarter: its objects, which may have changed while
// no one held them, are queued as changes, behind the changes queued
// before them and ahead of those after, not as a resync that waits for
// the worker to be idle (or for the queue's aging, 5s).
func TestShardsTakeoverPrompt(t *testing.T) {
	for _, server := range takeoverServers {
		t.Run(server.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				const d = 50 * time.Millisecond
				to := newTakeover(t, server.opts, 80, 1, d)
				to.hold(t, 0)
				time.Sleep(time.Minute)
				synctest.Wait()

				// Every round changes each object of quarter 0: as much
				// work as the worker does in a round.
				own := to.byQuart[0]
				round := time.Duration(len(own)) * d
				stop := make(chan struct{})
				writing := make(chan struct{})
				go func() {
					defer close(writing)
					for n := 0; ; n++ {
						for _, r := range own { // not updateCM: t.Fatal is for the test's goroutine
							cur, err := to.srv.Get(configMaps, r.Namespace, r.Name)
							if err == nil {
								cur["data"] = map[string]any{"n": fmt.Sprint(n)}
								_, err = to.srv.Update(configMaps, cur)
							}
							if err != nil {
								t.Errorf("update %s: %v", r, err)
							}
						}
						select {
						case <-stop:
							return
						case <-time.After(round):
						}
					}
				}()
				time.Sleep(3 * round)
				taken := time.Now()
				to.hold(t, 1)
				time.Sleep(time.Minute)
				close(stop)
				<-writing
				synctest.Wait()

				// At most a round of quarter 0's changes is queued ahead.
				limit := time.Duration(len(own)+len(to.byQuart[1])+2) * d
				for _, r := range to.byQuart[1] {
					at := to.rec.times(r)
					if len(at) != 1 {
						t.Errorf("%s, of the quarter taken over, reconciled %d times, want 1", r, len(at))
						continue
					}
					if wait := to.rec.start.Add(at[0]).Sub(taken); wait > limit {
						t.Errorf("%s, of the quarter taken over, reconciled %v after, want within %v", r, wait, limit)
					}
				}
			})
		})
	}
}
