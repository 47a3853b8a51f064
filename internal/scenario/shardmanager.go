// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/leader"
	"github.com/kubeloop/kubeloop/manager"
)

// testShardedManagers runs two managers with Options.Sharding, each with a
// ConfigMap controller the builder makes: every ConfigMap of the scenario
// is reconciled by the member holding its range, never by two at once;
// one manager stopped gracefully hands its ranges to the other, which
// then reconciles them all.
func testShardedManagers(t *testing.T, f *fixture) {
	const ranges = 8
	label := map[string]string{"kubeloop.dev/sharded-managers": f.ns}
	for i := range 24 {
		f.mustCreate(t, f.configMap(fmt.Sprintf("sm-%02d", i), label, nil))
	}
	var mu sync.Mutex
	busy := map[string]string{}        // name → the member reconciling it now
	by := map[string]map[string]bool{} // name → who reconciled it since reset
	mine := controller.ObjectFilter(func(obj kube.Object) bool {
		return obj.GetObjectMeta().Namespace == f.ns
	})
	reconciler := func(id string) controller.Reconciler {
		return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			if req.Namespace != f.ns { // Work queues every object of a shard taken over
				return controller.Result{}, nil
			}
			mu.Lock()
			if other := busy[req.Name]; other != "" {
				t.Errorf("%s reconciles %s while %s does", id, req.Name, other)
			}
			busy[req.Name] = id
			if by[req.Name] == nil {
				by[req.Name] = map[string]bool{}
			}
			by[req.Name][id] = true
			mu.Unlock()
			time.Sleep(20 * time.Millisecond)
			mu.Lock()
			delete(busy, req.Name)
			mu.Unlock()
			return controller.Result{}, nil
		})
	}
	type member struct {
		id   string
		m    *manager.Manager
		stop context.CancelFunc
		done chan error
	}
	var members []*member
	for _, id := range []string{"a", "b"} {
		m, err := manager.New(f.env.Config, manager.Options{
			MetricsBindAddress: "0",
			Sharding: manager.ShardingOptions{Ring: "scenario", Namespace: f.ns, Identity: id, Ranges: ranges,
				LeaseDuration: 6 * time.Second, RenewDeadline: 4 * time.Second, RetryPeriod: time.Second},
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := controller.NewBuilder(m).For(&kube.ConfigMap{}, mine).Sharded().Complete(reconciler(id)); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(f.ctx)
		mb := &member{id: id, m: m, stop: cancel, done: make(chan error, 1)}
		go func() { mb.done <- m.Start(ctx) }()
		t.Cleanup(func() { cancel(); <-mb.done })
		members = append(members, mb)
	}
	uids := map[string]string{}
	var list kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, LabelSelector: kube.SelectorFromSet(label)}); err != nil {
		t.Fatal(err)
	}
	for _, cm := range list.Items {
		uids[cm.Name] = cm.UID
	}
	// reconciledByHolders checks that every ConfigMap was reconciled
	// since the last reset by the member holding its range, alone, and
	// that live hold every range between them.
	reconciledByHolders := func(live []*member) error {
		holder := make([]string, ranges)
		for _, mb := range live {
			s, _ := mb.m.RingStatus()
			if !slices.Equal(s.Assigned, s.Held) || len(s.Members) != len(live) {
				return fmt.Errorf("%s: %d members, assigned %v, held %v", mb.id, len(s.Members), s.Assigned, s.Held)
			}
			for _, r := range s.Held {
				holder[r.Index] = mb.id
			}
		}
		mu.Lock()
		defer mu.Unlock()
		for name, uid := range uids {
			want := holder[leader.RangeOf(kube.ShardHash(uid), ranges).Index]
			if got := by[name]; len(got) != 1 || !got[want] {
				return fmt.Errorf("%s reconciled by %v, want by %q alone", name, got, want)
			}
		}
		return nil
	}
	rounds := 0
	touch := func(round string) {
		rounds++
		round = fmt.Sprint(round, rounds) // a patch that changes nothing is no event
		mu.Lock()
		clear(by)
		mu.Unlock()
		for name := range uids {
			if err := f.c.Patch(f.ctx, f.configMap(name, nil, nil), kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"data":{"round":%q}}`, round)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	f.eventually(t, "two members hold the ranges", func() error {
		touch("start")
		time.Sleep(time.Second)
		return reconciledByHolders(members)
	})
	members[1].stop()
	if err := <-members[1].done; err != nil {
		t.Errorf("stop b: %v", err)
	}
	members[1].done <- nil // for the cleanup
	f.eventually(t, "a holds every range once b stopped", func() error {
		touch("b stopped")
		time.Sleep(time.Second)
		return reconciledByHolders(members[:1])
	})
}
