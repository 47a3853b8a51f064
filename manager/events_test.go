// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"regexp"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

var eventsGVR = kube.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}

const (
	eventCreates = "create events.events.k8s.io"
	eventPatches = "patch events.events.k8s.io"
)

// dnsSubdomain is the server's rule for object names.
var dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

func listEvents(t *testing.T, srv *kubetest.Server, ns string) []map[string]any {
	t.Helper()
	evs, err := srv.List(eventsGVR, ns)
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

// seriesCount is the event's series.count (kubetest holds integers as
// int64).
func seriesCount(ev map[string]any) int64 {
	s, _ := ev["series"].(map[string]any)
	n, _ := s["count"].(int64)
	return n
}

var widget = &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "cm1", UID: "uid-1", ResourceVersion: "7"}}

func TestEventRecorded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		run := start(t, m)
		rec := m.GetEventRecorderFor("kubeloop.example/demo")
		rec.Eventf(widget, Normal, "Synced", "Reconcile", "configmap %s synced", "cm1")
		ns := &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: "Team:A"}}
		rec.Eventf(ns, Warning, "Stuck", "Finalize", "100%% stuck")
		synctest.Wait()

		evs := listEvents(t, srv, "default")
		if len(evs) != 2 {
			t.Fatalf("events = %v, want 2", evs)
		}
		var cmEv, nsEv map[string]any
		for _, ev := range evs {
			switch ev["regarding"].(map[string]any)["kind"] {
			case "ConfigMap":
				cmEv = ev
			case "Namespace":
				nsEv = ev
			}
		}
		want := map[string]any{
			"reportingController": "kubeloop.example/demo", "action": "Reconcile", "reason": "Synced",
			"note": "configmap cm1 synced", "type": "Normal",
		}
		for k, v := range want {
			if cmEv[k] != v {
				t.Errorf("event %s = %v, want %v", k, cmEv[k], v)
			}
		}
		if ri, _ := cmEv["reportingInstance"].(string); !strings.HasPrefix(ri, "kubeloop.example/demo-") {
			t.Errorf("reportingInstance = %q, want the controller and the host", ri)
		}
		reg := cmEv["regarding"].(map[string]any)
		if reg["apiVersion"] != "v1" || reg["namespace"] != "default" || reg["name"] != "cm1" || reg["uid"] != "uid-1" {
			t.Errorf("regarding = %v", reg)
		}
		if at, err := time.Parse(kube.MicroTimeLayout, cmEv["eventTime"].(string)); err != nil || !at.Equal(time.Now().Truncate(time.Microsecond)) {
			t.Errorf("eventTime = %v (%v), want now", cmEv["eventTime"], err)
		}
		name := cmEv["metadata"].(map[string]any)["name"].(string)
		if !regexp.MustCompile(`^cm1\.[0-9a-f]{16}$`).MatchString(name) {
			t.Errorf("event name = %q, want cm1.<16 hex digits>", name)
		}
		// A cluster-scoped object: the event lives in default, its name is
		// made valid.
		if nsEv == nil || nsEv["note"] != "100% stuck" || nsEv["type"] != "Warning" {
			t.Fatalf("namespace event = %v", nsEv)
		}
		if n := nsEv["metadata"].(map[string]any)["name"].(string); !strings.HasPrefix(n, "team-a.") || !dnsSubdomain.MatchString(n) {
			t.Errorf("event name for Team:A = %q, want a DNS subdomain starting team-a.", n)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEventRepeatsBecomeASeries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		run := start(t, m)
		rec := m.GetEventRecorderFor("demo")
		for i := range 10 {
			rec.Eventf(widget, Normal, "Synced", "Reconcile", "pass %d", i)
			time.Sleep(10 * time.Second)
		}
		synctest.Wait()
		evs := listEvents(t, srv, "default")
		if len(evs) != 1 {
			t.Fatalf("events = %d, want 1 with a series", len(evs))
		}
		if n := seriesCount(evs[0]); n != 10 {
			t.Errorf("series.count = %v, want 10", n)
		}
		if evs[0]["note"] != "pass 0" {
			t.Errorf("note = %v, want the first one", evs[0]["note"])
		}
		last, _ := time.Parse(kube.MicroTimeLayout, evs[0]["series"].(map[string]any)["lastObservedTime"].(string))
		if want := time.Now().Add(-10 * time.Second); !last.Equal(want) {
			t.Errorf("lastObservedTime = %v, want %v", last, want)
		}
		if c, p := srv.Count("create", "events.events.k8s.io"), srv.Count("patch", "events.events.k8s.io"); c != 1 || p != 9 {
			t.Errorf("writes: %d creates, %d patches; want 1 and 9", c, p)
		}

		// A different action is another event; so is a repeat after the
		// window.
		rec.Eventf(widget, Normal, "Synced", "Resync", "other action")
		time.Sleep(seriesWindow + time.Minute)
		rec.Eventf(widget, Normal, "Synced", "Reconcile", "much later")
		synctest.Wait()
		if evs := listEvents(t, srv, "default"); len(evs) != 3 {
			t.Errorf("events = %d, want 3", len(evs))
		}

		// An Event deleted under the series is made again.
		for _, ev := range listEvents(t, srv, "default") {
			if ev["note"] == "much later" {
				if err := srv.Delete(eventsGVR, "default", ev["metadata"].(map[string]any)["name"].(string)); err != nil {
					t.Fatal(err)
				}
			}
		}
		rec.Eventf(widget, Normal, "Synced", "Reconcile", "after delete")
		synctest.Wait()
		found := false
		for _, ev := range listEvents(t, srv, "default") {
			if ev["note"] == "much later" && seriesCount(ev) == 2 {
				found = true
			}
		}
		if !found {
			t.Errorf("the deleted series was not created again with count 2: %v", listEvents(t, srv, "default"))
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEventRateLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		run := start(t, m)
		rec := m.GetEventRecorderFor("demo")
		// 100 distinct events (actions) about one object with one reason:
		// 25 are written at once, then one per 5 minutes.
		for i := range 100 {
			rec.Eventf(widget, Warning, "Failed", "Step"+string(rune('A'+i%26))+string(rune('a'+i/26)), "failure %d", i)
			time.Sleep(time.Millisecond)
		}
		synctest.Wait()
		if c := srv.Count("create", "events.events.k8s.io"); c != spamBurst {
			t.Errorf("creates after the burst = %d, want %d", c, spamBurst)
		}
		time.Sleep(spamRefill)
		synctest.Wait()
		if c := srv.Count("create", "events.events.k8s.io"); c != spamBurst+1 {
			t.Errorf("creates 5 minutes later = %d, want %d", c, spamBurst+1)
		}
		// Another reason about the same object has a bucket of its own.
		rec.Eventf(widget, Normal, "Synced", "Reconcile", "fine")
		synctest.Wait()
		if c := srv.Count("create", "events.events.k8s.io"); c != spamBurst+2 {
			t.Errorf("creates after another reason = %d, want %d", c, spamBurst+2)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}

func TestEventHotLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		run := start(t, m)
		rec := m.GetEventRecorderFor("demo")
		// A reconcile loop gone hot: the same event every 100ms for 100s.
		for range 1000 {
			rec.Eventf(widget, Warning, "Failed", "Reconcile", "boom")
			time.Sleep(100 * time.Millisecond)
		}
		synctest.Wait()
		writes := srv.Count("create", "events.events.k8s.io") + srv.Count("patch", "events.events.k8s.io")
		if writes != spamBurst {
			t.Errorf("writes during 100s of a hot loop = %d, want the burst, %d", writes, spamBurst)
		}
		// The count is exact once the manager stops (the writer flushes).
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
		evs := listEvents(t, srv, "default")
		if len(evs) != 1 || seriesCount(evs[0]) != 1000 {
			t.Errorf("after the stop: %d events, count %v; want 1 with count 1000", len(evs), seriesCount(evs[0]))
		}
		if d := m.events.dropped.Value("buffer_full"); d != 0 {
			t.Errorf("dropped = %v, want 0", d)
		}
	})
}

func TestEventfNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		m := newTestManager(t, srv, nil)
		rec := m.GetEventRecorderFor("demo")
		// Not started: nothing drains the buffer.
		t0 := time.Now()
		for range eventBufferSize + 500 {
			rec.Eventf(widget, Normal, "Synced", "Reconcile", "x")
		}
		if time.Since(t0) != 0 {
			t.Error("Eventf waited")
		}
		if d := m.events.dropped.Value("buffer_full"); d != 500 {
			t.Errorf("dropped buffer_full = %v, want 500", d)
		}
		// Invalid events are dropped and counted.
		rec.Eventf(widget, "Info", "Synced", "Reconcile", "x")
		rec.Eventf(nil, Normal, "Synced", "Reconcile", "x")
		rec.Eventf(widget, Normal, "", "Reconcile", "x")
		rec.Eventf(widget, Normal, "Synced", strings.Repeat("a", 129), "x")
		if d := m.events.dropped.Value("invalid"); d != 4 {
			t.Errorf("dropped invalid = %v, want 4", d)
		}
		// Once started, the buffered events become one series.
		run := start(t, m)
		synctest.Wait()
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
		evs := listEvents(t, srv, "default")
		if len(evs) != 1 || seriesCount(evs[0]) != eventBufferSize {
			t.Errorf("%d events, count %v; want 1 with count %d", len(evs), seriesCount(evs[0]), eventBufferSize)
		}
		// The metric is exported.
		if s, ok := sample(scrape(t, m), "kubeloop_events_dropped_total", "reason", "buffer_full"); !ok || s.Value != 500 {
			t.Errorf("kubeloop_events_dropped_total{reason=buffer_full} = %v, want 500", s.Value)
		}
	})
}

func TestEventName(t *testing.T) {
	for _, tt := range []struct{ in, prefix string }{
		{"cm1", "cm1."},
		{"System:Controller_Manager", "system-controller-manager."},
		{"a..b", "a.b."},
		{"-.-", "event."},
		{"", "event."},
		{"x.-y-.z", "x.y.z."},
		{strings.Repeat("abc.", 100), "abc.abc."},
	} {
		got := eventName(tt.in)
		if !strings.HasPrefix(got, tt.prefix) || !dnsSubdomain.MatchString(got) || len(got) > 253 {
			t.Errorf("eventName(%q) = %q, want a DNS subdomain of at most 253 characters starting %q", tt.in, got, tt.prefix)
		}
	}
	if eventName("x") == eventName("x") {
		t.Error("eventName gave the same name twice")
	}
}

func TestTruncateUTF8(t *testing.T) {
	if got := truncateUTF8("héllo", 2); got != "h" {
		t.Errorf("truncateUTF8(héllo, 2) = %q, want %q", got, "h")
	}
	if got := truncateUTF8("abc", 5); got != "abc" {
		t.Errorf("truncateUTF8(abc, 5) = %q", got)
	}
}
