// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/operator"
	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// The operator's life on kubetest, with two replicas electing a leader:
// create, change the spec, hand-edit the owned ConfigMap, fail over,
// delete while no replica runs and restart, each step checked on the
// server (ConfigMap, finalizer, status conditions, events).
func TestWidgetLifecycle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t)
		ctx := t.Context()
		a := startReplica(t, srv)
		time.Sleep(time.Second) // a leads
		b := startReplica(t, srv)

		w := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}, Spec: WidgetSpec{Color: "red", Size: 2}}
		if err := c.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
		ready := waitWidget(t, c, "created", 1, "red", "2")
		if !hasFinalizer(t, c) {
			t.Error("the Widget has no finalizer")
		}
		waitEvent(t, c, "ConfigMapCreated")

		if err := kube.RetryOnConflict(ctx, func() error {
			if err := c.Get(ctx, w.Key(), w); err != nil {
				return err
			}
			w.Spec.Size = 3
			return c.Update(ctx, w)
		}); err != nil {
			t.Fatal(err)
		}
		again := waitWidget(t, c, "spec changed", 2, "red", "3")
		if !again.LastTransitionTime.Equal(ready.LastTransitionTime.Time) {
			t.Errorf("Ready's lastTransitionTime moved from %v to %v though it stayed True", ready.LastTransitionTime, again.LastTransitionTime)
		}

		var cm kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "widget-w"}, &cm); err != nil {
			t.Fatal(err)
		}
		cm.Data["color"] = "blue"
		if err := c.Update(ctx, &cm); err != nil {
			t.Fatal(err)
		}
		waitWidget(t, c, "hand edit undone", 2, "red", "3")
		waitEvent(t, c, "ConfigMapUpdated")

		// Failover: the leader stops (releasing its Lease), b takes over.
		a.stop()
		setColor(t, c, "green")
		waitWidget(t, c, "after failover", 3, "green", "3")
		var lease kube.Lease
		if err := c.Get(ctx, kube.Key{Namespace: "default", Name: Name}, &lease); err != nil {
			t.Fatal(err)
		}
		if tr := lease.Spec.LeaseTransitions; tr == nil || *tr != 1 {
			t.Errorf("Lease %s transitions = %v, want 1 (a led, then b)", Name, tr)
		}

		// Deletion while no replica runs: the finalizer holds the Widget
		// until a restarted replica cleans up.
		b.stop()
		if err := c.Delete(ctx, w); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		if err := c.Get(ctx, w.Key(), &Widget{}); err != nil {
			t.Fatalf("Widget while no replica runs: %v, want it held by its finalizer", err)
		}
		startReplica(t, srv)
		eventually(t, "Widget and ConfigMap deleted after restart", func() error {
			if err := c.Get(ctx, w.Key(), &Widget{}); !kube.IsNotFound(err) {
				return fmt.Errorf("Widget: %v", err)
			}
			if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "widget-w"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
				return fmt.Errorf("ConfigMap: %v", err)
			}
			return nil
		})
		waitEvent(t, c, "ConfigMapDeleted")
	})
}

