// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// modes runs a test with WatchList and with paged lists (the default,
// one list, is a list of one page).
var modes = []struct {
	name string
	opts InformerOptions
}{
	{"watchlist", InformerOptions{WatchList: true}},
	{"list", InformerOptions{PageSize: 3}},
}

func TestInformerFollowsServer(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				for n := range 10 {
					createCM(t, srv, "default", fmt.Sprintf("cm%d", n), map[string]string{"n": "0"})
				}
				createCM(t, srv, "kube-system", "x", nil)
				inf := newCMInformer(t, c, mode.opts)
				early := newRecorder(t)
				reg, err := inf.AddEventHandler(early)
				if err != nil {
					t.Fatal(err)
				}
				startInformer(t, inf)
				waitSynced(t, inf)
				if !reg.HasSynced() || !inf.HasSynced() {
					t.Errorf("after WaitForSync: registration synced %v, informer synced %v", reg.HasSynced(), inf.HasSynced())
				}
				checkConsistent(t, srv, inf, early)
				if early.initialAdds != 11 || early.adds != 11 {
					t.Errorf("initial adds = %d of %d, want 11 of 11", early.initialAdds, early.adds)
				}

				createCM(t, srv, "default", "new", nil)
				updateCM(t, srv, "default", "cm1", map[string]string{"n": "1"})
				deleteCM(t, srv, "default", "cm2")
				synctest.Wait()
				checkConsistent(t, srv, inf, early)
				if early.adds != 12 || early.initialAdds != 11 || early.updates != 1 || early.deletes != 1 || early.unknownDeletes != 0 {
					t.Errorf("events: %d adds (%d initial), %d updates, %d deletes (%d unknown); want 12 (11), 1, 1 (0)\n%v",
						early.adds, early.initialAdds, early.updates, early.deletes, early.unknownDeletes, early.log)
				}

				// A handler added late gets the cached objects as initial adds.
				late := newRecorder(t)
				lreg, err := inf.AddEventHandler(late)
				if err != nil {
					t.Fatal(err)
				}
				if err := lreg.WaitForSync(context.Background()); err != nil {
					t.Fatal(err)
				}
				if late.initialAdds != 11 {
					t.Errorf("late handler: %d initial adds, want 11", late.initialAdds)
				}
				updateCM(t, srv, "kube-system", "x", map[string]string{"a": "b"})
				synctest.Wait()
				checkConsistent(t, srv, inf, early, late)

				// A removed handler hears nothing more.
				if err := inf.RemoveEventHandler(lreg); err != nil {
					t.Fatal(err)
				}
				if err := inf.RemoveEventHandler(lreg); err == nil {
					t.Errorf("second RemoveEventHandler = nil, want an error")
				}
				before := late.snapshot()
				deleteCM(t, srv, "default", "cm3")
				synctest.Wait()
				checkConsistent(t, srv, inf, early)
				if after := late.snapshot(); len(after) != len(before) {
					t.Errorf("removed handler got events: %d objects, had %d", len(after), len(before))
				}
				if st := inf.stats(); st.Objects != 10 || st.Bytes <= 0 || !st.Synced || st.Handlers != 1 {
					t.Errorf("stats = %+v, want 10 objects, some bytes, synced, 1 handler", st)
				}
			})
		})
	}
}

func TestInformerSlowHandlerDoesNotBlockOthers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		createCM(t, srv, "default", "first", nil)
		inf := newCMInformer(t, c, InformerOptions{})
		release := make(chan struct{})
		slowSeen := 0
		slow := HandlerFuncs[kube.Object]{AddFunc: func(kube.Object, bool) {
			<-release
			slowSeen++
		}}
		fast := newRecorder(t)
		if _, err := inf.AddEventHandler(slow); err != nil {
			t.Fatal(err)
		}
		if _, err := inf.AddEventHandler(fast); err != nil {
			t.Fatal(err)
		}
		startInformer(t, inf)
		synctest.Wait()
		for n := range 100 {
			createCM(t, srv, "default", fmt.Sprintf("cm%d", n), nil)
		}
		synctest.Wait()
		if got := len(fast.snapshot()); got != 101 {
			t.Errorf("fast handler has %d objects while the slow one is stuck, want 101", got)
		}
		if inf.HasSynced() {
			t.Errorf("HasSynced = true while a handler registered before sync has not had the initial state")
		}
		st := inf.stats()
		if st.Queued != 100 || st.PeakQueued < 100 {
			t.Errorf("stats while stuck: queued %d, peak %d; want 100, ≥ 100", st.Queued, st.PeakQueued)
		}
		close(release)
		synctest.Wait()
		if slowSeen != 101 {
			t.Errorf("slow handler saw %d adds after release, want 101", slowSeen)
		}
		if !inf.HasSynced() {
			t.Errorf("HasSynced = false after the slow handler caught up")
		}
		checkConsistent(t, srv, inf, fast)
	})
}

func TestInformerKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		createCM(t, srv, "default", "a", map[string]string{"k": "v"})
		cmKind := kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}

		meta, err := NewInformer[kube.PartialObjectMetadata](c, InformerOptions{Kind: cmKind, Transform: DropManagedFields})
		if err != nil {
			t.Fatal(err)
		}
		unst, err := NewInformer[kube.Unstructured](c, InformerOptions{Kind: cmKind})
		if err != nil {
			t.Fatal(err)
		}
		startInformer(t, meta.ObjectInformer())
		startInformer(t, unst.ObjectInformer())
		waitSynced(t, meta.ObjectInformer())
		waitSynced(t, unst.ObjectInformer())

		m, ok := meta.Get(kube.Key{Namespace: "default", Name: "a"})
		if !ok || m.GroupVersionKind() != cmKind || m.UID == "" || m.ManagedFields != nil {
			t.Errorf("metadata-only Get = %+v, %v; want kind %v, a uid, no managedFields", m, ok, cmKind)
		}
		u, ok := unst.Get(kube.Key{Namespace: "default", Name: "a"})
		if !ok || u.GroupVersionKind() != cmKind {
			t.Fatalf("unstructured Get = %+v, %v; want kind %v", u, ok, cmKind)
		}
		if v, _ := u.Field("data", "k"); v != "v" {
			t.Errorf("unstructured data.k = %v, want v", v)
		}
		createCM(t, srv, "default", "b", nil)
		synctest.Wait()
		if m, ok := meta.Get(kube.Key{Namespace: "default", Name: "b"}); !ok || m.GroupVersionKind() != cmKind {
			t.Errorf("metadata-only object from a watch = %+v, %v; want kind %v", m, ok, cmKind)
		}
	})
}

func TestNewInformerErrors(t *testing.T) {
	_, c := newServer(t, kubetest.Options{})
	tests := []struct {
		name string
		make func() error
	}{
		{"not an object", func() error { _, err := NewInformer[struct{}](c, InformerOptions{}); return err }},
		{"unstructured without kind", func() error { _, err := NewInformer[kube.Unstructured](c, InformerOptions{}); return err }},
		{"kind disagrees", func() error {
			_, err := NewInformer[kube.ConfigMap](c, InformerOptions{Kind: kube.GroupVersionKind{Version: "v1", Kind: "Secret"}})
			return err
		}},
		{"nil client", func() error { _, err := NewInformer[kube.ConfigMap](nil, InformerOptions{}); return err }},
		{"negative page size", func() error { _, err := NewInformer[kube.ConfigMap](c, InformerOptions{PageSize: -1}); return err }},
	}
	for _, tt := range tests {
		if err := tt.make(); err == nil {
			t.Errorf("%s: NewInformer = nil error, want one", tt.name)
		}
	}
}

func TestInformerStartTwiceAndAfterStop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newServer(t, kubetest.Options{})
		inf := newCMInformer(t, c, InformerOptions{})
		stop := startInformer(t, inf)
		synctest.Wait()
		if err := inf.Start(context.Background()); err == nil {
			t.Errorf("second Start = nil, want an error")
		}
		stop()
		if _, err := inf.AddEventHandler(newRecorder(t)); err == nil {
			t.Errorf("AddEventHandler after stop = nil, want ErrStopped")
		}
	})
}

// TestWaitForSyncNamesKindAndLastError: with WatchList, and with lists
// (whose failed pages are retried inside the list), the error names the
// last failure.
func TestWaitForSyncNamesKindAndLastError(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				srv.FailNext(1000, func(ri kubetest.RequestInfo) bool { return ri.Resource == "configmaps" },
					kube.NewStatusError(500, kube.ReasonInternalError, "etcd is down"))
				inf := newCMInformer(t, c, mode.opts)
				startInformer(t, inf)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				err := inf.WaitForSync(ctx)
				if err == nil || !errorsIs(err, ErrNotSynced) || !errorsIs(err, context.DeadlineExceeded) ||
					!contains(err.Error(), "ConfigMap") || !contains(err.Error(), "etcd is down") {
					t.Errorf("WaitForSync = %v, want ErrNotSynced naming ConfigMap and the last error", err)
				}
			})
		})
	}
}

