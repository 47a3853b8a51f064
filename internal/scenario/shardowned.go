// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
)

// ownedMember is one member of testShardedOwned's sharded controller: a
// sharded informer of the owner ConfigMaps and an unsharded metadata-only
// informer of their Secrets, both limited to the fixture's namespace.
type ownedMember struct {
	name   string
	owners *cache.Informer[kube.ConfigMap]
	deps   *cache.Informer[kube.PartialObjectMetadata]
	shards *controller.Shards
	ctl    *controller.Controller
	done   sync.WaitGroup
}

// ownedLedger records every member's reconciles of the owners.
type ownedLedger struct {
	mu   sync.Mutex
	busy map[kube.Key]string // the member reconciling each owner now
	// seen is the Secret version each member's last reconcile of each
	// owner read; count counts each member's reconciles of each owner.
	seen  map[string]map[kube.Key]string
	count map[string]map[kube.Key]int
	errs  []string
}

// testShardedOwned runs a sharded controller of ConfigMaps that owns
// Secrets, as two members in one process: each holds a half of the hash
// space by uid, through an informer limited to the fixture's namespace (a
// watch per shard and namespace). Every Secret changed reconciles its
// owner on the member holding the owner's half alone; after the low half
// moves from a to b, every Secret changed reconciles its owner on b. On
// the real server the sharded watches are filtered by the server; the
// Secrets are watched unsharded.
func testShardedOwned(t *testing.T, f *fixture) {
	var owners []kube.Key
	for i := range 16 {
		owner := f.configMap(fmt.Sprintf("so-%02d", i), nil, nil)
		f.mustCreate(t, owner)
		yes := true
		f.mustCreate(t, &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: f.ns, Name: owner.Name,
			OwnerReferences: []kube.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, Controller: &yes}}}})
		owners = append(owners, owner.ObjectMeta.Key())
	}
	low := kube.ShardSelector{Ranges: []kube.HashRange{{End: 1 << 63}}}
	high := kube.ShardSelector{Ranges: []kube.HashRange{{Start: 1 << 63}}}
	l := &ownedLedger{busy: map[kube.Key]string{}, seen: map[string]map[kube.Key]string{}, count: map[string]map[kube.Key]int{}}
	a, b := f.ownedMember(t, "a", l), f.ownedMember(t, "b", l)

	type work struct {
		cancel context.CancelFunc
		done   chan struct{}
	}
	hold := func(m *ownedMember, sel kube.ShardSelector) work {
		ctx, cancel := context.WithCancel(f.ctx)
		w := work{cancel, make(chan struct{})}
		go func() {
			defer close(w.done)
			if err := m.shards.Work(ctx, sel); err != nil && ctx.Err() == nil {
				t.Errorf("%s: work on %s: %v", m.name, sel, err)
			}
		}()
		return w
	}
	aLow, bHigh := hold(a, low), hold(b, high)
	defer func() { bHigh.cancel(); <-bHigh.done }()

	holders := func(lowHolder *ownedMember) map[kube.Key]*ownedMember {
		out := map[kube.Key]*ownedMember{}
		var in int
		for _, k := range owners {
			var cm kube.ConfigMap
			if err := f.c.Get(f.ctx, k, &cm); err != nil {
				t.Fatal(err)
			}
			out[k] = b
			if low.Matches(&cm) {
				out[k] = lowHolder
				in++
			}
		}
		if in == 0 || in == len(owners) {
			t.Fatalf("%d owners of %d in the low half: the scenario needs some in each half", in, len(owners))
		}
		return out
	}
	// touch changes every Secret, then waits until each owner's holder has
	// reconciled it having read the new version, and checks that no other
	// member reconciled it since the change.
	touch := func(round string, holder map[kube.Key]*ownedMember) {
		t.Helper()
		l.mu.Lock()
		before := map[string]map[kube.Key]int{}
		for id, c := range l.count {
			before[id] = map[kube.Key]int{}
			for k, n := range c {
				before[id][k] = n
			}
		}
		l.mu.Unlock()
		want := map[kube.Key]string{}
		for _, k := range owners {
			s := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: k.Namespace, Name: k.Name}}
			if err := f.c.Patch(f.ctx, s, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"round":"` + round + `"}}}`)}); err != nil {
				t.Fatal(err)
			}
			want[k] = s.ResourceVersion
		}
		f.eventually(t, round+": every owner reconciled by its holder after its Secret changed", func() error {
			l.mu.Lock()
			defer l.mu.Unlock()
			for _, k := range owners {
				if got := l.seen[holder[k].name][k]; got != want[k] {
					return fmt.Errorf("%s: its holder %s last read its Secret at %q, want %q", k, holder[k].name, got, want[k])
				}
			}
			return nil
		})
		l.mu.Lock()
		defer l.mu.Unlock()
		for _, k := range owners {
			for _, m := range []*ownedMember{a, b} {
				if n := l.count[m.name][k] - before[m.name][k]; m != holder[k] && n != 0 {
					t.Errorf("%s: round %s: reconciled %d times by %s, which does not hold it", k, round, n, m.name)
				}
			}
		}
		for _, e := range l.errs {
			t.Error(e)
		}
		l.errs = nil
	}

	touch("1", holders(a))
	aLow.cancel() // the low half moves to b: a's Work returns first
	<-aLow.done
	bLow := hold(b, low)
	defer func() { bLow.cancel(); <-bLow.done }()
	touch("2", holders(b))
}

// ownedMember starts a member of testShardedOwned's controller, which
// records its reconciles in l; it stops when the test ends.
func (f *fixture) ownedMember(t *testing.T, name string, l *ownedLedger) *ownedMember {
	t.Helper()
	m := &ownedMember{name: name}
	l.seen[name], l.count[name] = map[kube.Key]string{}, map[kube.Key]int{}
	var err error
	if m.owners, err = cache.NewInformer[kube.ConfigMap](f.c, cache.InformerOptions{Sharded: true, Namespaces: []string{f.ns}}); err != nil {
		t.Fatal(err)
	}
	if m.deps, err = cache.NewInformer[kube.PartialObjectMetadata](f.c, cache.InformerOptions{
		Kind: (&kube.Secret{}).GroupVersionKind(), Namespaces: []string{f.ns}}); err != nil {
		t.Fatal(err)
	}
	if m.shards, err = controller.NewShards(m.owners.ObjectInformer().(controller.ShardedInformer)); err != nil {
		t.Fatal(err)
	}
	r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		l.mu.Lock()
		if other := l.busy[req.Key]; other != "" {
			l.errs = append(l.errs, fmt.Sprintf("%s reconciles %s while %s does", name, req, other))
		}
		l.busy[req.Key] = name
		l.mu.Unlock()
		rv := ""
		if dep, ok := m.deps.Get(req.Key); ok {
			rv = dep.ResourceVersion
		}
		l.mu.Lock()
		delete(l.busy, req.Key)
		l.seen[name][req.Key] = rv
		l.count[name][req.Key]++
		l.mu.Unlock()
		return controller.Result{}, nil
	})
	if m.ctl, err = controller.New("owned-"+name, m.shards.Reconciler(r), controller.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, src := range []controller.Source{m.shards, controller.Kind(m.deps.ObjectInformer(),
		m.shards.EnqueueOwner(&kube.ConfigMap{}, controller.OwnerOptions{OnlyController: true}))} {
		if err := m.ctl.Watch(src); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(f.ctx)
	m.done.Go(func() { _ = m.owners.Start(ctx) })
	m.done.Go(func() { _ = m.deps.Start(ctx) })
	m.done.Go(func() {
		if err := m.ctl.Start(ctx); err != nil {
			t.Errorf("%s: controller: %v", name, err)
		}
	})
	t.Cleanup(func() { cancel(); m.done.Wait() })
	return m
}