// The operator's writes on a cache that lags behind the server, while
// other writers change the Widget: a label, the spec, and an admin who
// clears the finalizers while the operator cleans up. The copies it
// reads are stale, yet no write of its Conflicts, none undoes another
// writer's change, and the finalizer's removal from a Widget already
// gone is no error: [checkLogs] finds no Conflict or NotFound.
func TestWidgetStaleReads(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t)
		ctx := t.Context()
		srv.LagWatches("widgets", 500*time.Millisecond, 500*time.Millisecond)
		startReplica(t, srv)
		time.Sleep(time.Second) // leading

		w := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}, Spec: WidgetSpec{Color: "red", Size: 2}}
		if err := c.Create(ctx, w); err != nil {
			t.Fatal(err)
		}
		label := func(v string) {
			t.Helper()
			patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"team":"` + v + `"}}}`)}
			if err := c.Patch(ctx, &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}}, patch); err != nil {
				t.Fatal(err)
			}
		}
		time.Sleep(200 * time.Millisecond)
		label("a") // the operator's first read, 300ms later, misses it
		waitWidget(t, c, "created", 1, "red", "2")

		for i, color := range []string{"green", "blue", "red"} {
			setColor(t, c, color)
			time.Sleep(100 * time.Millisecond) // the operator reads the old spec
			label(color)
			waitWidget(t, c, "color "+color, int64(i+2), color, "2")
		}
		var got Widget
		if err := c.Get(ctx, w.Key(), &got); err != nil {
			t.Fatal(err)
		}
		if got.Labels["team"] != "red" || !got.HasFinalizer(Finalizer) {
			t.Errorf("Widget labels %v, finalizers %v; want the label team=red kept, and the finalizer", got.Labels, got.Finalizers)
		}

		// While the operator deletes the ConfigMap, an admin clears the
		// finalizers: the Widget goes before the operator removes its own.
		var cleared sync.Once
		var didClear bool
		srv.Delay(func(ri kubetest.RequestInfo) bool {
			if ri.Verb == "delete" && ri.Resource == "configmaps" {
				cleared.Do(func() {
					didClear = true
					patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"finalizers":null}}`)}
					if err := c.Patch(context.Background(), &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}}, patch); err != nil {
						t.Errorf("clear the finalizers: %v", err)
					}
				})
			}
			return false
		}, 0)
		if err := c.Delete(ctx, w); err != nil {
			t.Fatal(err)
		}
		eventually(t, "Widget and ConfigMap deleted", func() error {
			if err := c.Get(ctx, w.Key(), &Widget{}); !kube.IsNotFound(err) {
				return fmt.Errorf("Widget: %v", err)
			}
			if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "widget-w"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
				return fmt.Errorf("ConfigMap: %v", err)
			}
			return nil
		})
		if !didClear {
			t.Error("the operator deleted no ConfigMap: the admin never cleared the finalizers")
		}
		time.Sleep(5 * time.Second) // the lagging events reconciled
	})
}

// The schema built from the Go type is what the server validates.
func TestWidgetSchema(t *testing.T) {
	_, c := newServer(t)
	ctx := t.Context()
	def, err := widgetCRD()
	if err != nil {
		t.Fatal(err)
	}
	if err := crd.Install(ctx, c, def); err != nil {
		t.Fatal(err)
	}
	bad := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "bad"}, Spec: WidgetSpec{Color: "purple", Size: 11}}
	err = c.Create(ctx, bad)
	if !kube.IsInvalid(err) {
		t.Fatalf("Create of color purple, size 11 = %v, want Invalid", err)
	}
	for _, field := range []string{"spec.color", "spec.size"} {
		if !hasCause(err, field) {
			t.Errorf("Create error %v names no cause for %s", err, field)
		}
	}
	ok := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "ok"}, Spec: WidgetSpec{Color: "blue"}}
	if err := c.Create(ctx, ok); err != nil || ok.Spec.Size != 1 {
		t.Errorf("Create without size = %v, size %d; want the default 1", err, ok.Spec.Size)
	}
}

func hasCause(err error, field string) bool {
	var se *kube.StatusError
	if !errors.As(err, &se) || se.Status.Details == nil {
		return false
	}
	for _, c := range se.Status.Details.Causes {
		if c.Field == field {
			return true
		}
	}
	return false
}

