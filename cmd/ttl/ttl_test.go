// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/cmd/internal/operator/operatortest"
	"github.com/kubeloop/kubeloop/kube"
)

// env is a kubetest server with the TTL controllers running on it.
type env struct{ *operatortest.Env }

var (
	configMapKind  = kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	deploymentKind = kube.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
)

// startTTL starts the TTL controllers of ConfigMaps and Deployments on a
// new kubetest server until the test ends. Call it inside a synctest
// bubble.
func startTTL(t *testing.T) env {
	t.Helper()
	return env{operatortest.StartEnv(t, "ttl-test", func(ctx context.Context, h *operatortest.Harness, events *operatortest.Recorder) error {
		return setupTTL(ctx, setupOptions{Manager: h, Cache: h.Cache, Client: h.Client, Events: events,
			Kinds: []kube.GroupVersionKind{configMapKind, deploymentKind}, Workers: 1})
	})}
}

// create creates an object of kind gvk in namespace default, annotated
// with ttl unless ttl is "".
func (e env) create(gvk kube.GroupVersionKind, name, ttl string) *kube.Unstructured {
	e.T.Helper()
	obj := &kube.Unstructured{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: name}}
	obj.SetGroupVersionKind(gvk)
	if ttl != "" {
		obj.Annotations = map[string]string{AnnotationTTL: ttl}
	}
	if gvk == deploymentKind {
		obj.SetField(map[string]any{
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "busybox"}}},
			},
		}, "spec")
	}
	if err := e.Client.Create(e.Ctx, obj); err != nil {
		e.T.Fatal(err)
	}
	return obj
}

// exists reports whether the object is on the server, asking the server
// itself (not over HTTP: the test's reads are not counted as requests).
func (e env) exists(gvk kube.GroupVersionKind, name string) bool {
	e.T.Helper()
	m, err := e.Client.Mapping(e.Ctx, gvk)
	if err != nil {
		e.T.Fatal(err)
	}
	gvr := kube.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: m.Resource}
	_, err = e.Server.Get(gvr, "default", name)
	if err != nil && !kube.IsNotFound(err) {
		e.T.Fatal(err)
	}
	return err == nil
}

// at sleeps until d has passed since start (in the bubble's fake time),
// and waits for the controllers to be idle.
func at(start time.Time, d time.Duration) {
	time.Sleep(time.Until(start.Add(d)))
	synctest.Wait()
}

// An object with a TTL of 1h is deleted at 1h of (fake) time, not before;
// one without a TTL stays; and the cache never lists again meanwhile.
func TestTTLDeletesWhenDue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startTTL(t)
		start := time.Now()
		e.create(configMapKind, "hour", "1h")
		e.create(deploymentKind, "half-hour", "30m")
		e.create(configMapKind, "forever", "")
		at(start, time.Minute)
		// The first state came by list or by WatchList; from here on,
		// only watches resume, and reads come from the cache.
		reads := func() int { return e.Server.Count("list", "configmaps") + e.Server.Count("get", "configmaps") }
		before := reads()

		at(start, 30*time.Minute-time.Second)
		if !e.exists(deploymentKind, "half-hour") {
			t.Fatal("Deployment with ttl 30m deleted before 30m")
		}
		at(start, 30*time.Minute+time.Second)
		if e.exists(deploymentKind, "half-hour") {
			t.Fatal("Deployment with ttl 30m still there after 30m")
		}
		at(start, time.Hour-time.Second)
		if !e.exists(configMapKind, "hour") {
			t.Fatal("ConfigMap with ttl 1h deleted before 1h")
		}
		at(start, time.Hour+time.Second)
		if e.exists(configMapKind, "hour") {
			t.Fatalf("ConfigMap with ttl 1h still there after 1h\nevents:\n%s", e.Events)
		}
		at(start, 3*time.Hour)
		if !e.exists(configMapKind, "forever") {
			t.Error("ConfigMap without a ttl deleted")
		}
		if got := reads() - before; got != 0 {
			t.Errorf("ConfigMaps listed or read %d times between 1m and 3h, want none (requests: %v)", got, e.Server.Counts())
		}
		if !strings.Contains(e.Events.String(), "Normal Expired: deleted configmap default/hour: its ttl of 1h has passed") {
			t.Errorf("events:\n%s\nwant an Expired event for default/hour", e.Events)
		}
	})
}

