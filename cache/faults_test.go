// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// The fault scenarios of the reflector. Each ends by comparing the store
// and a handler's view (rebuilt from its events) with the server, and by
// counting requests to prove there was no relist storm.

func isWatch(ri kubetest.RequestInfo) bool { return ri.Verb == "watch" && ri.Resource == "configmaps" }
func isList(ri kubetest.RequestInfo) bool  { return ri.Verb == "list" && ri.Resource == "configmaps" }

// nth matches the n-th request (from 1) that match accepts. The server
// calls it under its lock, so the counter needs none.
func nth(n int, match func(kubetest.RequestInfo) bool) func(kubetest.RequestInfo) bool {
	seen := 0
	return func(ri kubetest.RequestInfo) bool {
		if !match(ri) {
			return false
		}
		seen++
		return seen == n
	}
}

var expired = kube.NewStatusError(410, kube.ReasonExpired, "too old resource version: 1 (2)")

// syncedInformer seeds n ConfigMaps, starts an informer with a recorder
// and waits for it to sync.
func syncedInformer(t *testing.T, srv *kubetest.Server, c *kube.Client, opts InformerOptions, n int) (*informer, *recorder) {
	t.Helper()
	for k := range n {
		createCM(t, srv, "default", fmt.Sprintf("cm%d", k), map[string]string{"v": "0"})
	}
	return startRecorded(t, srv, c, opts)
}

func TestWatchCutResumesWithoutRelist(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				inf, rec := syncedInformer(t, srv, c, mode.opts, 10)
				srv.ResetCounts()
				undo := srv.Delay(isWatch, time.Second) // hold the reconnect while the server changes
				srv.CutWatches()
				createCM(t, srv, "default", "new", nil)
				updateCM(t, srv, "default", "cm1", map[string]string{"v": "1"})
				deleteCM(t, srv, "default", "cm2")
				undo()
				time.Sleep(time.Minute)
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)
				if got := srv.Count("list", "configmaps"); got != 0 {
					t.Errorf("%d list requests after a cut, want 0 (resume, not relist)", got)
				}
				if got := srv.Count("watch", "configmaps"); got != 1 {
					t.Errorf("%d watch requests after a cut, want 1", got)
				}
				if rec.unknownDeletes != 0 || rec.deletes != 1 || inf.stats().Relists != 0 {
					t.Errorf("after a cut: %d deletes (%d unknown), %d relists; want 1 (0), 0", rec.deletes, rec.unknownDeletes, inf.stats().Relists)
				}
			})
		})
	}
}

// TestCompactionWhileDisconnected: the watch is down while objects are
// deleted, changed, created and replaced, and the history is compacted.
// The resumed watch gets 410; one relist finds the differences.
func TestCompactionWhileDisconnected(t *testing.T) {
	for _, mode := range modes {
		for _, how := range []string{"error event", "http status"} {
			t.Run(mode.name+"/"+how, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv, c := newServer(t, kubetest.Options{})
					inf, rec := syncedInformer(t, srv, c, mode.opts, 10)
					srv.ResetCounts()
					undo := srv.Delay(isWatch, time.Second)
					srv.CutWatches()
					deleteCM(t, srv, "default", "cm1")
					deleteCM(t, srv, "default", "cm2")
					updateCM(t, srv, "default", "cm3", map[string]string{"v": "1"})
					createCM(t, srv, "default", "new", nil)
					deleteCM(t, srv, "default", "cm4") // and created again: a new UID
					createCM(t, srv, "default", "cm4", nil)
					if how == "error event" {
						srv.Compact() // the resumed watch gets an ERROR event with a 410 Status
					} else {
						srv.FailNext(1, isWatch, expired)
					}
					undo()
					time.Sleep(time.Minute)
					synctest.Wait()
					checkConsistent(t, srv, inf, rec)
					if rec.unknownDeletes != 3 {
						t.Errorf("%d deletes with final state unknown, want 3 (cm1, cm2, the old cm4)\n%v", rec.unknownDeletes, rec.log)
					}
					st := inf.stats()
					wantLists, wantWatches := 0, 2 // the 410, then a WatchList
					if !mode.opts.WatchList {
						wantLists = 3 // one relist: 9 objects in pages of 3
					}
					if st.Relists != 1 || srv.Count("list", "configmaps") != wantLists || srv.Count("watch", "configmaps") != wantWatches {
						t.Errorf("%d relists, %d list and %d watch requests; want 1, %d, %d",
							st.Relists, srv.Count("list", "configmaps"), srv.Count("watch", "configmaps"), wantLists, wantWatches)
					}
				})
			})
		}
	}
}

