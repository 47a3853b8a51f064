// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"fmt"
	"maps"
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
	"github.com/kubeloop/kubeloop/leader"
)

// This file runs sharded controllers through the manager's Sharding
// option: several managers on one server, each with a controller the
// builder makes with For and Sharded, share the ConfigMaps. A ledger of reconciles
// fails the test the instant two managers reconcile one ConfigMap at once.

const (
	shardRanges    = 16
	shardReconcile = 300 * time.Millisecond
)

// shardLedger records who reconciles what.
type shardLedger struct {
	t       *testing.T
	mu      sync.Mutex
	busy    map[kube.Key]string          // the manager reconciling each key now
	by      map[kube.Key]map[string]bool // who reconciled each key since reset
	blocked map[kube.Key]chan struct{}   // reconciles of these keys wait for the channel
}

func newShardLedger(t *testing.T) *shardLedger {
	return &shardLedger{t: t, busy: map[kube.Key]string{}, by: map[kube.Key]map[string]bool{}, blocked: map[kube.Key]chan struct{}{}}
}

func (l *shardLedger) reconciler(id string) controller.Reconciler {
	return controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		l.mu.Lock()
		if other := l.busy[req.Key]; other != "" {
			l.t.Errorf("%s reconciles %s while %s does", id, req.Key, other)
		}
		l.busy[req.Key] = id
		if l.by[req.Key] == nil {
			l.by[req.Key] = map[string]bool{}
		}
		l.by[req.Key][id] = true
		block := l.blocked[req.Key]
		l.mu.Unlock()
		time.Sleep(shardReconcile)
		if block != nil {
			<-block
		}
		l.mu.Lock()
		delete(l.busy, req.Key)
		l.mu.Unlock()
		return controller.Result{}, nil
	})
}

func (l *shardLedger) reset() {
	l.mu.Lock()
	clear(l.by)
	l.mu.Unlock()
}

// newShardServer starts a server holding n ConfigMaps in default, and a
// ledger.
func newShardServer(t *testing.T, n int) (*kubetest.Server, *shardLedger) {
	srv := newServer(t)
	for i := range n {
		createCM(t, srv, "default", fmt.Sprint("cm", i))
	}
	return srv, newShardLedger(t)
}

// shardMember is one manager of the ring.
type shardMember struct {
	id  string
	m   *Manager
	run *running
}

// newShardMember makes a manager of the ring with a sharded ConfigMap
// controller, its options edited by edit when not nil.
func newShardMember(t *testing.T, srv *kubetest.Server, l *shardLedger, id string, edit ...func(*Options)) *shardMember {
	t.Helper()
	m := newTestManager(t, srv, func(o *Options) {
		o.Sharding = ShardingOptions{Ring: "cms", Namespace: "default", Identity: id, Ranges: shardRanges}
		o.GracefulShutdownTimeout = time.Minute
		for _, e := range edit {
			e(o)
		}
	})
	if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Sharded().WithOptions(controller.Options{MaxConcurrentReconciles: 4}).Complete(l.reconciler(id)); err != nil {
		t.Fatal(err)
	}
	return &shardMember{id: id, m: m}
}

