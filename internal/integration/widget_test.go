// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestWidgetEndToEnd builds cmd/widget and runs it against the real
// kube-apiserver, as replicas of a deployment would, as a ServiceAccount
// granted cmd/widget/rbac.yaml and nothing else: the first installs
// the CRD (built from Go types) and reconciles a Widget through create,
// spec change and a hand edit of its ConfigMap; it stops and the second
// takes over; with no replica running the Widget is deleted and held by
// its finalizer until a third replica cleans up. Conditions, events and
// metrics are checked on the way, and at the end that no replica's
// controller logged a Conflict or a NotFound, and no replica an ERROR.
func TestWidgetEndToEnd(t *testing.T) {
	h := harnessFromEnv(t)
	admin, _ := loadConfigs(t)
	c, err := kube.NewClient(admin, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()

	bin := buildProgram(t, ctx, "widget")
	ns := "widget-" + randomName()
	if err := c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	// The first replica installs the Widget CRD; it goes with the test,
	// so that a server the suite runs on again serves what it served
	// before (TestKubectl compares its api-versions with kubetest's).
	t.Cleanup(func() {
		crd := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Name: "widgets." + widgetGroup}}
		crd.SetGroupVersionKind(kube.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"})
		_ = c.Delete(context.Background(), crd)
		_ = c.Delete(context.Background(), &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}})
	})
	kubeconfig := boundKubeconfig(t, ctx, c, h, "widget", ns) // cmd/widget/rbac.yaml and nothing else
	start := func(name string) *process {
		return startProgram(t, ctx, "widget "+name, bin, "--kubeconfig", kubeconfig,
			"--leader-elect", "--leader-election-namespace", ns, "--health-probe-bind-address", "0", "--log-level", "debug")
	}
	a := start("a")
	key := kube.Key{Namespace: ns, Name: "w"}
	waitFor(t, ctx, "the CRD installed", func() error {
		w := widgetObject(key)
		w.SetField(map[string]any{"color": "red", "size": int64(2)}, "spec")
		return c.Create(ctx, w)
	})
	first := waitWidgetReady(t, ctx, c, key, 1, "red", "2")
	b := start("b") // a standby

	w := widgetObject(key)
	if err := c.Patch(ctx, w, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"spec":{"size":3}}`)}); err != nil {
		t.Fatal(err)
	}
	if cond := waitWidgetReady(t, ctx, c, key, 2, "red", "3"); cond["lastTransitionTime"] != first["lastTransitionTime"] {
		t.Errorf("Ready's lastTransitionTime %v, was %v: it stayed True", cond["lastTransitionTime"], first["lastTransitionTime"])
	}
	cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "widget-w"}}
	if err := c.Patch(ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"color":"purple"}}`)}); err != nil {
		t.Fatal(err)
	}
	waitWidgetReady(t, ctx, c, key, 2, "red", "3")
	waitWidgetEvent(t, ctx, c, ns, "ConfigMapUpdated")

	a.stop(t) // failover: a releases the Lease, b leads
	if err := c.Patch(ctx, w, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"spec":{"color":"green"}}`)}); err != nil {
		t.Fatal(err)
	}
	waitWidgetReady(t, ctx, c, key, 3, "green", "3")
	waitFor(t, ctx, "b's metrics", func() error {
		body, err := b.metrics()
		if err != nil {
			return err
		}
		for _, want := range []string{`leader_election_master_status{name="kubeloop-widget"} 1`,
			`controller_runtime_reconcile_total{controller="widget",result="success"}`, "go_goroutines ", "process_start_time_seconds "} {
			if !strings.Contains(body, want) {
				return fmt.Errorf("no %s", want)
			}
		}
		return nil
	})
	b.stop(t)

	if err := c.Delete(ctx, w); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, key, widgetObject(key)); err != nil {
		t.Fatalf("Widget deleted while no replica runs: %v, want it held by its finalizer", err)
	}
	r := start("c")
	waitFor(t, ctx, "Widget and ConfigMap gone", func() error {
		if err := c.Get(ctx, key, widgetObject(key)); !kube.IsNotFound(err) {
			return fmt.Errorf("Widget: %v", err)
		}
		if err := c.Get(ctx, kube.Key{Namespace: ns, Name: "widget-w"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
			return fmt.Errorf("ConfigMap: %v", err)
		}
		return nil
	})
	waitWidgetEvent(t, ctx, c, ns, "ConfigMapDeleted")
	r.stop(t)
	for _, p := range []*process{a, b, r} {
		checkWidgetLogs(t, p)
	}
}

// checkWidgetLogs fails the test for each line the widget controller of
// a stopped replica logged that tells of a Conflict or a NotFound: it
// reads from a cache that lags behind the server, and writes so that a
// stale copy causes neither (status and ConfigMap patches of what
// changed, finalizers read afresh on a Conflict, a finalizer's removal
// from a Widget already gone no error). Leader election's lines are not
// the controller's: replicas racing for the Lease Conflict by design.
// No replica logs an ERROR line at all: a realistic operator's
// finalizers, owned objects and status run without one (issue 35).
func checkWidgetLogs(t *testing.T, p *process) {
	t.Helper()
	for line := range strings.Lines(p.logs.String()) {
		if strings.Contains(line, "level=ERROR") {
			t.Errorf("%s logged an ERROR line:\n%s", p.name, line)
		}
		if !strings.Contains(line, "controller=widget") {
			continue
		}
		for _, bad := range []string{"Conflict", "the object has been modified", "NotFound", "not found"} {
			if strings.Contains(line, bad) {
				t.Errorf("%s logged %q:\n%s", p.name, bad, line)
			}
		}
	}
}

// widgetGroup is cmd/widget's API group.
const widgetGroup = "example.kubeloop.dev"

// widgetObject is an empty Widget at key (the type is cmd/widget's, a
// main package: read here as unstructured).
func widgetObject(key kube.Key) *kube.Unstructured {
	u := &kube.Unstructured{}
	u.SetGroupVersionKind(kube.GroupVersionKind{Group: widgetGroup, Version: "v1", Kind: "Widget"})
	u.Namespace, u.Name = key.Namespace, key.Name
	return u
}

// waitWidgetReady waits until the Widget is Ready for generation gen
// and its ConfigMap holds color and size, and returns the condition.
func waitWidgetReady(t *testing.T, ctx context.Context, c *kube.Client, key kube.Key, gen int64, color, size string) map[string]any {
	t.Helper()
	var ready map[string]any
	waitFor(t, ctx, fmt.Sprintf("Widget ready for generation %d", gen), func() error {
		w := widgetObject(key)
		if err := c.Get(ctx, key, w); err != nil {
			return err
		}
		conds, _ := w.Field("status", "conditions")
		list, _ := conds.([]any)
		ready = nil
		for _, x := range list {
			if m, _ := x.(map[string]any); m["type"] == "Ready" {
				ready = m
			}
		}
		observed, _ := kube.NestedInt64(w.Content, "status", "observedGeneration")
		if ready == nil || ready["status"] != "True" || ready["reason"] != "Reconciled" || ready["observedGeneration"] != float64(gen) || observed != gen {
			return fmt.Errorf("status %v", w.Content["status"])
		}
		if !w.HasFinalizer(widgetGroup + "/cleanup") {
			return fmt.Errorf("finalizers %v", w.Finalizers)
		}
		var cm kube.ConfigMap
		if err := c.Get(ctx, kube.Key{Namespace: key.Namespace, Name: "widget-" + key.Name}, &cm); err != nil {
			return err
		}
		if cm.Data["color"] != color || cm.Data["size"] != size {
			return fmt.Errorf("ConfigMap data %v", cm.Data)
		}
		return nil
	})
	return ready
}

func waitWidgetEvent(t *testing.T, ctx context.Context, c *kube.Client, ns, reason string) {
	t.Helper()
	waitFor(t, ctx, "event "+reason, func() error {
		var events kube.List[kube.Event]
		if err := c.List(ctx, &events, kube.InNamespace(ns)); err != nil {
			return err
		}
		for _, e := range events.Items {
			if e.Reason == reason && e.Regarding.Kind == "Widget" {
				return nil
			}
		}
		return fmt.Errorf("none among %d events", len(events.Items))
	})
}