// TestGoneDuringPagedList: the continue token expires between pages; the
// list starts again from the first page, once.
func TestGoneDuringPagedList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		srv.FailNext(1, nth(2, isList), expired)
		inf, rec := syncedInformer(t, srv, c, InformerOptions{PageSize: 3}, 10)
		if got := srv.Count("list", "configmaps"); got != 6 { // page 1, page 2 (410), pages 1-4
			t.Errorf("%d list requests, want 6", got)
		}
		if rec.initialAdds != 10 {
			t.Errorf("%d initial adds, want 10 (the failed list must not leak)", rec.initialAdds)
		}

		// The same during a relist after the sync.
		srv.ResetCounts()
		srv.FailNext(1, nth(2, isList), expired)
		srv.FailNext(1, isWatch, expired)
		deleteCM(t, srv, "default", "cm5")
		srv.CutWatches()
		time.Sleep(time.Minute)
		synctest.Wait()
		checkConsistent(t, srv, inf, rec)
		if got := srv.Count("list", "configmaps"); got != 5 { // page 1, page 2 (410), pages 1-3 of 9
			t.Errorf("relist: %d list requests, want 5", got)
		}
	})
}

// TestServerErrorsDuringList: 500s back off and retry the failed page;
// 429s are retried by the client after Retry-After.
func TestServerErrorsDuringList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		srv.FailNext(3, nth(2, isList), kube.NewStatusError(500, kube.ReasonInternalError, "boom"))
		srv.FailNext(1, isList, kube.NewStatusError(500, kube.ReasonInternalError, "boom"))
		throttled := kube.NewStatusError(429, kube.ReasonTooManyRequests, "slow down")
		throttled.RetryAfter = time.Second
		srv.FailNext(2, isList, throttled)
		start := time.Now()
		syncedInformer(t, srv, c, InformerOptions{PageSize: 3}, 10)
		// Page 1 fails once (500) then twice (429), page 2 fails once more
		// (the rule for the second list request matches once): 4 retries.
		if got := srv.Count("list", "configmaps"); got != 4+4 {
			t.Errorf("%d list requests, want 8 (4 pages, 4 retries)", got)
		}
		// Two 500s in a row: backoffs of [0.4s, 0.8s] and [0.8s, 1.6s];
		// two 429s: 1s each.
		if d := time.Since(start); d < 3200*time.Millisecond || d > 4400*time.Millisecond {
			t.Errorf("sync took %v, want within [3.2s, 4.4s]", d)
		}
	})
}

func TestServerErrorsDuringWatchList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		srv.FailNext(3, isWatch, kube.NewStatusError(500, kube.ReasonInternalError, "boom"))
		inf, _ := syncedInformer(t, srv, c, InformerOptions{WatchList: true}, 10)
		if got := srv.Count("watch", "configmaps"); got != 4 {
			t.Errorf("%d watch requests, want 4 (3 failed WatchLists, then one that works)", got)
		}
		if got := srv.Count("list", "configmaps"); got != 0 {
			t.Errorf("%d list requests, want 0: a 500 is no reason to give up WatchList", got)
		}
		if st := inf.stats(); st.Relists != 0 {
			t.Errorf("%d relists, want 0", st.Relists)
		}
	})
}

