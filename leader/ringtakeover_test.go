// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file follows the objects of the ranges that move when a member of
// three dies, as internal/integration's TestShardProcesses does with OS
// processes (its timings: LeaseDuration 4s, RenewDeadline 3s, RetryPeriod
// 0.5s, reconciles of 5ms, one worker), with every request to the server
// taking takeoverLatency.

const (
	takeoverLD      = 4 * time.Second
	takeoverRD      = 3 * time.Second
	takeoverRP      = 500 * time.Millisecond
	takeoverLatency = 10 * time.Millisecond
	takeoverWork    = 5 * time.Millisecond
)

// takeoverRing is the ring's members with their controllers and what
// they did.
type takeoverRing struct {
	*ringTest
	admin *kube.Client
	uids  map[kube.Key]string

	mu   sync.Mutex
	held map[int]time.Time // when each range's current holding started
	// recs are the reconciles of each object since reset: by whom, when.
	recs  map[kube.Key][]takeoverRec
	stops []context.CancelFunc
	// infs and rms are each member's informer and ring member.
	infs map[string]*cache.Informer[kube.ConfigMap]
	rms  map[string]*ringMember
	runs sync.WaitGroup
}

type takeoverRec struct {
	id string
	at time.Time
}

// start starts member id with a sharded informer and a controller.
func (tr *takeoverRing) start(id string) *ringMember {
	rm := tr.startMember(id)
	tr.mu.Lock()
	tr.rms[id] = rm
	tr.mu.Unlock()
	return rm
}

func (tr *takeoverRing) startMember(id string) *ringMember {
	t := tr.t
	return tr.ringTest.start(id, func(cfg *RingOptions) {
		cfg.LeaseDuration, cfg.RenewDeadline, cfg.RetryPeriod = takeoverLD, takeoverRD, takeoverRP
		// As the manager does: the claims waiting are shards about to be
		// added.
		pending := func() bool {
			tr.mu.Lock()
			rm := tr.rms[id]
			tr.mu.Unlock()
			return rm != nil && len(rm.m.Status().Claimed) > 0
		}
		inf, err := cache.NewInformer[kube.ConfigMap](cfg.Client, cache.InformerOptions{Sharded: true, SyncPeriod: -1, ShardsPending: pending})
		if err != nil {
			t.Fatal(err)
		}
		tr.mu.Lock()
		tr.infs[id] = inf
		tr.mu.Unlock()
		shards, err := controller.NewShards(inf.ObjectInformer().(controller.ShardedInformer))
		if err != nil {
			t.Fatal(err)
		}
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			tr.mu.Lock()
			tr.recs[req.Key] = append(tr.recs[req.Key], takeoverRec{id, time.Now()})
			tr.mu.Unlock()
			time.Sleep(takeoverWork)
			return controller.Result{}, nil
		})
		c, err := controller.New("configmaps-"+id, shards.Reconciler(r), controller.Options{MaxConcurrentReconciles: 1})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(shards); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		tr.stops = append(tr.stops, cancel)
		tr.runs.Go(func() { _ = inf.Start(ctx) })
		tr.runs.Go(func() { _ = c.Start(ctx) })
		cfg.Work = func(ctx context.Context, sel kube.ShardSelector) error {
			r := rangeOfSelector(sel)
			tr.open(id, r)
			tr.mu.Lock()
			tr.held[r.Index] = time.Now()
			tr.mu.Unlock()
			if err := shards.Work(ctx, sel); err != nil && ctx.Err() == nil {
				t.Errorf("%s: work on %s: %v", id, r, err)
			}
			tr.close(id, r)
			return nil
		}
	})
}

// rangeOf returns the range index of the object at k.
func (tr *takeoverRing) rangeOf(k kube.Key) int {
	return RangeOf(kube.ShardHash(tr.uids[k]), testRanges).Index
}

// TestRingTakeover kills one of three members and checks, for the
// objects of every range that moved (the dead member's, and those the new
// assignment moves between the survivors), that each is reconciled once
// by its new holder, not twice, and that the ranges are held within the
// bounds of the package doc. It logs when, after the kill, the ranges
// were held and their objects reconciled. KUBELOOP_MEASURE=1 runs it on
// 2,000 ConfigMaps instead of 600.
func TestRingTakeover(t *testing.T) {
	t.Parallel() // bubbles and servers of its own: beside the other ring tests
	objects := 600
	if os.Getenv("KUBELOOP_MEASURE") != "" {
		objects = 2000
	}
	for _, server := range []struct {
		name string
		opts kubetest.Options
	}{{"filtering", kubetest.Options{}}, {"gate-off", kubetest.Options{DisableShardedListAndWatch: true}}} {
		t.Run(server.name, func(t *testing.T) {
			t.Parallel() // a bubble and a server of its own
			synctest.Test(t, func(t *testing.T) { ringTakeover(t, server.opts, objects) })
		})
	}
}

// newTakeoverRing starts a server with objects ConfigMaps and the ring's
// harness for members ids; every request takes takeoverLatency.
func newTakeoverRing(t *testing.T, opts kubetest.Options, objects int, ids []string) *takeoverRing {
	tr := &takeoverRing{held: map[int]time.Time{}, recs: map[kube.Key][]takeoverRec{}, uids: map[kube.Key]string{},
		infs: map[string]*cache.Informer[kube.ConfigMap]{}, rms: map[string]*ringMember{}}
	t.Cleanup(func() {
		for _, stop := range tr.stops {
			stop()
		}
		tr.runs.Wait()
	})
	tr.ringTest = newRingTestOn(t, opts, 0, ids...)
	var err error
	if tr.admin, err = kube.NewClient(tr.srv.Config(), kube.ClientOptions{}); err != nil {
		t.Fatal(err)
	}
	for n := range objects {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprint("cm", n)}}
		if err := tr.admin.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
		tr.uids[cm.Key()] = string(cm.UID)
	}
	tr.srv.Delay(func(kubetest.RequestInfo) bool { return true }, takeoverLatency)
	return tr
}

