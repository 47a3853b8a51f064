// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// where counts, for each cluster, the replicas it runs on now, and
// records the most it ever ran on at once.
type where struct {
	mu   sync.Mutex
	now  map[string]map[string]bool // cluster: replicas
	most map[string]int
}

func (w *where) set(cluster, replica string, on bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.now[cluster] == nil {
		w.now[cluster] = map[string]bool{}
	}
	if on {
		w.now[cluster][replica] = true
	} else {
		delete(w.now[cluster], replica)
	}
	w.most[cluster] = max(w.most[cluster], len(w.now[cluster]))
}

// holders returns the replicas each cluster runs on now.
func (w *where) holders() map[string][]string {
	w.mu.Lock()
	defer w.mu.Unlock()
	h := map[string][]string{}
	for c, rs := range w.now {
		for r := range rs {
			h[c] = append(h[c], r)
		}
	}
	return h
}

// TestRingSharesClusters runs two replicas of a fleet of six clusters
// with a ring: each cluster runs on one replica at a time, both replicas
// run some, and once one replica stops the other runs them all.
func TestRingSharesClusters(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := newServer(t, 0)
		clusters := fleet.Static{}
		for i := range 6 {
			clusters[fmt.Sprintf("cluster-%d", i)] = config(newServer(t, 1))
		}
		w := &where{now: map[string]map[string]bool{}, most: map[string]int{}}
		type replica struct {
			f    *fleet.Fleet
			stop context.CancelFunc
			done chan error
		}
		replicas := map[string]*replica{}
		for _, id := range []string{"r1", "r2"} {
			mgr, err := manager.New(config(host), manager.Options{MetricsBindAddress: "0"})
			if err != nil {
				t.Fatal(err)
			}
			ringClient, err := kube.NewClient(config(host), kube.ClientOptions{})
			if err != nil {
				t.Fatal(err)
			}
			f, err := fleet.New(mgr, fleet.Options{Providers: []fleet.Provider{clusters},
				Sharding: fleet.RingOptions{Client: ringClient, Namespace: "default", Ring: "fleet", Identity: id}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, stop := context.WithCancel(context.Background())
			r := &replica{f: f, stop: stop, done: make(chan error, 1)}
			replicas[id] = r
			go f.Watch(ctx, func(ctx context.Context, name string, _ interface {
				GetInformer(ctx context.Context, obj kube.Object) (cache.ObjectInformer, error)
				Mapping(ctx context.Context, gvk kube.GroupVersionKind) (kube.Mapping, error)
			}) {
				w.set(name, id, true)
				<-ctx.Done()
				w.set(name, id, false)
			})
			go func() { r.done <- mgr.Start(ctx) }()
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()

		count := map[string]int{}
		for name := range clusters {
			h := w.holders()[name]
			if len(h) != 1 {
				t.Errorf("cluster %s runs on %v, want one replica", name, h)
				continue
			}
			count[h[0]]++
			if _, err := replicas[h[0]].f.Cluster(name); err != nil {
				t.Errorf("cluster %s runs on %s, whose Cluster(%[1]q) = %v", name, h[0], err)
			}
		}
		t.Logf("clusters per replica: %v", count)
		if count["r1"] == 0 || count["r2"] == 0 {
			t.Errorf("clusters per replica = %v, want some on each", count)
		}

		replicas["r2"].stop()
		if err := <-replicas["r2"].done; err != nil {
			t.Fatalf("r2: Start = %v", err)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		for name := range clusters {
			if h := w.holders()[name]; len(h) != 1 || h[0] != "r1" {
				t.Errorf("r2 stopped: cluster %s runs on %v, want [r1]", name, h)
			}
		}
		for name, n := range w.most {
			if n > 1 {
				t.Errorf("cluster %s ran on %d replicas at once", name, n)
			}
		}
		replicas["r1"].stop()
		if err := <-replicas["r1"].done; err != nil {
			t.Fatalf("r1: Start = %v", err)
		}
	})
}

// TestNameHashSpreads checks that names differing in their last
// character fall in different ranges of 64, which FNV-1a alone (the
// objects' shard hash) does not do.
func TestNameHashSpreads(t *testing.T) {
	rangeOf := func(h uint64) uint64 { return h >> 58 } // 64 ranges
	fnv, mixed := map[uint64]bool{}, map[uint64]bool{}
	for i := range 6 {
		name := fmt.Sprintf("cluster-%d", i)
		fnv[rangeOf(kube.ShardHash(name))] = true
		mixed[rangeOf(fleet.NameHash(name))] = true
	}
	if len(fnv) != 1 {
		t.Logf("FNV-1a put cluster-0..5 in %d ranges (this test assumed 1)", len(fnv))
	}
	if len(mixed) < 5 {
		t.Errorf("NameHash put cluster-0..5 in %d ranges of 64, want at least 5", len(mixed))
	}
}
