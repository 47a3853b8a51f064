// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// The reflector alone, between a scripted listerWatcher and a sink that
// records what it is told: no server, no informer.

// fakeLW answers list and watch calls in turn from its script; a watch
// past the script, or one whose script has no end, blocks until its
// context ends. It records each call, with when it came.
type fakeLW struct {
	start   time.Time
	lists   []fakeList
	watches []fakeWatch
	calls   []string
}

type fakeList struct {
	objs []kube.Object
	meta kube.ListMeta
	err  error
}

type fakeWatch struct {
	events []event
	// end is what next returns after the events; nil blocks.
	end error
}

// record records a call, with when it came: time passes in the test's
// bubble only while the reflector waits, and its first backoff is drawn
// within [0.4s, 0.8s].
func (f *fakeLW) record(verb string, opts kube.ListOptions) {
	at := time.Since(f.start).String()
	if d := time.Since(f.start); d >= 400*time.Millisecond && d <= 800*time.Millisecond {
		at = "0.4-0.8s"
	}
	call := fmt.Sprintf("%s %s rv=%q", at, verb, opts.ResourceVersion)
	if opts.SendInitialEvents {
		call += " initial"
	}
	f.calls = append(f.calls, call)
}

func (f *fakeLW) list(_ context.Context, opts kube.ListOptions, each func(kube.Object, int32)) (kube.ListMeta, error) {
	f.record("list", opts)
	if len(f.lists) == 0 {
		return kube.ListMeta{}, fmt.Errorf("list past the script")
	}
	l := f.lists[0]
	f.lists = f.lists[1:]
	for _, obj := range l.objs {
		each(obj, 100)
	}
	return l.meta, l.err
}

func (f *fakeLW) watch(ctx context.Context, opts kube.ListOptions) (eventStream, error) {
	f.record("watch", opts)
	var w fakeWatch
	if len(f.watches) > 0 {
		w, f.watches = f.watches[0], f.watches[1:]
	}
	return &fakeStream{ctx: ctx, fakeWatch: w}, nil
}

type fakeStream struct {
	ctx context.Context
	fakeWatch
}

func (s *fakeStream) next() (event, error) {
	if len(s.events) > 0 {
		ev := s.events[0]
		s.events = s.events[1:]
		return ev, nil
	}
	if s.end != nil {
		return event{}, s.end
	}
	<-s.ctx.Done()
	return event{}, s.ctx.Err()
}

func (s *fakeStream) stop() {}

// fakeSink records what the reflector writes.
type fakeSink struct{ ops []string }

func (s *fakeSink) newState() *state { return newState(nil) }

func (s *fakeSink) replace(next *state, initial bool) {
	var objs []string
	for ns, names := range next.objects {
		for name, e := range names {
			objs = append(objs, ns+"/"+name+"@"+e.v.(kube.Object).GetObjectMeta().ResourceVersion)
		}
	}
	slices.Sort(objs)
	s.ops = append(s.ops, fmt.Sprintf("replace initial=%v %v", initial, objs))
}

func (s *fakeSink) apply(typ kube.EventType, obj kube.Object, _ int32) {
	m := obj.GetObjectMeta()
	s.ops = append(s.ops, fmt.Sprintf("%s %s@%s", typ, m.Key(), m.ResourceVersion))
}

func fakeCM(name, rv string) *kube.ConfigMap {
	return &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
}

func added(name, rv string) event {
	return event{typ: kube.Added, obj: fakeCM(name, rv), size: 100}
}

func modified(name, rv string) event {
	return event{typ: kube.Modified, obj: fakeCM(name, rv), size: 100}
}

func bookmark(rv string, initialEnd bool) event {
	return event{typ: kube.Bookmark, rv: rv, initialEnd: initialEnd}
}

var gone = kube.NewStatusError(410, kube.ReasonExpired, "too old resource version: 1 (3)")

