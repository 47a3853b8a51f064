// SPDX-License-Identifier: Apache-2.0

package scenario

import (
	"fmt"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

var configMapKind = (&kube.ConfigMap{}).GroupVersionKind()

// nextObject returns the next non-bookmark event and its ConfigMap.
func nextObject(t *testing.T, w *kube.Watcher) (kube.EventType, kube.ConfigMap) {
	t.Helper()
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watch: %v", err)
		}
		if ev.Type == kube.Bookmark {
			continue
		}
		var cm kube.ConfigMap
		if err := ev.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		return ev.Type, cm
	}
}

func testWatch(t *testing.T, f *fixture) {
	var list kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns}); err != nil {
		t.Fatal(err)
	}
	w, err := f.c.Watch(f.ctx, configMapKind, kube.ListOptions{Namespace: f.ns, ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	cm := f.configMap("w1", nil, map[string]string{"a": "1"})
	f.mustCreate(t, cm)
	if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"a":"2"}}`)}); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Delete(f.ctx, cm); err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		typ, obj := nextObject(t, w)
		got = append(got, fmt.Sprintf("%s %s a=%s", typ, obj.Name, obj.Data["a"]))
	}
	if want := "[ADDED w1 a=1 MODIFIED w1 a=2 DELETED w1 a=2]"; fmt.Sprint(got) != want {
		t.Errorf("events = %v, want %s", got, want)
	}

	// Resuming from a version replays what came after it.
	w2, err := f.c.Watch(f.ctx, configMapKind, kube.ListOptions{Namespace: f.ns, ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Stop()
	if typ, obj := nextObject(t, w2); typ != kube.Added || obj.Name != "w1" {
		t.Errorf("replayed first event %s %s, want ADDED w1", typ, obj.Name)
	}

	// The metadata projection applies to watch events too.
	w3, err := f.c.Watch(f.ctx, configMapKind, kube.ListOptions{Namespace: f.ns, ResourceVersion: list.ResourceVersion, MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w3.Stop()
	ev, err := w3.Next()
	if err != nil {
		t.Fatal(err)
	}
	var meta kube.PartialObjectMetadata
	if err := ev.Decode(&meta); err != nil {
		t.Fatal(err)
	}
	if meta.Kind != "PartialObjectMetadata" || meta.Name != "w1" {
		t.Errorf("metadata watch event object kind %q name %q, want PartialObjectMetadata w1", meta.Kind, meta.Name)
	}
}

func testWatchSelectorLeaves(t *testing.T, f *fixture) {
	cm := f.configMap("sel", map[string]string{"watched": "yes"}, nil)
	f.mustCreate(t, cm)
	w, err := f.c.Watch(f.ctx, configMapKind, kube.ListOptions{Namespace: f.ns, ResourceVersion: cm.ResourceVersion, LabelSelector: kube.MustParseSelector("watched=yes")})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"watched":"no"}}}`)}); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Patch(f.ctx, cm, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"metadata":{"labels":{"watched":"yes"}}}`)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []kube.EventType{kube.Deleted, kube.Added} {
		if typ, obj := nextObject(t, w); typ != want || obj.Name != "sel" {
			t.Errorf("event %s %s, want %s sel", typ, obj.Name, want)
		}
	}
}

func testWatchList(t *testing.T, f *fixture) {
	f.seed(t, 3)
	w, err := f.c.Watch(f.ctx, configMapKind, kube.ListOptions{
		Namespace: f.ns, SendInitialEvents: true, ResourceVersionMatch: kube.MatchNotOlderThan, AllowWatchBookmarks: true,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var initial []string
	for {
		ev, err := w.Next()
		if err != nil {
			t.Fatalf("watch list: %v after %v", err, initial)
		}
		if ev.Type == kube.Bookmark {
			if ev.InitialEventsEnd {
				if ev.ResourceVersion == "" {
					t.Error("initial-events-end bookmark without a resourceVersion")
				}
				break
			}
			continue
		}
		var cm kube.ConfigMap
		if err := ev.Decode(&cm); err != nil {
			t.Fatal(err)
		}
		if ev.Type != kube.Added {
			t.Errorf("initial event %s, want ADDED", ev.Type)
		}
		initial = append(initial, cm.Name)
	}
	if len(initial) != 3 {
		t.Errorf("initial events %v, want the 3 objects", initial)
	}
	f.mustCreate(t, f.configMap("late", nil, nil))
	if typ, obj := nextObject(t, w); typ != kube.Added || obj.Name != "late" {
		t.Errorf("live event %s %s, want ADDED late", typ, obj.Name)
	}
}

func testGone(t *testing.T, f *fixture) {
	if f.env.Compact == nil {
		t.Fatal("the environment cannot compact history: this scenario cannot run")
	}
	f.seed(t, 3)
	var page kube.List[kube.ConfigMap]
	if err := f.c.List(f.ctx, &page, kube.ListOptions{Namespace: f.ns, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	old := page.ResourceVersion
	f.mustCreate(t, f.configMap("after", nil, nil)) // history moves on past old
	f.env.Compact(f.ctx, t, f.c, old)

	var list kube.List[kube.ConfigMap]
	err := f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, ResourceVersion: old, ResourceVersionMatch: kube.MatchExact})
	if !kube.IsGone(err) {
		t.Errorf("List Exact at a compacted version = %v, want 410", err)
	}
	err = f.c.List(f.ctx, &list, kube.ListOptions{Namespace: f.ns, Limit: 1, Continue: page.Continue})
	if !kube.IsGone(err) {
		t.Errorf("List with a continue token from a compacted version = %v, want 410", err)
	}
}