func ringTakeover(t *testing.T, opts kubetest.Options, objects int) {
	ids := ringIDs(3)
	tr := newTakeoverRing(t, opts, objects, ids)
	var members []*ringMember
	for _, id := range ids {
		members = append(members, tr.start(id))
	}
	tr.waitSettled(ids, time.Minute)
	time.Sleep(time.Minute) // every object reconciled by its first holder
	synctest.Wait()

	// The ranges that move: m1's, and those the survivors swap.
	before, after := Assign(ids, testRanges), Assign([]string{ids[0], ids[2]}, testRanges)
	var dead, swapped, kept []int
	for i := range testRanges {
		switch {
		case before[i] == ids[1]:
			dead = append(dead, i)
		case before[i] != after[i]:
			swapped = append(swapped, i)
		default:
			kept = append(kept, i)
		}
	}
	var moved []kube.Key
	for k := range tr.uids {
		if !slices.Contains(kept, tr.rangeOf(k)) {
			moved = append(moved, k)
		}
	}

	tr.mu.Lock()
	clear(tr.recs)
	tr.mu.Unlock()
	killed := time.Now()
	members[1].kill()
	tr.stops[1]()
	tr.waitSettled([]string{ids[0], ids[2]}, time.Minute)
	time.Sleep(time.Minute)
	synctest.Wait()

	tr.mu.Lock()
	defer tr.mu.Unlock()
	heldBy := func(rs []int) (first, last time.Duration) {
		first = time.Hour
		for _, i := range rs {
			d := tr.held[i].Sub(killed)
			first, last = min(first, d), max(last, d)
		}
		return first, last
	}
	hf, hl := heldBy(dead)
	sf, sl := heldBy(swapped)
	owners := after
	twice, wrong := 0, 0
	recFirst, recLast := time.Hour, time.Duration(0)
	for _, k := range moved {
		recs := tr.recs[k]
		var mine []takeoverRec
		for _, r := range recs {
			if r.id == owners[tr.rangeOf(k)] && !r.at.Before(tr.held[tr.rangeOf(k)]) {
				mine = append(mine, r)
			}
		}
		switch {
		case len(mine) == 0:
			wrong++
			t.Errorf("%s, of range %d, not reconciled by its new holder %s after the kill: %v", k, tr.rangeOf(k), owners[tr.rangeOf(k)], recs)
			continue
		case len(mine) > 1:
			twice++
		}
		recFirst, recLast = min(recFirst, mine[0].at.Sub(killed)), max(recLast, mine[0].at.Sub(killed))
	}
	t.Logf("%d ConfigMaps; after m1's kill: its %d ranges held elsewhere %v to %v, the %d ranges the survivors swap %v to %v; "+
		"the %d objects moved first reconciled %v, last %v; %d reconciled more than once",
		objects, len(dead), hf, hl, len(swapped), sf, sl, len(moved), recFirst, recLast, twice)
	if twice > 0 {
		t.Errorf("%d of %d objects of the ranges moved reconciled more than once by their new holder, want each once", twice, len(moved))
	}
	// The bounds of the package doc; the drain is a reconcile in flight
	// and the informer's stop, which takes no fake time.
	if bound := takeoverLD + takeoverRP + 7*takeoverLatency; hl > bound {
		t.Errorf("m1's ranges held elsewhere %v after its kill, want within %v", hl, bound)
	}
	if bound := takeoverLD + takeoverRP + 9*takeoverLatency + takeoverRP/4 + takeoverWork; sl > bound {
		t.Errorf("the ranges the survivors swap held %v after m1's kill, want within %v", sl, bound)
	}
}

// TestRingJoinReads starts two members on a server that ignores the
// shard selector, then a third: the joining member reads the kind once,
// although the ranges it is assigned reach it over several steps, as
// their holders release them. KUBELOOP_MEASURE=1 runs it on 2,000
// ConfigMaps instead of 600.
func TestRingJoinReads(t *testing.T) {
	t.Parallel() // bubbles and servers of its own: beside the other ring tests
	objects := 600
	if os.Getenv("KUBELOOP_MEASURE") != "" {
		objects = 2000
	}
	synctest.Test(t, func(t *testing.T) {
		ids := ringIDs(3)
		tr := newTakeoverRing(t, kubetest.Options{DisableShardedListAndWatch: true}, objects, ids)
		for _, id := range ids[:2] {
			tr.start(id)
		}
		tr.waitSettled(ids[:2], time.Minute)
		time.Sleep(time.Minute)
		synctest.Wait()

		tr.srv.ResetCounts()
		tr.start(ids[2])
		tr.waitSettled(ids, time.Minute)
		time.Sleep(time.Minute)
		synctest.Wait()
		tr.mu.Lock()
		st := tr.infs[ids[2]].Stats()
		tr.mu.Unlock()
		received := st.Events + st.ShardDropped // no change since: every event is of a read
		reads := float64(received) / float64(objects)
		t.Logf("the joining member received %d objects, %.2f times the kind's %d, in %d WatchLists (%d lists)",
			received, reads, objects, tr.srv.Count("watch", "configmaps"), tr.srv.Count("list", "configmaps"))
		if reads > 1.1 {
			t.Errorf("the joining member read the kind %.2f times, want once", reads)
		}
	})
}