// newServer starts a kubetest server until the test ends (inside a
// bubble, call it inside) and returns it with a client.
func newServer(t *testing.T) (*kubetest.Server, *kube.Client) {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	c, err := srv.Client(kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// replica is one run of the operator's manager.
type replica struct {
	cancel context.CancelFunc
	done   chan error
}

// startReplica runs a manager with the operator's controller on srv,
// with leader election, until stop or the end of the test. Its logs
// (debug and up) go to the test's log, and are checked when the test
// ends: a line that says Conflict, or NotFound, fails it (see
// [checkLogs]).
func startReplica(t *testing.T, srv *kubetest.Server) *replica {
	t.Helper()
	logs := &operatortest.SyncBuffer{}
	t.Cleanup(func() { checkLogs(t, logs.String()) })
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	mgr, err := newManager(srv.Config(), operator.Flags{QPS: 1000, Burst: 1000, LeaderElect: true,
		LeaderElectionNamespace: "default", MetricsBindAddress: "0", HealthProbeBindAddress: "0"}, log)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	def, err := widgetCRD()
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Add(crd.NewInstaller(mgr.APIClient(), def)); err != nil {
		t.Fatal(err)
	}
	if err := setup(ctx, mgr, 2, log); err != nil {
		t.Fatal(err)
	}
	r := &replica{cancel: cancel, done: make(chan error, 1)}
	go func() { r.done <- mgr.Start(ctx) }()
	t.Cleanup(func() { r.stop() })
	return r
}

// checkLogs fails the test for each line the widget controller logged
// that tells of a write refused because the copy written was stale (a
// Conflict), or of an object missing (NotFound), such as a finalizer
// removed from a Widget already gone: the operator reads from a cache
// that lags, and must write so that neither happens. (Leader election's
// lines are not the controller's: replicas racing for the Lease
// Conflict by design.) No replica logs an ERROR line at all.
func checkLogs(t *testing.T, logs string) {
	t.Helper()
	for line := range strings.Lines(logs) {
		if strings.Contains(line, "level=ERROR") {
			t.Errorf("the operator logged an ERROR line:\n%s", line)
		}
		if !strings.Contains(line, "controller=widget") {
			continue
		}
		for _, bad := range []string{"Conflict", "the object has been modified", "NotFound", "not found"} {
			if strings.Contains(line, bad) {
				t.Errorf("the operator logged %q:\n%s", bad, line)
			}
		}
	}
}

func (r *replica) stop() {
	if r.cancel != nil {
		r.cancel()
		<-r.done
		r.cancel = nil
	}
}

// waitWidget waits until the Widget default/w is Ready for generation
// gen and its ConfigMap holds color and size, and returns Ready.
func waitWidget(t *testing.T, c *kube.Client, step string, gen int64, color, size string) kube.Condition {
	t.Helper()
	var ready kube.Condition
	eventually(t, step, func() error {
		var w Widget
		if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "w"}, &w); err != nil {
			return err
		}
		cond := kube.FindStatusCondition(w.Status.Conditions, ConditionReady)
		if w.Generation != gen || cond == nil || cond.Status != kube.ConditionTrue || cond.ObservedGeneration != gen ||
			w.Status.ObservedGeneration != gen || w.Status.ConfigMap != "widget-w" {
			return fmt.Errorf("generation %d, status %+v; want Ready for generation %d", w.Generation, w.Status, gen)
		}
		ready = *cond
		var cm kube.ConfigMap
		if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "widget-w"}, &cm); err != nil {
			return err
		}
		if cm.Data["color"] != color || cm.Data["size"] != size || len(cm.OwnerReferences) != 1 || !cm.OwnerReferences[0].IsController() {
			return fmt.Errorf("ConfigMap data %v owners %v; want color %s size %s, controlled by the Widget", cm.Data, cm.OwnerReferences, color, size)
		}
		return nil
	})
	return ready
}

func hasFinalizer(t *testing.T, c *kube.Client) bool {
	var w Widget
	if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "w"}, &w); err != nil {
		t.Fatal(err)
	}
	return w.HasFinalizer(Finalizer)
}

func setColor(t *testing.T, c *kube.Client, color string) {
	t.Helper()
	patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"spec":{"color":"` + color + `"}}`)}
	if err := c.Patch(t.Context(), &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "w"}}, patch); err != nil {
		t.Fatal(err)
	}
}

// waitEvent waits for an Event of reason about the Widget.
func waitEvent(t *testing.T, c *kube.Client, reason string) {
	t.Helper()
	eventually(t, "event "+reason, func() error {
		var events kube.List[kube.Event]
		if err := c.List(t.Context(), &events, kube.InNamespace("default")); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == reason && e.Regarding.Kind == "Widget" && e.ReportingController == Name {
				return nil
			}
		}
		return fmt.Errorf("no %s event among %d", reason, len(events.Items))
	})
}

// eventually checks cond every 100ms of the bubble's time, for a minute.
func eventually(t *testing.T, what string, cond func() error) {
	t.Helper()
	var err error
	for range 600 {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: %v", what, err)
}
