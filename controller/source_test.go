// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// eventLog is an EventHandler that records the events it is given.
type eventLog struct {
	mu  sync.Mutex
	got []string
}

func (l *eventLog) Handle(_ context.Context, e Change, q Queue) {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := fmt.Sprintf("%s %s %T", e.Type, e.Key, e.Object)
	if e.InInitialList {
		s += " initial"
	}
	if e.Old != nil {
		s += " old=" + e.Old.GetObjectMeta().ResourceVersion
	}
	l.got = append(l.got, s)
	EnqueueObject().Handle(context.Background(), e, q)
}

func (l *eventLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.got
	l.got = nil
	return out
}

func TestChannelSource(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ch := make(chan Change)
		var log eventLog
		onlyA := ObjectFilter(func(o kube.Object) bool { return strings.HasPrefix(o.GetObjectMeta().Name, "a") })
		src := Channel(ch, &log, onlyA)
		if err := src.WaitForSync(t.Context()); err != nil {
			t.Errorf("channel WaitForSync before Run = %v, want nil (no initial state)", err)
		}
		q := &fakeQueue{}
		done := make(chan error, 1)
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go func() { done <- src.Run(ctx, q) }()

		ch <- Change{Key: kube.Key{Namespace: "ns", Name: "a1"}}                // key only
		ch <- Change{Object: obj("ns", "a2", "5")}                              // object only
		ch <- Change{Type: ChangeDelete, Object: obj("ns", "a3", "5")}          // a type kept
		ch <- Change{Key: kube.Key{Name: "b1"}}                                 // filtered out
		ch <- Change{}                                                          // names nothing: dropped
		ch <- Change{Key: kube.Key{Namespace: "ns"}, Object: obj("", "a4", "")} // the object wins
		synctest.Wait()
		want := []string{
			"generic ns/a1 *kube.PartialObjectMetadata",
			"generic ns/a2 *kube.ConfigMap",
			"delete ns/a3 *kube.ConfigMap",
			"generic a4 *kube.ConfigMap",
		}
		if got := log.take(); !slices.Equal(got, want) {
			t.Errorf("handled %q, want %q", got, want)
		}
		if got := q.take(); !slices.Equal(got, []string{"ns/a1@0", "ns/a2@0", "ns/a3@0", "a4@0"}) {
			t.Errorf("queued %v", got)
		}
		close(ch)
		if err := <-done; err != nil {
			t.Errorf("Run after the channel closed = %v, want nil", err)
		}
	})
}

func TestKindSourceEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		createCM(t, srv, cm{ns: "default", name: "old"})
		inf := startCMInformer(t, client)
		if err := inf.WaitForSync(t.Context()); err != nil {
			t.Fatal(err)
		}
		var log eventLog
		// Only deletes and changes of the data go through.
		src := Kind(inf.ObjectInformer(), &log, PredicateFuncs{
			Update: func(e Change) bool {
				return fmt.Sprint(e.Object.(*kube.ConfigMap).Data) != fmt.Sprint(e.Old.(*kube.ConfigMap).Data)
			},
		})
		if s := src.String(); s != "kind ConfigMap (v1)" {
			t.Errorf("String() = %q, want kind ConfigMap (v1)", s)
		}
		q := &fakeQueue{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- src.Run(ctx, q) }()
		if err := src.WaitForSync(t.Context()); err != nil {
			t.Fatalf("WaitForSync = %v", err)
		}
		if got := log.take(); !slices.Equal(got, []string{"create default/old *kube.ConfigMap initial"}) {
			t.Errorf("after sync handled %q, want the cached object as an initial create", got)
		}
		createCM(t, srv, cm{ns: "default", name: "new"})
		synctest.Wait()
		rv := fmt.Sprint(mustGet(t, srv, "new")["metadata"].(map[string]any)["resourceVersion"])
		updateCM(t, srv, "default", "new", map[string]any{"k": "v"})
		cur := mustGet(t, srv, "new")
		cur["metadata"].(map[string]any)["labels"] = map[string]any{"x": "y"}
		if _, err := srv.Update(configMaps, cur); err != nil { // labels only: filtered out
			t.Fatal(err)
		}
		if err := srv.Delete(configMaps, "default", "new"); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		want := []string{
			"create default/new *kube.ConfigMap",
			"update default/new *kube.ConfigMap old=" + rv,
			"delete default/new *kube.ConfigMap",
		}
		if got := log.take(); !slices.Equal(got, want) {
			t.Errorf("handled %q, want %q", got, want)
		}
		if got := q.take(); !slices.Equal(got, []string{"default/old@-100", "default/new@0", "default/new@0", "default/new@0"}) {
			t.Errorf("queued %v", got)
		}

		if err := src.Run(ctx, q); err == nil || !strings.Contains(err.Error(), "run before") {
			t.Errorf("second Run = %v, want an error", err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run = %v, want nil", err)
		}
		createCM(t, srv, cm{ns: "default", name: "after"})
		synctest.Wait()
		if got := log.take(); len(got) != 0 {
			t.Errorf("after Run returned, handled %q; want nothing (handler removed)", got)
		}
	})
}

func mustGet(t *testing.T, srv interface {
	Get(kube.GroupVersionResource, string, string) (map[string]any, error)
}, name string) map[string]any {
	t.Helper()
	o, err := srv.Get(configMaps, "default", name)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestKindSourceWaitForSyncBeforeRun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, client := newServer(t)
		inf := startCMInformer(t, client)
		src := Kind(inf.ObjectInformer(), EnqueueObject())
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		defer cancel()
		err := src.WaitForSync(ctx)
		if err == nil || !strings.Contains(err.Error(), "wait for kind ConfigMap (v1) to sync: not started") {
			t.Errorf("WaitForSync without Run = %v, want not started", err)
		}
	})
}

// A Kind source marks the updates of the cache's resyncs (Resync, low
// priority) and only those: a real update of the same object is not one.
func TestKindSourceMarksResyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t)
		createCM(t, srv, cm{ns: "default", name: "a", data: map[string]any{"v": "1"}})
		inf, err := cache.NewInformer[kube.ConfigMap](client, cache.InformerOptions{SyncPeriod: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		run(t, inf.Start)
		var mu sync.Mutex
		var updates []Change
		src := Kind(inf.ObjectInformer(), EventHandlerFunc(func(_ context.Context, c Change, _ Queue) {
			if c.Type == ChangeUpdate {
				mu.Lock()
				updates = append(updates, c)
				mu.Unlock()
			}
		}))
		var q fakeQueue
		run(t, func(ctx context.Context) error { return src.Run(ctx, &q) })
		time.Sleep(70 * time.Minute) // one resync, at 1h ±10%
		synctest.Wait()
		updateCM(t, srv, "default", "a", map[string]any{"v": "2"})
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(updates) != 2 {
			t.Fatalf("updates = %+v, want a resync then a change", updates)
		}
		if r := updates[0]; !r.Resync || r.Priority() != LowPriority || r.Old != r.Object {
			t.Errorf("resync = %+v (priority %d), want Resync, LowPriority, the same object twice", r, r.Priority())
		}
		if u := updates[1]; u.Resync || u.Priority() != 0 {
			t.Errorf("update = %+v (priority %d), want a change of priority 0", u, u.Priority())
		}
	})
}
