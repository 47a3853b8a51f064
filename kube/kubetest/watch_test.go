// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// stream reads a watch line by line in a goroutine, so that a test in a
// synctest bubble can wait with synctest.Wait and then see whether a line
// arrived.
type stream struct {
	t     *testing.T
	resp  *http.Response
	lines chan []byte
}

func openWatch(t *testing.T, c *client, path string, headers ...string) *stream {
	t.Helper()
	resp := c.open(context.Background(), "GET", path, "", headers...)
	if resp.StatusCode != 200 {
		t.Fatalf("watch %s = %d", path, resp.StatusCode)
	}
	st := &stream{t: t, resp: resp, lines: make(chan []byte, 100000)}
	go func() {
		defer close(st.lines)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			st.lines <- append([]byte(nil), sc.Bytes()...)
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

// next returns the next event, failing when the stream ended.
func (s *stream) next() map[string]any {
	s.t.Helper()
	line, ok := <-s.lines
	if !ok {
		s.t.Fatalf("watch ended, want another event")
	}
	var m map[string]any
	if err := json.Unmarshal(line, &m); err != nil {
		s.t.Fatalf("watch line %q: %v", line, err)
	}
	return m
}

// pending returns the lines available now, after the bubble settled, and
// whether the stream has ended.
func (s *stream) pending() (lines []string, ended bool) {
	synctest.Wait()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				return lines, true
			}
			lines = append(lines, string(l))
		default:
			return lines, false
		}
	}
}

// summary summarizes an event as "TYPE name rv".
func summary(m map[string]any) string {
	return fmt.Sprint(m["type"], " ", field(m, "object.metadata.name"), " ", field(m, "object.metadata.resourceVersion"))
}

func TestWatchReplaysFromResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		from := s.CurrentResourceVersion()
		a := createCM(c, "a", "")
		c.mustDo(200, "DELETE", cmPath+"/a", "")
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+from)
		if e := w.next(); e["type"] != "ADDED" || field(e, "object.metadata.resourceVersion") != field(a, "metadata.resourceVersion") {
			t.Errorf("first event = %s, want ADDED a at %v", summary(e), field(a, "metadata.resourceVersion"))
		}
		if e := w.next(); e["type"] != "DELETED" || field(e, "object.metadata.resourceVersion") != s.CurrentResourceVersion() {
			t.Errorf("second event = %s, want DELETED a at %s", summary(e), s.CurrentResourceVersion())
		}
		createCM(c, "b", "")
		if e := w.next(); e["type"] != "ADDED" || field(e, "object.metadata.name") != "b" {
			t.Errorf("live event = %s, want ADDED b", summary(e))
		}
		if lines, ended := w.pending(); len(lines) > 0 || ended {
			t.Errorf("after the events: %q, ended %v; want nothing more", lines, ended)
		}
	})
}

func TestWatchTooOldMatchesCapture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{HistorySize: 2})
		from := s.CurrentResourceVersion()
		for i := range 4 {
			createCM(c, fmt.Sprint("c", i), "")
		}
		// The history holds the last two events; the oldest of them is
		// current-1, so versions below current-2 are gone.
		cur, _ := strconv.Atoi(s.CurrentResourceVersion())
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+from)
		line, ok := <-w.lines
		if !ok {
			t.Fatal("watch ended without an event")
		}
		want := wireCaptures(t, "23b-watch-too-old.txt")[0]
		wantMsg := fmt.Sprintf("too old resource version: %s (%d)", from, cur-2)
		sameShape(t, "23b", []byte(strings.Replace(string(line), wantMsg, "too old resource version: 300 (321)", 1)), want.body)
		var ev struct {
			Object struct{ Message string }
		}
		_ = json.Unmarshal(line, &ev)
		if ev.Object.Message != wantMsg {
			t.Errorf("message = %q, want %q", ev.Object.Message, wantMsg)
		}
		if lines, ended := w.pending(); len(lines) > 0 || !ended {
			t.Errorf("after the ERROR event: %q, ended %v; want the end of the stream", lines, ended)
		}
		// Still inside the window: no error.
		w2 := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+strconv.Itoa(cur-2))
		if e := w2.next(); e["type"] != "ADDED" || field(e, "object.metadata.name") != "c2" {
			t.Errorf("watch at the window's edge = %s, want ADDED c2", summary(e))
		}
	})
}

func TestWatchInitialEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		createCM(c, "a", "")
		createCM(c, "b", "")
		for _, tc := range []struct {
			query    string
			bookmark bool
		}{
			{"?watch=1", false},
			{"?watch=true&resourceVersion=0", false},
			{"?watch=1&allowWatchBookmarks=true", true},
			{"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=1", true},
		} {
			w := openWatch(t, c, cmPath+tc.query)
			var got []string
			for range 2 {
				got = append(got, summary(w.next()))
			}
			if !strings.HasPrefix(got[0], "ADDED a ") || !strings.HasPrefix(got[1], "ADDED b ") {
				t.Errorf("watch %s initial events = %v, want ADDED a, ADDED b", tc.query, got)
			}
			lines, _ := w.pending()
			if tc.bookmark {
				want := `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"` +
					s.CurrentResourceVersion() + `","annotations":{"k8s.io/initial-events-end":"true"}}}}`
				if len(lines) != 1 || lines[0] != want {
					t.Errorf("watch %s after the initial events: %q, want %s", tc.query, lines, want)
				}
			} else if len(lines) != 0 {
				t.Errorf("watch %s after the initial events: %q, want nothing", tc.query, lines)
			}
		}
		// sendInitialEvents=false starts at the version given, without the state.
		w := openWatch(t, c, cmPath+"?watch=1&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&resourceVersion="+s.CurrentResourceVersion())
		if lines, _ := w.pending(); len(lines) != 0 {
			t.Errorf("sendInitialEvents=false sent %q, want nothing", lines)
		}
	})
}

func TestWatchSelectionEnterAndLeave(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		createCM(c, "a", `{"app":"x"}`)
		w := openWatch(t, c, cmPath+"?watch=1&labelSelector=app%3Dx&resourceVersion="+s.CurrentResourceVersion())
		c.mustDo(200, "PATCH", cmPath+"/a", `{"metadata":{"labels":{"app":"y"}}}`, "Content-Type", "application/merge-patch+json")
		e := w.next()
		if e["type"] != "DELETED" || field(e, "object.metadata.resourceVersion") != s.CurrentResourceVersion() ||
			field(e, "object.metadata.labels.app") != "x" {
			t.Errorf("leaving the selection = %s labels %v, want DELETED with the previous state at %s",
				summary(e), field(e, "object.metadata.labels"), s.CurrentResourceVersion())
		}
		c.mustDo(200, "PATCH", cmPath+"/a", `{"data":{"k":"2"}}`, "Content-Type", "application/merge-patch+json")
		if lines, _ := w.pending(); len(lines) != 0 {
			t.Errorf("change outside the selection sent %q", lines)
		}
		c.mustDo(200, "PATCH", cmPath+"/a", `{"metadata":{"labels":{"app":"x"}}}`, "Content-Type", "application/merge-patch+json")
		if e := w.next(); e["type"] != "ADDED" || field(e, "object.metadata.labels.app") != "x" {
			t.Errorf("entering the selection = %s, want ADDED", summary(e))
		}
		fw := openWatch(t, c, "/api/v1/configmaps?watch=1&fieldSelector=metadata.name%3Db&resourceVersion="+s.CurrentResourceVersion())
		createCM(c, "c", "")
		createCM(c, "b", "")
		if e := fw.next(); e["type"] != "ADDED" || field(e, "object.metadata.name") != "b" {
			t.Errorf("field-selected watch = %s, want ADDED b only", summary(e))
		}
	})
}

func TestWatchBookmarksAndTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		start := time.Now()
		w := openWatch(t, c, cmPath+"?watch=1&allowWatchBookmarks=true&timeoutSeconds=150&resourceVersion="+s.CurrentResourceVersion())
		time.Sleep(59 * time.Second)
		if lines, _ := w.pending(); len(lines) != 0 {
			t.Fatalf("before the interval: %q, want nothing", lines)
		}
		createCM(c, "a", "")
		time.Sleep(2 * time.Second)
		lines, _ := w.pending()
		want := `{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"` + s.CurrentResourceVersion() + `"}}}`
		if len(lines) != 2 || !strings.Contains(lines[0], `"ADDED"`) || lines[1] != want {
			t.Fatalf("after a minute: %q, want the ADDED event and %s", lines, want)
		}
		time.Sleep(60 * time.Second)
		if lines, _ := w.pending(); len(lines) != 1 || !strings.Contains(lines[0], "BOOKMARK") {
			t.Fatalf("after two minutes: %q, want a second bookmark", lines)
		}
		time.Sleep(28 * time.Second)
		if _, ended := w.pending(); ended {
			t.Fatal("watch ended before its timeout")
		}
		time.Sleep(time.Second)
		lines, ended := w.pending()
		if !ended || len(lines) != 1 || !strings.Contains(lines[0], "BOOKMARK") {
			t.Fatalf("at the timeout: %q ended %v, want a last bookmark and the end", lines, ended)
		}
		if d := time.Since(start); d != 150*time.Second {
			t.Errorf("watch lasted %v, want 150s", d)
		}
	})
}

func TestWatchEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(s *Server)
	}{
		{"CutWatches", (*Server).CutWatches},
		{"Close", (*Server).Close},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s, c := newTestServer(t, Options{})
				w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion())
				createCM(c, "a", "")
				tc.end(s)
				lines, ended := w.pending()
				if !ended {
					t.Fatalf("watch still open after %s", tc.name)
				}
				if len(lines) > 1 {
					t.Errorf("after %s: %q", tc.name, lines)
				}
			})
		})
	}
}

func TestWatchClientGoes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		ctx, cancel := context.WithCancel(context.Background())
		resp := c.open(ctx, "GET", cmPath+"?watch=1&allowWatchBookmarks=true", "")
		synctest.Wait()
		s.mu.Lock()
		n := len(s.cols["/configmaps"].watchers)
		s.mu.Unlock()
		if n != 1 {
			t.Fatalf("%d watchers registered, want 1", n)
		}
		cancel()
		resp.Body.Close() // waits for the handler to end
		s.mu.Lock()
		n = len(s.cols["/configmaps"].watchers)
		s.mu.Unlock()
		if n != 0 {
			t.Errorf("%d watchers after the client went, want 0", n)
		}
	})
}

func TestWatchSlowClientIsClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{WatchBufferSize: 3})
		resp := c.open(context.Background(), "GET", cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion(), "")
		defer resp.Body.Close()
		// Nobody reads: the handler blocks on its first write and the
		// queue fills.
		for i := range 20 {
			createCM(c, fmt.Sprint("c", i), "")
			synctest.Wait()
		}
		sc := bufio.NewScanner(resp.Body)
		n := 0
		for sc.Scan() {
			n++
		}
		if n == 0 || n >= 20 {
			t.Errorf("slow watch got %d events before it ended, want some but not all 20", n)
		}
	})
}

func TestWatchGarbage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion())
		createCM(c, "a", "")
		s.InjectWatchGarbage(`{"type":"ADDED","object":{`)
		lines, _ := w.pending()
		if len(lines) != 2 || lines[1] != `{"type":"ADDED","object":{` {
			t.Errorf("stream = %q, want an event then the garbage line", lines)
		}
	})
}

