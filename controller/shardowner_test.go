// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file runs three members of a sharded controller of ConfigMaps
// (the owners) that owns Secrets (each owner one, its dependent), with
// the hash space cut into ownedRanges ranges that the test hands from
// member to member as a ring would: a range's new holder starts its Work
// only after the old holder's Work has returned. Each member caches the
// Secrets metadata-only and unsharded, and watches them with
// Shards.EnqueueOwner.

const (
	ownedRanges = 6
	// ownedReconcileTime is how long each reconcile takes, so that
	// reconciles are in flight when ranges move.
	ownedReconcileTime = time.Second
)

// ownedMember is one member: its caches, its gate and its controller.
type ownedMember struct {
	id     string
	owners *cache.Informer[kube.ConfigMap]
	deps   *cache.Informer[kube.PartialObjectMetadata]
	shards *Shards
	ctl    *Controller
}

// ownedRing is the members, the ranges they hold and the ledgers of their
// reconciles.
type ownedRing struct {
	t     *testing.T
	srv   *kubetest.Server
	field kube.ShardField

	mu sync.Mutex
	// holder is the member holding each range, and works the cancel and
	// end of its Work.
	holder [ownedRanges]*ownedMember
	works  [ownedRanges]struct {
		cancel context.CancelFunc
		done   chan struct{}
	}
	// busy is the member reconciling each owner now; seen is the
	// resourceVersion of the owner's Secret each member's last reconcile
	// of it read; count counts each member's reconciles of each owner.
	busy  map[kube.Key]string
	seen  map[string]map[kube.Key]string
	count map[string]map[kube.Key]int
}

// rangeSel returns the selector of range i of ownedRanges.
func (or *ownedRing) rangeSel(i int) kube.ShardSelector {
	step := ^uint64(0)/ownedRanges + 1
	r := kube.HashRange{Start: uint64(i) * step, End: uint64(i+1) * step}
	if i == ownedRanges-1 {
		r.End = 0
	}
	return kube.ShardSelector{Field: or.field, Ranges: []kube.HashRange{r}}
}

// rangeOf returns the range the owner m falls in.
func (or *ownedRing) rangeOf(m *kube.ObjectMeta) int {
	for i := range ownedRanges {
		if or.rangeSel(i).ContainsHash(kube.ShardHash(or.field.ValueOf(m))) {
			return i
		}
	}
	panic("no range")
}

// startMember starts a member holding no range.
func (or *ownedRing) startMember(id string) *ownedMember {
	t := or.t
	c, err := or.srv.Client(kube.ClientOptions{FieldManager: id})
	if err != nil {
		t.Fatal(err)
	}
	m := &ownedMember{id: id}
	m.owners, err = cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{Sharded: true, SyncPeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	m.deps, err = cache.NewInformer[kube.PartialObjectMetadata](c, cache.InformerOptions{
		Kind: (&kube.Secret{}).GroupVersionKind(), SyncPeriod: -1})
	if err != nil {
		t.Fatal(err)
	}
	if m.shards, err = NewShards(m.owners.ObjectInformer().(ShardedInformer)); err != nil {
		t.Fatal(err)
	}
	m.ctl = mustNew(t, id, m.shards.Reconciler(ReconcilerFunc(func(ctx context.Context, req Request) (Result, error) {
		return or.reconcile(m, req)
	})), Options{MaxConcurrentReconciles: 3})
	mustWatch(t, m.ctl, m.shards)
	mustWatch(t, m.ctl, Kind(m.deps.ObjectInformer(), m.shards.EnqueueOwner(&kube.ConfigMap{}, OwnerOptions{OnlyController: true})))
	run(t, m.owners.Start)
	run(t, m.deps.Start)
	startController(t, m.ctl)
	return m
}

// reconcile is every member's reconciler: it fails the test if the member
// does not hold the owner's range or another member reconciles the owner
// now, takes ownedReconcileTime, and records the version of the owner's
// Secret it read.
func (or *ownedRing) reconcile(m *ownedMember, req Request) (Result, error) {
	owner, ok := m.owners.Get(req.Key)
	or.mu.Lock()
	if !ok {
		or.t.Errorf("%s reconciles %s, which its cache does not hold", m.id, req)
	} else if h := or.holder[or.rangeOf(&owner.ObjectMeta)]; h != m {
		or.t.Errorf("%s reconciles %s, whose range it does not hold", m.id, req)
	}
	if other := or.busy[req.Key]; other != "" {
		or.t.Errorf("%s reconciles %s while %s does", m.id, req, other)
	}
	or.busy[req.Key] = m.id
	or.mu.Unlock()
	time.Sleep(ownedReconcileTime)
	rv := ""
	if dep, ok := m.deps.Get(kube.Key{Namespace: req.Namespace, Name: "dep-" + req.Name}); ok {
		rv = dep.ResourceVersion
	}
	or.mu.Lock()
	delete(or.busy, req.Key)
	or.seen[m.id][req.Key] = rv
	or.count[m.id][req.Key]++
	or.mu.Unlock()
	return Result{}, nil
}

// give makes m hold range i: its Work starts.
func (or *ownedRing) give(i int, m *ownedMember) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	or.mu.Lock()
	or.holder[i] = m
	or.works[i].cancel, or.works[i].done = cancel, done
	or.mu.Unlock()
	go func() {
		defer close(done)
		if err := m.shards.Work(ctx, or.rangeSel(i)); err != nil {
			or.t.Errorf("%s: work on range %d: %v", m.id, i, err)
		}
	}()
}