// uids returns the uid of every ConfigMap of default by key.
func uids(t *testing.T, srv *kubetest.Server) map[kube.Key]string {
	t.Helper()
	c, err := kube.NewClient(testConfig(srv), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var list kube.List[kube.ConfigMap]
	if err := c.List(context.Background(), &list, kube.ListOptions{Namespace: "default"}); err != nil {
		t.Fatal(err)
	}
	out := map[kube.Key]string{}
	for _, cm := range list.Items {
		out[cm.Key()] = cm.UID
	}
	return out
}

// patchAll sets data.round of every ConfigMap of default, and returns
// their uids by key.
func patchAll(t *testing.T, srv *kubetest.Server, round string) map[kube.Key]string {
	t.Helper()
	c, err := kube.NewClient(testConfig(srv), kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ids := uids(t, srv)
	for k := range ids {
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: k.Namespace, Name: k.Name}}
		if err := c.Patch(context.Background(), cm, kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"data":{"round":%q}}`, round)}); err != nil {
			t.Fatal(err)
		}
	}
	return ids
}

// holders returns the member holding each range, failing the test if two
// hold one; "" for a range nobody holds.
func holders(t *testing.T, members []*shardMember) []string {
	out := make([]string, shardRanges)
	for _, sm := range members {
		for _, r := range sm.m.ring.status().Held {
			if out[r.Index] != "" {
				t.Errorf("range %s held by %s and %s", r, out[r.Index], sm.id)
			}
			out[r.Index] = sm.id
		}
	}
	return out
}

// settled waits until the members hold every range between them and each
// holds all it is assigned, and returns how long that took.
func settled(t *testing.T, members []*shardMember, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for time.Since(start) <= limit {
		ok := !slices.Contains(holders(t, members), "")
		for _, sm := range members {
			s := sm.m.ring.status()
			ok = ok && len(s.Members) == len(members) && slices.Equal(s.Assigned, s.Held)
		}
		if ok {
			return time.Since(start)
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("ranges not settled on %d members within %v: %v", len(members), limit, holders(t, members))
	return 0
}

// touchAll changes every ConfigMap, waits for the reconciles, and checks
// each was reconciled by exactly one member: the holder of its range.
func touchAll(t *testing.T, srv *kubetest.Server, l *shardLedger, members []*shardMember, round int) {
	t.Helper()
	l.reset()
	ids := patchAll(t, srv, fmt.Sprint(round))
	time.Sleep(30 * time.Second) // 45 reconciles of 300ms, 4 at a time, at most
	synctest.Wait()
	byHolders(t, l, members, ids, fmt.Sprintf("round %d: %%s reconciled by %%v, want by its holder %%q alone", round))
}

// byHolders fails the test (with format, given the key, who reconciled it
// and its holder) for each ConfigMap of ids (their uids by key) that was
// not reconciled by the holder of its range alone since the ledger's
// reset.
func byHolders(t *testing.T, l *shardLedger, members []*shardMember, ids map[kube.Key]string, format string) {
	t.Helper()
	own := holders(t, members)
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, k := range slices.SortedFunc(maps.Keys(ids), func(a, b kube.Key) int { return strings.Compare(a.Name, b.Name) }) {
		want := own[leader.RangeOf(kube.ShardHash(ids[k]), shardRanges).Index]
		if got := slices.Sorted(maps.Keys(l.by[k])); !slices.Equal(got, []string{want}) {
			t.Errorf(format, k, got, want)
		}
	}
}

// TestShardedManagers runs three managers with Sharding on one server: each
// ConfigMap is reconciled by exactly one of them, never by two at once; a
// manager stopped gracefully hands its ranges over within RetryPeriod
// plus its reconciles in flight, and its Lease is gone.
func TestShardedManagers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newShardServer(t, 90)
		var members []*shardMember
		for _, id := range []string{"m0", "m1", "m2"} {
			sm := newShardMember(t, srv, l, id)
			sm.run = start(t, sm.m)
			members = append(members, sm)
		}
		t.Logf("start: settled in %v", settled(t, members, time.Minute))
		touchAll(t, srv, l, members, 1)

		fams := scrape(t, members[0].m)
		if s, ok := sample(fams, "kubeloop_ring_members", "ring", "cms"); !ok || s.Value != 3 {
			t.Errorf("kubeloop_ring_members = %v (found %v), want 3", s.Value, ok)
		}
		var held, objects float64
		for _, sm := range members {
			fams := scrape(t, sm.m)
			h, _ := sample(fams, "kubeloop_ring_ranges", "ring", "cms", "state", "held")
			a, _ := sample(fams, "kubeloop_ring_ranges", "ring", "cms", "state", "assigned")
			o, _ := sample(fams, "kubeloop_ring_objects", "ring", "cms", "kind", "ConfigMap")
			if h.Value != a.Value || h.Value == 0 {
				t.Errorf("%s: %v ranges held, %v assigned, want as many, not 0", sm.id, h.Value, a.Value)
			}
			held += h.Value
			objects += o.Value
			if code, body := get(sm.m.readyz, "/ring"); code != 200 {
				t.Errorf("%s: readyz/ring = %d %q once settled", sm.id, code, body)
			}
		}
		if held != shardRanges || objects != 90 {
			t.Errorf("the members hold %v ranges and cache %v ConfigMaps between them, want %d and 90", held, objects, shardRanges)
		}

		// Stop m1 with reconciles in flight: changes of every ConfigMap
		// are queued on every member.
		patchAll(t, srv, "stop")
		time.Sleep(shardReconcile / 2)
		stopped := time.Now()
		if err := members[1].run.stop(); err != nil {
			t.Errorf("stop m1: %v", err)
		}
		t.Logf("m1 stopped in %v", time.Since(stopped))
		rest := []*shardMember{members[0], members[2]}
		took := time.Since(stopped) + settled(t, rest, time.Minute)
		if limit := 2*time.Second + 2*shardReconcile + time.Second; took > limit {
			t.Errorf("m1's ranges moved in %v after its stop began, want within %v (RetryPeriod plus the reconciles in flight)", took, limit)
		}
		if _, err := srv.Get(kube.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"},
			"default", leader.MemberLeaseName("cms", "m1")); err == nil {
			t.Error("m1's Lease is still there after its graceful stop")
		}
		touchAll(t, srv, l, rest, 2)
		var handovers uint64
		for _, sm := range rest {
			s, ok := sample(scrape(t, sm.m), "kubeloop_ring_handover_duration_seconds", "ring", "cms")
			if !ok || s.Histogram == nil {
				t.Errorf("%s: no kubeloop_ring_handover_duration_seconds histogram", sm.id)
				continue
			}
			handovers += s.Histogram.Count
		}
		if handovers < shardRanges {
			t.Errorf("kubeloop_ring_handover_duration_seconds counts %d ranges taken, want at least %d (the start's, then m1's)", handovers, shardRanges)
		}
	})
}

// TestShardedReadiness checks the ring's readiness check: it fails before
// the member has seen the ring, then while an assigned range waits for its
// previous holder (which finishes a reconcile of it), naming the range,
// and passes once every assigned range is held.
func TestShardedReadiness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newShardServer(t, 30)
		m0 := newShardMember(t, srv, l, "m0")
		if code, body := get(m0.m.readyz, "/ring"); code == 200 || !strings.Contains(body, "no membership seen yet") {
			t.Errorf("readyz/ring before Start = %d %q, want a failure saying no membership was seen", code, body)
		}
		m0.run = start(t, m0.m)
		settled(t, []*shardMember{m0}, time.Minute)
		time.Sleep(5 * time.Second)
		synctest.Wait()

		// The reconcile of one ConfigMap whose range goes to m1 blocks
		// until release is closed: m0 cannot release that range.
		ids := uids(t, srv)
		owners := leader.Assign([]string{"m0", "m1"}, shardRanges)
		var stuck kube.Key
		for k, uid := range ids {
			if owners[leader.RangeOf(kube.ShardHash(uid), shardRanges).Index] == "m1" {
				stuck = k
				break
			}
		}
		stuckRange := leader.RangeOf(kube.ShardHash(ids[stuck]), shardRanges)
		release := make(chan struct{})
		l.mu.Lock()
		l.blocked[stuck] = release
		l.mu.Unlock()
		patchAll(t, srv, "blocked")
		// The stuck reconcile runs once the ones queued before it did:
		// wait for it rather than for a time.
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(shardReconcile) {
			l.mu.Lock()
			running := l.busy[stuck] == "m0"
			l.mu.Unlock()
			if running {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the reconcile of %s did not start on m0 within a minute", stuck)
			}
		}
		m1 := newShardMember(t, srv, l, "m1")
		m1.run = start(t, m1.m)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		s := m1.m.ring.status()
		code, body := get(m1.m.readyz, "/ring")
		want := fmt.Sprintf("1 of the %d ranges assigned are not held yet: %s", len(s.Assigned), leader.FormatRanges([]leader.Range{stuckRange}))
		if code == 200 || !strings.Contains(body, want) {
			t.Errorf("readyz/ring while m0 drains = %d %q (assigned %v, held %v), want a failure saying %q",
				code, body, s.Assigned, s.Held, want)
		}
		close(release)
		settled(t, []*shardMember{m0, m1}, time.Minute)
		if code, body := get(m1.m.readyz, "/ring"); code != 200 {
			t.Errorf("readyz/ring once settled = %d %q", code, body)
		}
	})
}

// TestShardedWithLeaderElection runs two managers with both Sharding and
// LeaderElection: the sharded controllers run on both, sharing the
// ConfigMaps, while the runnable that needs the lease runs on one.
func TestShardedWithLeaderElection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newShardServer(t, 40)
		var members []*shardMember
		var probes []*ledger
		for _, id := range []string{"m0", "m1"} {
			sm := newShardMember(t, srv, l, id, func(o *Options) {
				o.LeaderElection = LeaderElectionOptions{LeaseName: testLease, Namespace: "default", Identity: id}
			})
			pl := &ledger{}
			if err := sm.m.Add(&probe{name: "leader", l: pl, needs: true}); err != nil {
				t.Fatal(err)
			}
			sm.run = start(t, sm.m)
			members, probes = append(members, sm), append(probes, pl)
		}
		settled(t, members, time.Minute)
		touchAll(t, srv, l, members, 1)
		if a, b := probes[0].has("start leader"), probes[1].has("start leader"); a == b {
			t.Errorf("the leader runnable started on m0: %v, on m1: %v; want on one of them", a, b)
		}
	})
}

func TestShardingOptions(t *testing.T) {
	srv := newServer(t)
	for _, c := range []struct {
		name string
		opts ShardingOptions
		want string
	}{
		{"no ring", ShardingOptions{Namespace: "default"}, `Sharding.Ring "" must name the ring`},
		{"no namespace", ShardingOptions{Ring: "r"}, "Sharding.Namespace is empty"},
		{"bad field", ShardingOptions{Ring: "r", Namespace: "default", Field: "spec.x"}, `Sharding.Field "spec.x"`},
		{"bad ring", ShardingOptions{Ring: "R_1", Namespace: "default"}, `Ring "R_1"`},
	} {
		_, err := newManager(testConfig(srv), Options{MetricsBindAddress: "0", Sharding: c.opts}, "/nonexistent/namespace")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: New = %v, want an error containing %q", c.name, err, c.want)
		}
	}
}

// TestShardedBuilder checks what the builder refuses for a sharded
// controller, that a controller not built Sharded is not sharded on a
// sharding manager, and that Sharded fails on a manager without
// Options.Sharding.
func TestShardedBuilder(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, func(o *Options) {
		o.Sharding = ShardingOptions{Ring: "r", Namespace: "default"}
	})
	r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) { return controller.Result{}, nil })
	err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Sharded().Watches(&kube.Secret{}, controller.EnqueueObject()).Complete(r)
	if err == nil || !strings.Contains(err.Error(), "Watches of a sharded controller are not supported yet") {
		t.Errorf("Watches on a sharded controller: %v", err)
	}
	err = controller.NewBuilder(m).Named("self").For(&kube.ConfigMap{}).Owns(&kube.ConfigMap{}).Sharded().Complete(r)
	if err == nil || !strings.Contains(err.Error(), "would be sharded by their own uid") {
		t.Errorf("Owns of the For kind on a sharded controller: %v", err)
	}
	err = controller.NewBuilder(m).Named("nofor").WatchesSource(controller.Channel(nil, controller.EnqueueObject())).Sharded().Complete(r)
	if err == nil || !strings.Contains(err.Error(), "Sharded needs For") {
		t.Errorf("Sharded without For: %v", err)
	}
	c, err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Sharded().Build(r)
	if err != nil || c.NeedLeaderElection() {
		t.Errorf("sharded For controller: err %v, NeedLeaderElection %v, want nil, false", err, c != nil && c.NeedLeaderElection())
	}
	plain, err := controller.NewBuilder(m).Named("plain").For(&kube.Secret{}).Build(r)
	if err != nil || !plain.NeedLeaderElection() {
		t.Errorf("controller not built Sharded: err %v, want a leader-elected controller", err)
	}
	nop := func(context.Context, kube.ShardSelector) error { return nil }
	if err := m.AddShardedController("plain", &kube.Event{}, plain, nop); err == nil || !strings.Contains(err.Error(), "names must be unique") {
		t.Errorf("a second controller under a name taken: %v", err)
	}
	for _, obj := range []kube.Object{&kube.Secret{}, &kube.Event{}} {
		if inf, err := m.GetInformer(context.Background(), obj); err != nil {
			t.Fatal(err)
		} else if isSharded(inf) {
			t.Errorf("the informer of %T is sharded; want it sharded by Sharded controllers alone", obj)
		}
	}
	if inf, err := m.GetInformer(context.Background(), &kube.ConfigMap{}); err != nil || !isSharded(inf) {
		t.Errorf("the informer of the Sharded controller's kind: sharded %v, err %v; want sharded", err == nil && isSharded(inf), err)
	}
	unsharded := newTestManager(t, srv, nil)
	err = controller.NewBuilder(unsharded).For(&kube.ConfigMap{}).Sharded().Complete(r)
	if err == nil || !strings.Contains(err.Error(), `add sharded controller "configmap": Options.Sharding is not set`) {
		t.Errorf("Sharded on a manager without Sharding: %v, want an error naming Options.Sharding", err)
	}
	if c, err := controller.NewBuilder(unsharded).For(&kube.ConfigMap{}).Owns(&kube.Secret{}).Build(r); err != nil || !c.NeedLeaderElection() {
		t.Errorf("on a manager without Sharding: %v", err)
	}
}

// TestShardedBesideUnsharded runs two managers of one ring, each with a
// sharded controller of ConfigMaps and an unsharded one of Secrets: each
// ConfigMap is reconciled by the holder of its range alone, each Secret by
// both managers (no leader election), and only the ConfigMaps are cached
// sharded.
func TestShardedBesideUnsharded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newShardServer(t, 20)
		c, err := kube.NewClient(testConfig(srv), kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			s := &kube.Secret{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprint("s", i)}}
			if err := c.Create(context.Background(), s); err != nil {
				t.Fatal(err)
			}
		}
		var mu sync.Mutex
		secrets := map[string]map[kube.Key]bool{"m0": {}, "m1": {}} // by manager
		var members []*shardMember
		for _, id := range []string{"m0", "m1"} {
			sm := newShardMember(t, srv, l, id)
			err := controller.NewBuilder(sm.m).For(&kube.Secret{}).Complete(controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
				mu.Lock()
				secrets[id][req.Key] = true
				mu.Unlock()
				return controller.Result{}, nil
			}))
			if err != nil {
				t.Fatal(err)
			}
			sm.run = start(t, sm.m)
			members = append(members, sm)
		}
		settled(t, members, time.Minute)
		touchAll(t, srv, l, members, 1)
		mu.Lock()
		for id, keys := range secrets {
			if len(keys) != 5 {
				t.Errorf("%s reconciled %d Secrets, want all 5: %v", id, len(keys), keys)
			}
		}
		mu.Unlock()
		for _, sm := range members {
			cms, secs := 0, 0
			for _, st := range sm.m.Cache().Stats() {
				switch st.Kind.Kind {
				case "ConfigMap":
					cms += st.Objects
				case "Secret":
					secs += st.Objects
				}
			}
			if cms == 0 || cms >= 20 || secs != 5 {
				t.Errorf("%s caches %d ConfigMaps and %d Secrets, want a share of the 20 and all 5", sm.id, cms, secs)
			}
		}
	})
}

// isSharded reports whether inf is a sharded informer: an empty selector
// is refused as empty by those, as not sharded by the others.
func isSharded(inf any) bool {
	err := inf.(interface {
		AddShard(kube.ShardSelector) error
	}).AddShard(kube.ShardSelector{})
	return !errors.Is(err, cache.ErrNotSharded)
}

// TestShardedStrayLeaseAndTwin puts a Lease of the ring no member wrote,
// claiming every range for 68 years, beside a replica: the replica holds
// every range all the same and counts the Lease once in
// kubeloop_ring_ignored_leases_total. Then a second replica starts with the
// first one's identity: its Start returns an error wrapping
// leader.ErrIdentityShared, and the first keeps every range.
func TestShardedStrayLeaseAndTwin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, l := newShardServer(t, 10)
		leases := kube.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
		if _, err := srv.Create(leases, map[string]any{"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
			"metadata": map[string]any{"namespace": "default", "name": "cms-stray",
				"labels":      map[string]any{leader.RingLabel: "cms"},
				"annotations": map[string]any{leader.RangesAnnotation: "16:0-15"}},
			"spec": map[string]any{"holderIdentity": "someone", "leaseDurationSeconds": 2147483647}}); err != nil {
			t.Fatal(err)
		}
		m0 := newShardMember(t, srv, l, "m0")
		m0.run = start(t, m0.m)
		settled(t, []*shardMember{m0}, 10*time.Second)
		time.Sleep(time.Minute) // many polls
		fams := scrape(t, m0.m)
		for reason, want := range map[string]float64{"foreign": 1, "long_duration": 1, "unreadable": 0} {
			if s, ok := sample(fams, "kubeloop_ring_ignored_leases_total", "ring", "cms", "reason", reason); !ok || s.Value != want {
				t.Errorf("kubeloop_ring_ignored_leases_total{reason=%q} = %v (found %v), want %v", reason, s.Value, ok, want)
			}
		}

		twin := newShardMember(t, srv, l, "m0")
		twin.run = start(t, twin.m)
		select {
		case <-twin.run.done:
		case <-time.After(time.Minute):
			t.Fatal("a second replica with identity m0 still runs a minute later")
		}
		if !errors.Is(twin.run.err, leader.ErrIdentityShared) || !strings.Contains(twin.run.err.Error(), `"m0"`) {
			t.Errorf("the twin's Start = %v, want an error wrapping leader.ErrIdentityShared naming \"m0\"", twin.run.err)
		}
		if m0.run.exited() {
			t.Fatalf("m0 stopped too: %v", m0.run.err)
		}
		settled(t, []*shardMember{m0}, time.Second)
	})
}

// TestShardedJoinReadsOnce starts two managers on a server that ignores
// the shard selector, then a third: the joining manager's cache reads the
// ConfigMaps once, although the ranges it is assigned reach it from each
// holder in turn (the ring's claims waiting tell its informer to wait for
// them).
func TestShardedJoinReadsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const objects = 90
		srv := kubetest.New(kubetest.Options{DisableShardedListAndWatch: true})
		t.Cleanup(srv.Close)
		if err := srv.Delete(configMaps, "kube-system", "kube-apiserver-legacy-service-account-token-tracking"); err != nil {
			t.Fatal(err)
		}
		for i := range objects {
			createCM(t, srv, "default", fmt.Sprint("cm", i))
		}
		l := newShardLedger(t)
		var members []*shardMember
		for _, id := range []string{"m0", "m1", "m2"} {
			sm := newShardMember(t, srv, l, id)
			sm.run = start(t, sm.m)
			members = append(members, sm)
			settled(t, members, time.Minute)
		}
		time.Sleep(30 * time.Second)
		synctest.Wait()
		var received uint64
		for _, st := range members[2].m.Cache().Stats() {
			if st.Kind.Kind == "ConfigMap" {
				received += st.Events + st.ShardDropped // no change: every event is of a read
			}
		}
		t.Logf("the joining manager received %d ConfigMaps, %.2f times the %d there are", received, float64(received)/objects, objects)
		if received > objects+objects/10 {
			t.Errorf("the joining manager received %d ConfigMaps, want about %d: the kind read once", received, objects)
		}
	})
}