// TestExpireWatches: under the fault every watch ends in a 410 ERROR
// event, a WatchList after its initial state; once undone, watches work.
func TestExpireWatches(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		createCM(c, "a", "")
		undo := s.ExpireWatches()
		for _, tc := range []struct {
			query string
			want  []string // event types, then the end of the stream
		}{
			{"?watch=1&resourceVersion=" + s.CurrentResourceVersion(), []string{"ERROR"}},
			{"?watch=1", []string{"ADDED", "ERROR"}}, // no version: the state first
			{"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true", []string{"ADDED", "BOOKMARK", "ERROR"}},
		} {
			w := openWatch(t, c, cmPath+tc.query)
			lines, ended := w.pending()
			var got []string
			for _, l := range lines {
				var ev struct {
					Type   string
					Object struct {
						Code   int
						Reason string
					}
				}
				_ = json.Unmarshal([]byte(l), &ev)
				got = append(got, ev.Type)
				if ev.Type == "ERROR" && (ev.Object.Code != 410 || ev.Object.Reason != "Expired") {
					t.Errorf("%s: ERROR event %s, want a 410 Expired Status", tc.query, l)
				}
			}
			if strings.Join(got, " ") != strings.Join(tc.want, " ") || !ended {
				t.Errorf("%s under ExpireWatches: %v (ended %v), want %v then the end", tc.query, got, ended, tc.want)
			}
		}
		undo()
		undo() // a second call does nothing
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion())
		createCM(c, "b", "")
		if lines, ended := w.pending(); len(lines) != 1 || ended {
			t.Errorf("after undo: %q (ended %v), want one event and an open stream", lines, ended)
		}
	})
}

func TestWatchPartialObjectMetadata(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		_, c := newTestServer(t, Options{})
		createCM(c, "a", "")
		w := openWatch(t, c, cmPath+"?watch=1&allowWatchBookmarks=true", "Accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json")
		e := w.next()
		if field(e, "object.kind") != "PartialObjectMetadata" || field(e, "object.apiVersion") != "meta.k8s.io/v1" ||
			field(e, "object.data") != nil || field(e, "object.metadata.name") != "a" {
			t.Errorf("event = %v, want a PartialObjectMetadata of a", e)
		}
		b := w.next()
		if b["type"] != "BOOKMARK" || field(b, "object.kind") != "PartialObjectMetadata" {
			t.Errorf("bookmark = %v, want a PartialObjectMetadata bookmark", b)
		}
	})
}

func TestWatchFutureResourceVersion(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s, c := newTestServer(t, Options{})
		cur, _ := strconv.Atoi(s.CurrentResourceVersion())
		// A WatchList must see the version first: 504 as for a list.
		r := c.do("GET", cmPath+"?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion="+strconv.Itoa(cur+2), "")
		if r.code != 504 || r.json(t)["reason"] != "Timeout" {
			t.Errorf("WatchList at a future version = %d %s, want 504 Timeout", r.code, r.body)
		}
		// A plain watch starts at that version: events up to it are skipped.
		w := openWatch(t, c, cmPath+"?watch=1&resourceVersion="+strconv.Itoa(cur+2))
		createCM(c, "a", "")
		createCM(c, "b", "")
		createCM(c, "c", "")
		if e := w.next(); field(e, "object.metadata.name") != "c" {
			t.Errorf("first event = %s, want c (after version %d)", summary(e), cur+2)
		}
	})
}

// TestWatchOrderUnderConcurrency checks that concurrent writers' events
// reach every watcher once each, in resourceVersion order.
func TestWatchOrderUnderConcurrency(t *testing.T) {
	s, c := newTestServer(t, Options{})
	const writers, each, watchers = 4, 50, 3
	from := s.CurrentResourceVersion()
	var ws []*stream
	for range watchers {
		ws = append(ws, openWatch(t, c, cmPath+"?watch=1&resourceVersion="+from))
	}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := s.Create(gvrConfigMaps, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("w%d-%d", w, i)}}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	for i, w := range ws {
		last := 0
		for range writers * each {
			e := w.next()
			rv, _ := strconv.Atoi(field(e, "object.metadata.resourceVersion").(string))
			if e["type"] != "ADDED" || rv <= last {
				t.Fatalf("watcher %d: %s after rv %d", i, summary(e), last)
			}
			last = rv
		}
	}
}