func TestWatchListRefusedFallsBackToList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		srv.FailNext(1, isWatch, kube.NewStatusError(422, kube.ReasonInvalid, "sendInitialEvents is forbidden"))
		inf, rec := syncedInformer(t, srv, c, InformerOptions{PageSize: 3}, 10)
		if got := srv.Count("list", "configmaps"); got != 4 {
			t.Errorf("%d list requests, want 4 pages", got)
		}
		// A later relist remembers: no WatchList again.
		srv.ResetCounts()
		srv.FailNext(1, isWatch, expired)
		srv.CutWatches()
		time.Sleep(time.Minute)
		synctest.Wait()
		checkConsistent(t, srv, inf, rec)
		if got := srv.Count("list", "configmaps"); got != 4 {
			t.Errorf("relist: %d list requests, want 4 pages", got)
		}
	})
}

// TestGarbageOnTheStream: a line that is not an event, and an event whose
// object does not decode, each end the watch; it resumes from the last
// good resourceVersion, losing nothing, without a relist.
func TestGarbageOnTheStream(t *testing.T) {
	for _, garbage := range []string{`{"type":"ADDED","object":{"metadata":{"na`, `{"type":"ADDED","object":{"metadata":{"name":5}}}`} {
		t.Run(garbage[20:], func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				inf, rec := syncedInformer(t, srv, c, InformerOptions{}, 3)
				srv.ResetCounts()
				createCM(t, srv, "default", "before", nil)
				srv.InjectWatchGarbage(garbage)
				createCM(t, srv, "default", "after", nil)
				updateCM(t, srv, "default", "cm0", map[string]string{"v": "1"})
				time.Sleep(time.Minute)
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)
				if got := srv.Count("watch", "configmaps"); got != 1 {
					t.Errorf("%d watch requests, want 1 (one resume)", got)
				}
				if st := inf.stats(); st.Relists != 0 || srv.Count("list", "configmaps") != 0 {
					t.Errorf("%d relists and %d lists after garbage, want none", st.Relists, srv.Count("list", "configmaps"))
				}
			})
		})
	}
}

// TestBookmarksOnly: for an hour nothing happens to ConfigMaps while other
// kinds move the resourceVersion on. Watches time out and resume from the
// bookmarks' versions, so that a compaction afterwards costs no relist.
func TestBookmarksOnly(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{BookmarkInterval: time.Minute})
		inf, rec := syncedInformer(t, srv, c, InformerOptions{}, 3)
		srv.ResetCounts()
		secrets := kube.GroupVersionResource{Version: "v1", Resource: "secrets"}
		for n := range 60 {
			if _, err := srv.Create(secrets, map[string]any{"apiVersion": "v1", "kind": "Secret",
				"metadata": map[string]any{"namespace": "default", "name": fmt.Sprintf("s%d", n)}}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(time.Minute)
		}
		time.Sleep(2 * time.Minute) // a bookmark after the last write
		srv.Compact()
		srv.CutWatches()
		time.Sleep(time.Minute)
		synctest.Wait()
		if rec.adds != 3 || rec.updates != 0 || rec.deletes != 0 {
			t.Errorf("events in a quiet hour: %v", rec.log)
		}
		watches := srv.Count("watch", "configmaps")
		// 63 minutes of watches lasting 5 to 10 minutes, plus the cut.
		if watches < 7 || watches > 14 {
			t.Errorf("%d watch requests in 63 minutes, want 7 to 14", watches)
		}
		if st := inf.stats(); st.Relists != 0 || srv.Count("list", "configmaps") != 0 {
			t.Errorf("%d relists, %d lists: a compaction after bookmarks must not relist", st.Relists, srv.Count("list", "configmaps"))
		}
		createCM(t, srv, "default", "late", nil)
		synctest.Wait()
		checkConsistent(t, srv, inf, rec)
	})
}

// cutTransport ends the body of the first cut watch requests that ask for
// initial events after lines lines, as a connection dropped mid-stream
// would.
type cutTransport struct {
	next  http.RoundTripper
	lines int
	mu    sync.Mutex
	cut   int // requests left to cut
}