func TestReflectorAlone(t *testing.T) {
	tests := []struct {
		name      string
		watchList bool
		lists     []fakeList
		watches   []fakeWatch
		// wantCalls and wantOps are the calls the listerWatcher sees and
		// what the sink is told; wantStats lists, watches, relists, events.
		wantCalls, wantOps []string
		wantStats          [4]uint64
	}{{
		name: "a 410 mid-watch gives one relist, after a backoff",
		lists: []fakeList{
			{objs: []kube.Object{fakeCM("a", "1"), fakeCM("b", "1")}, meta: kube.ListMeta{ResourceVersion: "1"}},
			{objs: []kube.Object{fakeCM("a", "3"), fakeCM("c", "3")}, meta: kube.ListMeta{ResourceVersion: "3"}},
		},
		watches:   []fakeWatch{{events: []event{modified("a", "2")}, end: gone}},
		wantCalls: []string{`0s list rv=""`, `0s watch rv="1"`, `0.4-0.8s list rv=""`, `0.4-0.8s watch rv="3"`},
		wantOps: []string{
			"replace initial=true [ns/a@1 ns/b@1]",
			"MODIFIED ns/a@2",
			"replace initial=false [ns/a@3 ns/c@3]",
		},
		wantStats: [4]uint64{2, 2, 1, 1},
	}, {
		name:      "the same with WatchList",
		watchList: true,
		watches: []fakeWatch{
			{events: []event{added("a", "1"), added("b", "1"), bookmark("1", true), modified("a", "2")}, end: gone},
			{events: []event{added("a", "3"), added("c", "3"), bookmark("3", true)}},
		},
		wantCalls: []string{`0s watch rv="" initial`, `0.4-0.8s watch rv="" initial`},
		wantOps: []string{
			"replace initial=true [ns/a@1 ns/b@1]",
			"MODIFIED ns/a@2",
			"replace initial=false [ns/a@3 ns/c@3]",
		},
		wantStats: [4]uint64{0, 2, 1, 5},
	}, {
		name:  "a watch that ends resumes from the last version seen, a bookmark's",
		lists: []fakeList{{objs: []kube.Object{fakeCM("a", "1")}, meta: kube.ListMeta{ResourceVersion: "1"}}},
		watches: []fakeWatch{
			{events: []event{modified("a", "2"), bookmark("5", false)}, end: io.EOF},
		},
		wantCalls: []string{`0s list rv=""`, `0s watch rv="1"`, `0s watch rv="5"`},
		wantOps:   []string{"replace initial=true [ns/a@1]", "MODIFIED ns/a@2"},
		wantStats: [4]uint64{1, 2, 0, 1},
	}, {
		name:      "a WatchList refused falls back to lists",
		watchList: true,
		lists:     []fakeList{{objs: []kube.Object{fakeCM("a", "1")}, meta: kube.ListMeta{ResourceVersion: "4"}}},
		watches:   []fakeWatch{{end: kube.NewStatusError(422, kube.ReasonInvalid, "sendInitialEvents is forbidden")}},
		wantCalls: []string{`0s watch rv="" initial`, `0s list rv=""`, `0s watch rv="4"`},
		wantOps:   []string{"replace initial=true [ns/a@1]"},
		wantStats: [4]uint64{1, 2, 0, 0},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lw := &fakeLW{start: time.Now(), lists: tt.lists, watches: tt.watches}
				sink := &fakeSink{}
				var stats readStats
				r := &reflector{lw: lw, sink: sink, log: slog.New(slog.DiscardHandler), stats: &stats,
					pageSize: 500, watchList: tt.watchList}
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() { defer close(done); r.run(ctx) }()
				time.Sleep(time.Minute)
				synctest.Wait()
				cancel()
				<-done
				if !slices.Equal(lw.calls, tt.wantCalls) {
					t.Errorf("calls:\n%q\nwant\n%q", lw.calls, tt.wantCalls)
				}
				if !slices.Equal(sink.ops, tt.wantOps) {
					t.Errorf("sink told:\n%q\nwant\n%q", sink.ops, tt.wantOps)
				}
				got := [4]uint64{stats.lists.Load(), stats.watches.Load(), stats.relists.Load(), stats.events.Load()}
				if got != tt.wantStats {
					t.Errorf("lists, watches, relists, events = %v, want %v", got, tt.wantStats)
				}
			})
		})
	}
}
