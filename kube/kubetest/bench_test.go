// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// seedConfigMaps stores n configmaps in namespace default.
func seedConfigMaps(tb testing.TB, s *Server, n int) {
	tb.Helper()
	for i := range n {
		_, err := s.Create(gvrConfigMaps, map[string]any{
			"metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i), "labels": map[string]any{"app": "bench"}},
			"data":     map[string]any{"k": "v", "payload": "0123456789abcdef0123456789abcdef"},
		})
		if err != nil {
			tb.Fatalf("seed: %v", err)
		}
	}
}

// retainedHeap returns the live heap after a collection, in bytes.
func retainedHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkWatchFanOut writes to one of 10,000 configmaps per iteration
// while 20 in-process watchers stream every event. It reports the cost of
// a write including its delivery to all watchers, and the heap retained
// after the run (objects, the bounded history and idle watchers): it must
// not grow with b.N.
//
//	go test -run '^$' -bench WatchFanOut -benchmem ./kube/kubetest/
func BenchmarkWatchFanOut(b *testing.B) {
	const objects, watchers = 10000, 20
	s := New(Options{})
	defer s.Close()
	seedConfigMaps(b, s, objects)
	hc := &http.Client{Transport: s.Transport()}
	var seen atomic.Int64
	var wg sync.WaitGroup
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	start := s.CurrentResourceVersion()
	for range watchers {
		req, _ := http.NewRequestWithContext(ctx, "GET", "https://kubetest.invalid/api/v1/namespaces/default/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion="+start, nil)
		resp, err := hc.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		wg.Go(func() {
			defer resp.Body.Close()
			r := bufio.NewReaderSize(resp.Body, 64<<10)
			for {
				if _, err := r.ReadSlice('\n'); err != nil {
					if err != io.EOF && ctx.Err() == nil {
						b.Errorf("watch: %v", err)
					}
					return
				}
				seen.Add(1)
			}
		})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("cm-%05d", i%objects)
		_, err := s.Update(gvrConfigMaps, map[string]any{
			"metadata": map[string]any{"name": name, "labels": map[string]any{"app": "bench"}},
			"data":     map[string]any{"k": fmt.Sprint(i), "payload": "0123456789abcdef0123456789abcdef"},
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	for seen.Load() < int64(b.N*watchers) {
		runtime.Gosched()
	}
	b.StopTimer()
	b.ReportMetric(float64(retainedHeap())/(1<<20), "retained-MiB")
	cancel()
	s.CutWatches()
	wg.Wait()
}

// BenchmarkListPaged lists 10,000 configmaps in pages of 500 through the
// in-process transport, as a reflector's first list does.
func BenchmarkListPaged(b *testing.B) {
	s := New(Options{})
	defer s.Close()
	seedConfigMaps(b, s, 10000)
	c := newClient(b, s)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		cont := ""
		for {
			p := cmPath + "?limit=500"
			if cont != "" {
				p += "&continue=" + cont
			}
			page := c.do("GET", p, "")
			if page.code != 200 {
				b.Fatalf("list = %d", page.code)
			}
			// The token is in the metadata, before the items: no need to
			// decode the page.
			_, rest, ok := bytes.Cut(page.body[:min(len(page.body), 512)], []byte(`"continue":"`))
			if !ok {
				break
			}
			cont, _, _ = strings.Cut(string(rest), `"`)
		}
	}
}

// TestMemoryBounded checks the bounds BenchmarkWatchFanOut relies on: the
// history never holds more than HistorySize events, and a watcher that
// reads nothing never queues more than WatchBufferSize events.
func TestMemoryBounded(t *testing.T) {
	s := New(Options{HistorySize: 100, WatchBufferSize: 50})
	defer s.Close()
	seedConfigMaps(t, s, 200)
	c := newClient(t, s)
	resp := c.open(context.Background(), "GET", cmPath+"?watch=1&resourceVersion="+s.CurrentResourceVersion(), "")
	defer resp.Body.Close()
	for i := range 1000 {
		if _, err := s.Update(gvrConfigMaps, map[string]any{"metadata": map[string]any{"name": fmt.Sprintf("cm-%05d", i%200)},
			"data": map[string]any{"k": fmt.Sprint(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	s.mu.Lock()
	col := s.cols["/configmaps"]
	held, watchers := col.n, len(col.watchers)
	s.mu.Unlock()
	if held > 100 {
		t.Errorf("history holds %d events, want at most 100", held)
	}
	if watchers != 0 {
		t.Errorf("%d watchers registered after the unread watch overflowed, want 0", watchers)
	}
}