func (c *cutTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || req.URL.Query().Get("sendInitialEvents") != "true" {
		return resp, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cut > 0 {
		c.cut--
		resp.Body = &cutBody{ReadCloser: resp.Body, r: bufio.NewReader(resp.Body), left: c.lines}
	}
	return resp, nil
}

// cutBody passes lines lines of a stream, then ends it.
type cutBody struct {
	io.ReadCloser
	r    *bufio.Reader
	left int
	line []byte
}

func (b *cutBody) Read(p []byte) (int, error) {
	for len(b.line) == 0 {
		if b.left == 0 {
			return 0, io.ErrUnexpectedEOF
		}
		line, err := b.r.ReadBytes('\n')
		if err != nil {
			return 0, err
		}
		b.line, b.left = line, b.left-1
	}
	n := copy(p, b.line)
	b.line = b.line[n:]
	return n, nil
}

// TestWatchListCutBeforeInitialEventsEnd: a WatchList stream that breaks
// before the initial-events-end bookmark leaves nothing behind: the
// partial state is dropped and the next WatchList gives the whole state.
func TestWatchListCutBeforeInitialEventsEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newBareServer(t, kubetest.Options{})
		for k := range 10 {
			createCM(t, srv, "default", fmt.Sprintf("cm%d", k), nil)
		}
		cfg := srv.Config()
		cfg.QPS = -1
		cfg.Transport = &cutTransport{next: srv.Transport(), lines: 4, cut: 2}
		c, err := kube.NewClient(cfg, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inf, rec := startRecorded(t, srv, c, InformerOptions{WatchList: true})
		if rec.adds != 10 || rec.initialAdds != 10 {
			t.Errorf("%d adds (%d initial), want 10 (10): the broken streams must leave nothing", rec.adds, rec.initialAdds)
		}
		if got := srv.Count("watch", "configmaps"); got != 3 {
			t.Errorf("%d watch requests, want 3 (two cut, one whole)", got)
		}
		if st := inf.stats(); st.Relists != 0 {
			t.Errorf("%d relists, want 0 (the first state was never stored)", st.Relists)
		}
	})
}

// cutFirstList cuts the body of the first list answer after its first
// item, and runs change (a write to the server) before the cut answer
// reaches the client, so that the list asked for again sees another state.
type cutFirstList struct {
	next   http.RoundTripper
	change func()
	done   bool
}

func (c *cutFirstList) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err != nil || c.done || !strings.HasSuffix(req.URL.Path, "/configmaps") || req.URL.Query().Get("watch") == "true" {
		return resp, err
	}
	c.done = true
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	at := strings.Index(string(body), `},{`) + 2 // after the first item
	c.change()
	resp.Body = io.NopCloser(io.MultiReader(strings.NewReader(string(body[:at])), errReader{io.ErrUnexpectedEOF}))
	resp.ContentLength = -1
	return resp, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// TestListCutMidPage: a first page cut after its first item is asked for
// again; the objects of the cut answer must not outlive it when the second
// answer, at a newer resourceVersion, lacks them.
func TestListCutMidPage(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newBareServer(t, kubetest.Options{})
		for _, name := range []string{"a", "b", "c"} {
			createCM(t, srv, "default", name, nil)
		}
		cfg := srv.Config()
		cfg.QPS = -1
		cfg.Transport = &cutFirstList{next: srv.Transport(), change: func() { deleteCM(t, srv, "default", "a") }}
		c, err := kube.NewClient(cfg, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inf, _ := startRecorded(t, srv, c, InformerOptions{})
		if got := srv.Count("list", "configmaps"); got != 2 {
			t.Errorf("%d list requests, want 2 (the cut one and its retry)", got)
		}
		if st := inf.stats(); st.Objects != 2 {
			t.Errorf("%d objects cached, want 2", st.Objects)
		}
	})
}
