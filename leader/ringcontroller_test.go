// SPDX-License-Identifier: Apache-2.0

package leader

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file drives real controllers on a ring: each member runs a sharded
// informer of ConfigMaps and a controller gated by controller.Shards, whose
// Work is the member's. The reconciler writes its member's id into the
// ConfigMap's ownerAnnotation; a ledger of reconciles fails the test the
// instant two members reconcile one ConfigMap at once, and the range
// ledger of ringharness_test.go the instant two hold one range.

const (
	ownerAnnotation = "kubeloop.dev/reconciled-by"
	// reconcileTime is how long each reconcile takes, so that reconciles
	// are in flight when ranges move; slowReconcileTime is how long it
	// takes for the ConfigMaps whose name ends in 7, longer than a
	// handover: a member that handed a range over before its reconciles
	// of it ended would be caught.
	reconcileTime     = 300 * time.Millisecond
	slowReconcileTime = 20 * time.Second
)

// ctrlTest is a ring whose members run controllers.
type ctrlTest struct {
	*ringTest
	admin *kube.Client

	mu         sync.Mutex
	busy       map[kube.Key]string // the member reconciling each ConfigMap now
	reconciles int

	stops map[string]context.CancelFunc // of each member's informer and controller
	runs  sync.WaitGroup                // the informers and controllers
}

func newCtrlTest(t *testing.T, opts kubetest.Options, ids ...string) *ctrlTest {
	ct := &ctrlTest{busy: map[kube.Key]string{}, stops: map[string]context.CancelFunc{}}
	t.Cleanup(ct.stop) // after the ring's shutdown, registered next
	ct.ringTest = newRingTestOn(t, opts, 0, ids...)
	var err error
	if ct.admin, err = kube.NewClient(ct.srv.Config(), kube.ClientOptions{}); err != nil {
		t.Fatal(err)
	}
	return ct
}

// stop ends every member's informer and controller and waits for them.
func (ct *ctrlTest) stop() {
	for _, stop := range ct.stops {
		stop()
	}
	ct.runs.Wait()
}

// startCtl starts member id with its informer and controller, which reach
// the server through the member's link.
func (ct *ctrlTest) startCtl(id string) *ringMember {
	t := ct.t
	return ct.start(id, func(cfg *RingOptions) {
		client := cfg.Client
		inf, err := cache.NewInformer[kube.ConfigMap](client, cache.InformerOptions{Sharded: true})
		if err != nil {
			t.Fatal(err)
		}
		shards, err := controller.NewShards(inf.ObjectInformer().(controller.ShardedInformer))
		if err != nil {
			t.Fatal(err)
		}
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			return ct.reconcile(ctx, id, client, inf, req)
		})
		c, err := controller.New("configmaps-"+id, shards.Reconciler(r), controller.Options{MaxConcurrentReconciles: 4})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Watch(shards); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		ct.stops[id] = cancel
		ct.runs.Go(func() { _ = inf.Start(ctx) })
		ct.runs.Go(func() {
			if err := c.Start(ctx); err != nil {
				t.Errorf("%s: controller: %v", id, err)
			}
		})
		cfg.Work = func(ctx context.Context, sel kube.ShardSelector) error {
			r := rangeOfSelector(sel)
			ct.open(id, r)
			if err := shards.Work(ctx, sel); err != nil && ctx.Err() == nil {
				t.Errorf("%s: work on %s: %v", id, r, err)
			}
			ct.close(id, r)
			return nil
		}
	})
}

// kill ends rm as SIGKILL would (see ringMember.kill), its informer and
// controller with it: its reconciles in flight end at once.
func (ct *ctrlTest) kill(rm *ringMember) {
	rm.kill()
	ct.stops[rm.id]()
}

