// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestReadAfterLastFinalizerRemoved: with watch events a second late, a
// Get right after the update that removed the last finalizer of an object
// being deleted (answered at the version the object already had) does
// not return the object with its finalizer: it waits until the object is
// gone.
func TestReadAfterLastFinalizerRemoved(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{}, 0)
		key := kube.Key{Namespace: "default", Name: "held"}
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "held", Finalizers: []string{"example.com/hold"}}}
		if err := e.client.Create(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		if err := e.client.Delete(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		var got kube.ConfigMap
		if err := e.cache.Get(e.ctx, key, &got); err != nil || got.DeletionTimestamp == nil {
			t.Fatalf("Get after the delete = %v, %v; want the object marked", got.DeletionTimestamp, err)
		}
		synctest.Wait()
		defer e.srv.LagWatches("", time.Second, time.Second)()
		got.Finalizers = nil
		if err := e.client.Update(e.ctx, &got); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err := e.cache.Get(e.ctx, key, &kube.ConfigMap{})
		if !kube.IsNotFound(err) {
			t.Errorf("Get after the last finalizer was removed = %v, want not found (the object is gone)", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("Get waited %v, want the watch's lag, 1s", d)
		}
	})
}

// TestNoOpWriteNoWait: an update that changes nothing (answered at the
// version the cache holds) makes no read wait, though no event of it
// will ever come.
func TestNoOpWriteNoWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{}, 0)
		cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "a"}, Data: map[string]string{"v": "1"}}
		if err := e.client.Create(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		defer e.srv.LagWatches("", time.Minute, time.Minute)()
		rv := cm.ResourceVersion
		if err := e.client.Update(e.ctx, cm); err != nil {
			t.Fatal(err)
		}
		if cm.ResourceVersion != rv {
			t.Fatalf("a no-op update answered %s, want the version it had, %s", cm.ResourceVersion, rv)
		}
		start := time.Now()
		var list kube.List[kube.ConfigMap]
		if err := e.cache.List(e.ctx, &list, kube.ListOptions{Namespace: "default"}); err != nil {
			t.Fatal(err)
		}
		if err := e.cache.Get(e.ctx, kube.Key{Namespace: "default", Name: "a"}, &kube.ConfigMap{}); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("reads after a no-op update waited %v, want 0", d)
		}
	})
}

// TestUnseenWritesNotWaitedFor: a List across all namespaces does not
// wait (0 in synctest time) for a create in a namespace the cache does
// not watch, nor for one its label selector filters out; neither is
// remembered.
func TestUnseenWritesNotWaitedFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts Options
		ns   string
	}{
		{"namespace", Options{Namespaces: []string{"default"}}, "other"},
		{"label selector", Options{ByObject: []ByObject{{Object: &kube.ConfigMap{},
			LabelSelector: kube.SelectorFromSet(map[string]string{"app": "x"})}}}, "default"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				e := newFreshEnv(t, tc.opts, time.Second)
				if err := e.client.Create(e.ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "other"}}); err != nil {
					t.Fatal(err)
				}
				cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: tc.ns, Name: "unseen", Labels: map[string]string{"app": "y"}}}
				if err := e.client.Create(e.ctx, cm); err != nil {
					t.Fatal(err)
				}
				for range 3 {
					start := time.Now()
					var list kube.List[kube.ConfigMap]
					if err := e.cache.List(e.ctx, &list, kube.ListOptions{}); err != nil {
						t.Fatal(err)
					}
					if d := time.Since(start); d != 0 {
						t.Errorf("List of all namespaces waited %v for a write the cache cannot see, want 0", d)
					}
				}
				if r := e.cache.FreshRecords(); r.Records != 0 {
					t.Errorf("FreshRecords = %+v after a write the cache cannot see, want none", r)
				}
			})
		})
	}
}

// TestGaveUpNotRepeated: a read whose wait for a write passed the bound
// does not wait for the same write again, nor does a controller's.
func TestGaveUpNotRepeated(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := newFreshEnv(t, Options{MaxFreshWait: 300 * time.Millisecond}, time.Minute)
		create := func(name string) {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name}}
			if err := e.client.Create(e.ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
		create("a")
		key := kube.Key{Namespace: "default", Name: "a"}
		waits := func(read func()) (d []time.Duration) {
			for range 2 {
				start := time.Now()
				read()
				d = append(d, time.Since(start))
			}
			return d
		}
		want := []time.Duration{300 * time.Millisecond, 0}
		if d := waits(func() { e.cache.Get(e.ctx, key, &kube.ConfigMap{}) }); !slices.Equal(d, want) {
			t.Errorf("two Gets after a write whose event is late waited %v, want %v", d, want)
		}
		create("b")
		if d := waits(func() { e.cache.List(e.ctx, &kube.List[kube.ConfigMap]{}, kube.ListOptions{}) }); !slices.Equal(d, want) {
			t.Errorf("two Lists waited %v, want %v", d, want)
		}
		create("c")
		key.Name = "c"
		if d := waits(func() { e.cache.WaitForWrites(e.ctx, kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, key) }); !slices.Equal(d, want) {
			t.Errorf("two WaitForWrites waited %v, want %v", d, want)
		}
		if st := e.stats(t); st.Fresh.GaveUp != 3 {
			t.Errorf("Stats.Fresh.GaveUp = %d, want 3", st.Fresh.GaveUp)
		}
	})
}

// TestFreshRecordsBounded: 10,000 writes the cache cannot see keep no
// record; 10,000 it could see but whose events never come (ten times
// Options.MaxFreshRecords, past both bounds) keep at most
// Options.MaxFreshRecords records within Options.MaxFreshRecordBytes,
// the oldest dropped first and counted.
func TestFreshRecordsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const maxRecords, maxBytes = 1000, 200 << 10
		const writes = 10 * maxRecords
		e := newFreshEnv(t, Options{Namespaces: []string{"default"}, MaxFreshRecords: maxRecords, MaxFreshRecordBytes: maxBytes}, 0)
		gvk := kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
		write := func(ns string, i int) kube.Written {
			return kube.Written{Kind: gvk, Key: kube.Key{Namespace: ns, Name: fmt.Sprintf("object-%06d", i)},
				ResourceVersion: strconv.Itoa(1<<40 + i), Labels: map[string]string{"app": "demo"},
				Owners: []kube.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: fmt.Sprintf("w-%06d", i%100), UID: "u"}}}
		}
		for i := range writes {
			e.cache.RecordWrite(write("elsewhere", i))
		}
		if r := e.cache.FreshRecords(); r.Records != 0 || r.Bytes != 0 {
			t.Errorf("FreshRecords = %+v after %d writes outside the cache's namespaces, want none", r, writes)
		}
		for i := range writes {
			e.cache.RecordWrite(write("default", i))
			if r := e.cache.FreshRecords(); r.Records > maxRecords || r.Bytes > maxBytes {
				t.Fatalf("FreshRecords = %+v after %d writes, past the bounds (%d records, %d bytes)", r, i+1, maxRecords, maxBytes)
			}
		}
		r := e.cache.FreshRecords()
		if r.Dropped == 0 {
			t.Errorf("FreshRecords = %+v: none dropped", r)
		}
		if _, ok := e.cache.writes.pendingObject(gvk, kube.Key{Namespace: "default", Name: fmt.Sprintf("object-%06d", writes-1)}); !ok {
			t.Error("the newest write was dropped, want the oldest first")
		}
		if _, ok := e.cache.writes.pendingObject(gvk, kube.Key{Namespace: "default", Name: "object-000000"}); ok {
			t.Error("the oldest write is kept")
		}
	})
}