func TestInformerNamespaces(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				for _, ns := range []string{"default", "kube-system", "kube-public"} {
					for n := range 4 {
						createCM(t, srv, ns, fmt.Sprintf("cm%d", n), nil)
					}
				}
				opts := mode.opts
				opts.Namespaces = []string{"default", "kube-system"}
				inf, rec := startRecorded(t, srv, c, opts)
				if rec.initialAdds != 8 {
					t.Errorf("%d initial adds, want 8 (two namespaces of 4)", rec.initialAdds)
				}
				createCM(t, srv, "kube-public", "ignored", nil)
				deleteCM(t, srv, "kube-system", "cm0")
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)

				// A 410 in one namespace relists that namespace only.
				srv.ResetCounts()
				srv.FailNext(1, func(ri kubetest.RequestInfo) bool { return isWatch(ri) && ri.Namespace == "default" }, expired)
				undo := srv.Delay(isWatch, time.Second)
				srv.CutWatches()
				deleteCM(t, srv, "default", "cm1")
				deleteCM(t, srv, "kube-system", "cm1")
				undo()
				time.Sleep(time.Minute)
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)
				if rec.unknownDeletes != 1 || rec.deletes != 3 {
					t.Errorf("%d deletes (%d unknown), want 3 (1: only default relisted)\n%v", rec.deletes, rec.unknownDeletes, rec.log)
				}
				if st := inf.stats(); st.Relists != 1 || st.Objects != 5 {
					t.Errorf("stats = %+v, want 1 relist, 5 objects", st)
				}
			})
		})
	}
}

// TestNotificationOrder: what a list, a relist, a late handler's adds and
// a resync notify comes in key order (by namespace, then by name, as the
// server lists: "a-b/x" before "a/b"), whatever the order of the store's
// maps.
func TestNotificationOrder(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				for _, ns := range []string{"b", "a-b", "a"} {
					obj := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}
					if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "namespaces"}, obj); err != nil {
						t.Fatal(err)
					}
				}
				for _, key := range []string{"b/z", "a/y", "a-b/x", "b/a", "a/c", "a/b", "b/m"} {
					ns, name, _ := strings.Cut(key, "/")
					createCM(t, srv, ns, name, nil)
				}
				opts := mode.opts
				opts.SyncPeriod = time.Hour
				inf, rec := startRecorded(t, srv, c, opts)
				seen := 0
				check := func(what string, want ...string) {
					t.Helper()
					rec.mu.Lock()
					got := ops(rec.log[seen:])
					seen = len(rec.log)
					rec.mu.Unlock()
					if !slices.Equal(got, want) {
						t.Errorf("%s notified\n%q\nwant\n%q", what, got, want)
					}
				}
				check("the first list", "add a-b/x", "add a/b", "add a/c", "add a/y", "add b/a", "add b/m", "add b/z")

				undo := srv.Delay(isWatch, time.Second)
				srv.CutWatches()
				deleteCM(t, srv, "b", "m") // and created again: a new UID
				createCM(t, srv, "b", "m", nil)
				updateCM(t, srv, "b", "a", map[string]string{"v": "1"})
				createCM(t, srv, "a", "d", nil)
				deleteCM(t, srv, "a", "c")
				srv.Compact()
				undo()
				time.Sleep(time.Minute)
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)
				check("a relist", "delete a/c unknown=true", "add a/d", "update b/a", "delete b/m unknown=true", "add b/m")

				late := newRecorder(t)
				if _, err := inf.AddEventHandler(late); err != nil {
					t.Fatal(err)
				}
				synctest.Wait()
				late.mu.Lock()
				if got, want := ops(late.log), []string{"add a-b/x", "add a/b", "add a/d", "add a/y", "add b/a", "add b/m", "add b/z"}; !slices.Equal(got, want) {
					t.Errorf("a late handler's adds\n%q\nwant\n%q", got, want)
				}
				late.mu.Unlock()

				time.Sleep(67 * time.Minute)
				synctest.Wait()
				check("a resync", "update a-b/x", "update a/b", "update a/d", "update a/y", "update b/a", "update b/m", "update b/z")
			})
		})
	}
}

// ops returns a recorder's log without resourceVersions.
func ops(log []string) []string {
	out := make([]string, len(log))
	for n, l := range log {
		out[n], _, _ = strings.Cut(l, "@")
	}
	return out
}

// TestInitialStateIsOneList: by default an informer reads the initial
// state with one list, however many objects there are (no pages, no
// WatchList), then watches from it.
func TestInitialStateIsOneList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		const n = 1200 // more than a page of client-go's 500
		for k := range n {
			createCM(t, srv, "default", fmt.Sprintf("cm%d", k), nil)
		}
		inf, _ := startRecorded(t, srv, c, InformerOptions{Namespaces: []string{"default"}})
		if got := len(inf.store.keys()); got != n {
			t.Errorf("%d objects stored, want %d", got, n)
		}
		if l, w := srv.Count("list", "configmaps"), srv.Count("watch", "configmaps"); l != 1 || w != 1 {
			t.Errorf("%d list and %d watch requests, want 1 and 1", l, w)
		}
	})
}