// reconcile is every member's reconciler: it fails the test if another
// member reconciles the ConfigMap now, takes reconcileTime (or
// slowReconcileTime), and writes its
// id into the ConfigMap unless there already.
func (ct *ctrlTest) reconcile(ctx context.Context, id string, client *kube.Client, inf *cache.Informer[kube.ConfigMap], req controller.Request) (controller.Result, error) {
	ct.mu.Lock()
	if other := ct.busy[req.Key]; other != "" {
		ct.t.Errorf("at +%v: %s reconciles %s while %s does", ct.since(), id, req.Key, other)
	}
	ct.busy[req.Key] = id
	ct.reconciles++
	ct.mu.Unlock()
	defer func() {
		ct.mu.Lock()
		if ct.busy[req.Key] == id {
			delete(ct.busy, req.Key)
		}
		ct.mu.Unlock()
	}()
	d := reconcileTime
	if strings.HasSuffix(req.Name, "7") {
		d = slowReconcileTime
	}
	select {
	case <-time.After(d):
	case <-ctx.Done(): // the member was killed
		return controller.Result{}, ctx.Err()
	}
	cm, ok := inf.Get(req.Key)
	if !ok || cm.Annotations[ownerAnnotation] == id {
		return controller.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[ownerAnnotation] = id
	return controller.Result{}, client.Update(ctx, cm)
}

// misowned returns the ConfigMaps whose annotation does not name the
// member holding their range now, as "key: annotation, holder".
func (ct *ctrlTest) misowned() []string {
	var list kube.List[kube.ConfigMap]
	if err := ct.admin.List(context.Background(), &list, kube.ListOptions{Namespace: "default"}); err != nil {
		ct.t.Fatal(err)
	}
	ct.ringTest.mu.Lock()
	defer ct.ringTest.mu.Unlock()
	var out []string
	for _, cm := range list.Items {
		h := ct.holder[RangeOf(kube.ShardHash(cm.UID), testRanges).Index]
		if got := cm.Annotations[ownerAnnotation]; got != h || h == "" {
			out = append(out, fmt.Sprintf("%s: %q, held by %q", cm.Name, got, h))
		}
	}
	return out
}

// waitOwned advances fake time in steps of a second until every ConfigMap
// names the holder of its range, and returns how long that took (to the
// second); it fails the test after limit. Each step lists every ConfigMap:
// a finer step would spend the test's time listing.
func (ct *ctrlTest) waitOwned(limit time.Duration) time.Duration {
	ct.t.Helper()
	start := time.Now()
	for time.Since(start) <= limit {
		if len(ct.misowned()) == 0 {
			return time.Since(start)
		}
		time.Sleep(time.Second)
	}
	ct.t.Fatalf("at +%v: not every ConfigMap reconciled by its holder within %v: %v", ct.since(), limit, ct.misowned())
	return 0
}

// TestRingControllers runs controllers of ConfigMaps on a ring of three
// members through a death, a join and a graceful leave, on a server that
// filters by shard and on one that ignores the selector, while another
// writer changes ConfigMaps all along. The ledgers fail the test the
// instant two members hold one range or reconcile one ConfigMap at once;
// after each change every ConfigMap has been reconciled by the member that
// holds its range now.
func TestRingControllers(t *testing.T) {
	t.Parallel() // bubbles and servers of its own: beside the other ring tests
	for _, server := range []struct {
		name string
		opts kubetest.Options
	}{{"filtering", kubetest.Options{}}, {"gate-off", kubetest.Options{DisableShardedListAndWatch: true}}} {
		t.Run(server.name, func(t *testing.T) {
			t.Parallel() // a bubble and a server of its own
			synctest.Test(t, func(t *testing.T) { ringControllers(t, server.opts) })
		})
	}
}

func ringControllers(t *testing.T, opts kubetest.Options) {
	ids := ringIDs(4)
	ct := newCtrlTest(t, opts, ids...)
	const objects = 120
	for n := range objects {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprint("cm", n)}}
		if err := ct.admin.Create(context.Background(), cm); err != nil {
			t.Fatal(err)
		}
	}
	writing := make(chan struct{})
	var writer sync.WaitGroup
	defer writer.Wait()
	defer close(writing)
	writer.Go(func() { ct.write(writing, objects) })

	var members []*ringMember
	for _, id := range ids[:3] {
		members = append(members, ct.startCtl(id))
	}
	phase := func(what string, live []string, limit time.Duration) {
		t.Helper()
		settled := ct.waitSettled(live, limit)
		owned := ct.waitOwned(2 * time.Minute)
		gaps := ct.takeGaps()
		t.Logf("%s: ranges settled on %v in %v, every object reconciled by its holder %v later; %d handovers, the longest %v",
			what, live, settled, owned, len(gaps), slices.Max(append(gaps, 0)))
	}
	phase("start", ids[:3], 2*retry+slowReconcileTime)

	ct.kill(members[1])
	phase("m1 killed", []string{ids[0], ids[2]}, lease+2*retry+slowReconcileTime)

	ct.startCtl(ids[3])
	phase("m3 joined", []string{ids[0], ids[2], ids[3]}, 2*retry+slowReconcileTime)

	if err := members[0].leave(); err != nil {
		t.Errorf("m0 leave: %v", err)
	}
	phase("m0 left", []string{ids[2], ids[3]}, 2*retry+slowReconcileTime)

	ct.mu.Lock()
	t.Logf("%d reconciles", ct.reconciles)
	ct.mu.Unlock()
}

// write changes a random ConfigMap every 100ms until stop is closed: the
// members are always busy, with reconciles in flight when ranges move.
func (ct *ctrlTest) write(stop <-chan struct{}, objects int) {
	rng := rand.New(rand.NewPCG(19, 2))
	for n := 0; ; n++ {
		select {
		case <-stop:
			return
		case <-time.After(100 * time.Millisecond):
		}
		var cm kube.ConfigMap
		key := kube.Key{Namespace: "default", Name: fmt.Sprint("cm", rng.IntN(objects))}
		if ct.admin.Get(context.Background(), key, &cm) != nil {
			continue
		}
		cm.Data = map[string]string{"n": fmt.Sprint(n)}
		_ = ct.admin.Update(context.Background(), &cm) // a conflict with a member is fine
	}
}
