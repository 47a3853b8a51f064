// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/internal/stacks"
	"github.com/kubeloop/kubeloop/kube"
)

// reconciled records the keys each controller reconciled.
type reconciled struct {
	mu  sync.Mutex
	log []string
}

func (r *reconciled) add(s string) {
	r.mu.Lock()
	r.log = append(r.log, s)
	r.mu.Unlock()
}

func (r *reconciled) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.log
	r.log = nil
	return out
}

func cmHandlers(m *Manager) int {
	for _, s := range m.Cache().Stats() {
		if s.Kind.Kind == "ConfigMap" {
			return s.Handlers
		}
	}
	return -1
}

// TestRemoveController: a running controller removed stops taking
// requests, RemoveController waits for its reconcile in flight (whose
// context is cancelled), its handler leaves the informer, its worker
// ends, its name is free again, and the other controller on the same
// informer goes on.
func TestRemoveController(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		var rec reconciled
		release := make(chan struct{})
		var blocked atomic.Bool // the first reconcile of slow by gone blocks
		add := func(name string) {
			t.Helper()
			err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named(name).Complete(controller.ReconcilerFunc(
				func(ctx context.Context, req controller.Request) (controller.Result, error) {
					rec.add(name + " " + req.Key.Name)
					if name == "gone" && req.Key.Name == "slow" && blocked.CompareAndSwap(false, true) {
						<-release
						rec.add(name + " slow ended, ctx done: " + map[bool]string{true: "yes", false: "no"}[ctx.Err() != nil])
					}
					return controller.Result{}, nil
				}))
			if err != nil {
				t.Fatal(err)
			}
		}
		add("gone")
		add("stays")
		start(t, m)
		createCM(t, srv, "default", "slow")
		synctest.Wait()
		if got := sortedCopy(rec.take()); !slices.Equal(got, []string{"gone slow", "stays slow"}) {
			t.Fatalf("reconciled = %q, want both controllers on slow", got)
		}
		if got := cmHandlers(m); got != 2 {
			t.Fatalf("ConfigMap handlers = %d, want 2", got)
		}
		workers := stacks.Count("controller.(*Controller).work")

		removed := make(chan error, 1)
		go func() { removed <- m.RemoveController(context.Background(), "gone") }()
		synctest.Wait()
		select {
		case err := <-removed:
			t.Fatalf("RemoveController returned %v with a reconcile in flight", err)
		default:
		}
		close(release)
		if err := <-removed; err != nil {
			t.Fatalf("RemoveController = %v", err)
		}
		if got := rec.take(); !slices.Equal(got, []string{"gone slow ended, ctx done: yes"}) {
			t.Errorf("reconciles after RemoveController = %q, want the one in flight ended, its context done", got)
		}
		if got := cmHandlers(m); got != 1 {
			t.Errorf("ConfigMap handlers after RemoveController = %d, want 1", got)
		}
		if got := stacks.Count("controller.(*Controller).work"); got != workers-1 {
			t.Errorf("workers after RemoveController = %d, want %d", got, workers-1)
		}
		m.mu.Lock()
		_, exported := m.controllers["gone"]
		m.mu.Unlock()
		if exported {
			t.Error("the removed controller's metrics are still exported")
		}

		createCM(t, srv, "default", "later")
		synctest.Wait()
		if got := rec.take(); !slices.Equal(got, []string{"stays later"}) {
			t.Errorf("reconciled after RemoveController = %q, want [stays later]", got)
		}

		// The name is free: a new controller under it starts at once.
		add("gone")
		synctest.Wait()
		if got := sortedCopy(rec.take()); !slices.Equal(got, []string{"gone later", "gone slow"}) {
			t.Errorf("a controller added again under the name reconciled %q, want [gone later, gone slow]", got)
		}

		if err := m.RemoveController(context.Background(), "nope"); err == nil || !strings.Contains(err.Error(), `"nope"`) {
			t.Errorf(`RemoveController("nope") = %v, want an error naming it`, err)
		}
		// With both gone, nothing uses the informer: it can be removed.
		for _, name := range []string{"gone", "stays"} {
			if err := m.RemoveController(context.Background(), name); err != nil {
				t.Fatalf("RemoveController(%q) = %v", name, err)
			}
		}
		if err := m.Cache().RemoveInformer(context.Background(), &kube.ConfigMap{}); err != nil {
			t.Errorf("RemoveInformer after both controllers were removed = %v", err)
		}
	})
}

// TestRemoveControllerNotStarted: a controller removed before Start is
// never started.
func TestRemoveControllerNotStarted(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		var rec reconciled
		err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named("early").Complete(controller.ReconcilerFunc(
			func(ctx context.Context, req controller.Request) (controller.Result, error) {
				rec.add(req.Key.Name)
				return controller.Result{}, nil
			}))
		if err != nil {
			t.Fatal(err)
		}
		if err := m.RemoveController(context.Background(), "early"); err != nil {
			t.Fatalf("RemoveController before Start = %v", err)
		}
		createCM(t, srv, "default", "x")
		start(t, m)
		synctest.Wait()
		if got := rec.take(); len(got) != 0 {
			t.Errorf("a controller removed before Start reconciled %q", got)
		}
	})
}

func sortedCopy(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestRemoveControllerTimeout: a removal whose ctx ends before the
// reconcile in flight does fails, keeps the name taken while the
// controller stops, and a second call waits for it and frees the name.
func TestRemoveControllerTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		release := make(chan struct{})
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			<-release
			return controller.Result{}, nil
		})
		if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named("slow").Complete(r); err != nil {
			t.Fatal(err)
		}
		start(t, m)
		createCM(t, srv, "default", "x")
		synctest.Wait()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		err := m.RemoveController(ctx, "slow")
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), `"slow"`) {
			t.Fatalf("RemoveController with a reconcile in flight past its ctx = %v, want DeadlineExceeded naming the controller", err)
		}
		if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named("slow").Complete(r); err == nil {
			t.Fatal("a controller was added under the name of one still stopping")
		}
		close(release)
		if err := m.RemoveController(context.Background(), "slow"); err != nil {
			t.Fatalf("RemoveController again = %v", err)
		}
		if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named("slow").Complete(r); err != nil {
			t.Errorf("adding under the name once the controller stopped = %v", err)
		}
	})
}

// TestRemoveControllerSharded: a sharded controller is refused.
func TestRemoveControllerSharded(t *testing.T) {
	srv := newServer(t)
	m := newTestManager(t, srv, func(o *Options) {
		o.Sharding = ShardingOptions{Ring: "cms", Namespace: "default", Identity: "a"}
	})
	r := controller.ReconcilerFunc(func(context.Context, controller.Request) (controller.Result, error) {
		return controller.Result{}, nil
	})
	if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Named("sharded").Sharded().Complete(r); err != nil {
		t.Fatal(err)
	}
	if err := m.RemoveController(context.Background(), "sharded"); err == nil || !strings.Contains(err.Error(), "sharded controller") {
		t.Errorf("RemoveController of a sharded controller = %v, want an error saying it is sharded", err)
	}
}