// A TTL changed before it is due is judged again: the new one counts.
func TestTTLChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startTTL(t)
		start := time.Now()
		obj := e.create(configMapKind, "extended", "1h")
		at(start, 30*time.Minute)
		patch := kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"annotations":{"` + AnnotationTTL + `":"2h"}}}`)}
		if err := e.Client.Patch(e.Ctx, obj, patch); err != nil {
			t.Fatal(err)
		}
		at(start, time.Hour+time.Minute)
		if !e.exists(configMapKind, "extended") {
			t.Fatal("deleted at 1h after its ttl was extended to 2h")
		}
		at(start, 2*time.Hour+time.Second)
		if e.exists(configMapKind, "extended") {
			t.Fatal("still there after its extended ttl of 2h")
		}
	})
}

// A value that is not a duration gets a Warning and no deletion.
func TestTTLInvalid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		e := startTTL(t)
		start := time.Now()
		e.create(configMapKind, "soon", "soon")
		e.create(configMapKind, "negative", "-1h")
		at(start, 48*time.Hour)
		for _, name := range []string{"soon", "negative"} {
			if !e.exists(configMapKind, name) {
				t.Errorf("ConfigMap with ttl %q deleted", name)
			}
		}
		for _, want := range []string{
			`Warning InvalidTTL: not deleting: annotation kubeloop.dev/ttl "soon": not a duration`,
			`Warning InvalidTTL: not deleting: annotation kubeloop.dev/ttl "-1h": negative`,
		} {
			if !strings.Contains(e.Events.String(), want) {
				t.Errorf("events:\n%s\nwant %q", e.Events, want)
			}
		}
	})
}

func TestTimeLeft(t *testing.T) {
	created := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		ttl  string // "" for no annotation
		now  time.Time
		want time.Duration
		err  string
	}{
		{"1h", created, time.Hour, ""},
		{"1h", created.Add(59 * time.Minute), time.Minute, ""},
		{"1h", created.Add(2 * time.Hour), -time.Hour, ""},
		{" 90s ", created, 90 * time.Second, ""},
		{"0s", created, 0, ""},
		{"", created, 0, "no kubeloop.dev/ttl annotation"},
		{"1d", created, 0, "not a duration"},
		{"-5m", created, 0, "negative"},
	} {
		m := &kube.ObjectMeta{CreationTimestamp: kube.Time{Time: created}}
		if tc.ttl != "" {
			m.Annotations = map[string]string{AnnotationTTL: tc.ttl}
		}
		got, err := timeLeft(m, tc.now)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("timeLeft(ttl %q) error = %v, want one containing %q", tc.ttl, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("timeLeft(ttl %q, %v after creation) = %v, %v; want %v", tc.ttl, tc.now.Sub(created), got, err, tc.want)
		}
	}
}

func TestParseKind(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want kube.GroupVersionKind
		ok   bool
	}{
		{"apps/v1/Deployment", deploymentKind, true},
		{"v1/ConfigMap", configMapKind, true},
		{"batch/v1/Job", kube.GroupVersionKind{Group: "batch", Version: "v1", Kind: "Job"}, true},
		{"Deployment", kube.GroupVersionKind{}, false},
		{"apps//Deployment", kube.GroupVersionKind{}, false},
		{"/v1/ConfigMap", kube.GroupVersionKind{}, false},
		{"a/b/c/d", kube.GroupVersionKind{}, false},
	} {
		got, err := parseKind(tc.in)
		if (err == nil) != tc.ok || tc.ok && got != tc.want {
			t.Errorf("parseKind(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
}