// move hands range i to m: the holder's Work ends (its reconciles of the
// range in flight with it), then m's starts.
func (or *ownedRing) move(i int, m *ownedMember) {
	or.mu.Lock()
	w := or.works[i]
	or.mu.Unlock()
	w.cancel()
	<-w.done
	or.give(i, m)
}

// settle lets every reconcile queued run to its end.
func (or *ownedRing) settle() {
	time.Sleep(time.Minute)
	synctest.Wait()
}

// holderOf returns the member holding the range of owner k. Call with
// or.mu held.
func (or *ownedRing) holderOf(k kube.Key) *ownedMember {
	cm, err := or.srv.Get(configMaps, k.Namespace, k.Name)
	if err != nil {
		or.t.Fatal(err)
	}
	uid := cm["metadata"].(map[string]any)["uid"].(string)
	return or.holder[or.rangeOf(&kube.ObjectMeta{UID: uid, Namespace: k.Namespace})]
}

// checkHolders fails the test for each owner whose holder's last
// reconcile did not read its Secret's version on the server now.
func (or *ownedRing) checkHolders(owners []kube.Key) {
	or.t.Helper()
	or.mu.Lock()
	defer or.mu.Unlock()
	for _, k := range owners {
		dep, err := or.srv.Get(secrets, k.Namespace, "dep-"+k.Name)
		if err != nil {
			or.t.Fatal(err)
		}
		h := or.holderOf(k)
		want := dep["metadata"].(map[string]any)["resourceVersion"].(string)
		if got := or.seen[h.id][k]; got != want {
			or.t.Errorf("%s: its holder %s last read its Secret at version %q, want %q", k, h.id, got, want)
		}
	}
}

// touch changes the Secret of owner k (a label), as a change the
// controller must hear of.
func (or *ownedRing) touch(k kube.Key, n int) {
	dep, err := or.srv.Get(secrets, k.Namespace, "dep-"+k.Name)
	if err != nil {
		or.t.Fatal(err)
	}
	dep["metadata"].(map[string]any)["labels"] = map[string]any{"n": fmt.Sprint(n)}
	if _, err := or.srv.Update(secrets, dep); err != nil {
		or.t.Fatal(err)
	}
}

// TestShardsOwned runs three members of a sharded controller that owns a
// kind, sharded by uid (owners in one namespace) and by namespace (owners
// in eight, also on a server that ignores the selector): every change of an owned object reconciles its owner on the
// member holding the owner's range, and queues nothing on the others;
// ranges handed over while owned objects change leave no change
// unreconciled by the new holder; and no owner is ever reconciled by two
// members at once, nor by a member not holding its range.
func TestShardsOwned(t *testing.T) {
	for _, tc := range []struct {
		name       string
		field      kube.ShardField
		namespaces int
		server     kubetest.Options
	}{
		{"uid", kube.ShardByUID, 1, kubetest.Options{}},
		{"namespace", kube.ShardByNamespace, 8, kubetest.Options{}},
		{"namespace/gate-off", kube.ShardByNamespace, 8, kubetest.Options{DisableShardedListAndWatch: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { shardsOwned(t, tc.field, tc.namespaces, tc.server) })
		})
	}
}

func shardsOwned(t *testing.T, field kube.ShardField, namespaces int, opts kubetest.Options) {
	srv := kubetest.New(opts)
	t.Cleanup(srv.Close)
	// Every ConfigMap is an owner: start without the one every server
	// holds.
	if err := srv.Delete(configMaps, "kube-system", "kube-apiserver-legacy-service-account-token-tracking"); err != nil {
		t.Fatal(err)
	}
	or := &ownedRing{t: t, srv: srv, field: field, busy: map[kube.Key]string{},
		seen: map[string]map[kube.Key]string{}, count: map[string]map[kube.Key]int{}}
	var owners []kube.Key
	for n := range 24 {
		ns := "default"
		if namespaces > 1 {
			// FNV-1a mixes a string's last bytes little: ns0 … ns7 all
			// hash into one range of six. These spread.
			ns = fmt.Sprintf("tenant-%d-prod", n%namespaces)
			if n < namespaces {
				if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"},
					map[string]any{"metadata": map[string]any{"name": ns}}); err != nil {
					t.Fatal(err)
				}
			}
		}
		name := fmt.Sprint("own", n)
		o := createCM(t, srv, cm{ns: ns, name: name})
		uid := o["metadata"].(map[string]any)["uid"].(string)
		ref := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": name, "uid": uid, "controller": true}
		if _, err := srv.Create(secrets, map[string]any{"metadata": map[string]any{
			"namespace": ns, "name": "dep-" + name, "ownerReferences": []any{ref}}}); err != nil {
			t.Fatal(err)
		}
		owners = append(owners, kube.Key{Namespace: ns, Name: name})
	}
	var members []*ownedMember
	for _, id := range []string{"m0", "m1", "m2"} {
		or.seen[id], or.count[id] = map[kube.Key]string{}, map[kube.Key]int{}
		members = append(members, or.startMember(id))
	}
	for i := range ownedRanges {
		or.give(i, members[i%len(members)])
	}
	or.settle()
	or.checkHolders(owners)

	// Each owned change: its owner reconciled by its holder alone, and
	// queued nowhere else.
	adds := map[string]uint64{}
	for _, m := range members {
		adds[m.id] = m.ctl.Metrics().Queue.AddsTotal
	}
	or.mu.Lock()
	before := map[string]map[kube.Key]int{}
	for id, c := range or.count {
		before[id] = map[kube.Key]int{}
		for k, n := range c {
			before[id][k] = n
		}
	}
	or.mu.Unlock()
	for n, k := range owners {
		or.touch(k, n)
	}
	or.settle()
	or.checkHolders(owners)
	or.mu.Lock()
	held := map[string]int{}
	for _, k := range owners {
		h := or.holderOf(k)
		held[h.id]++
		for _, m := range members {
			got := or.count[m.id][k] - before[m.id][k]
			switch {
			case m == h && got == 0:
				t.Errorf("%s: its Secret changed, its holder %s did not reconcile it", k, m.id)
			case m != h && got != 0:
				t.Errorf("%s: its Secret changed, %s, not its holder, reconciled it %d times", k, m.id, got)
			}
		}
	}
	or.mu.Unlock()
	for _, m := range members {
		if held[m.id] == 0 {
			t.Errorf("%s holds no owner: the test needs each member to hold some", m.id)
		}
		if got := m.ctl.Metrics().Queue.AddsTotal - adds[m.id]; got > uint64(held[m.id]) {
			t.Errorf("%s holds %d owners, one Secret changed each: %d requests queued, want at most %d (requests of owners held elsewhere queued)",
				m.id, held[m.id], got, held[m.id])
		}
	}

	// Handovers while Secrets change and reconciles are in flight.
	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Go(func() {
		rng := rand.New(rand.NewPCG(19, 3))
		for n := 100; ; n++ {
			select {
			case <-stop:
				return
			case <-time.After(150 * time.Millisecond):
			}
			or.touch(owners[rng.IntN(len(owners))], n)
		}
	})
	for round := 1; round <= 3; round++ {
		for i := range ownedRanges {
			or.move(i, members[(i+round)%len(members)])
			time.Sleep(400 * time.Millisecond)
		}
	}
	or.move(0, members[1]) // m1 holds three ranges, m0 one
	close(stop)
	writer.Wait()
	or.settle()
	or.checkHolders(owners)

	for i := range ownedRanges { // end every Work before the members stop
		or.mu.Lock()
		w := or.works[i]
		or.mu.Unlock()
		w.cancel()
		<-w.done
	}
}
