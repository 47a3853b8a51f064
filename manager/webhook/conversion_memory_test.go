// SPDX-License-Identifier: Apache-2.0

// The race detector changes what memory measurements mean, and slows
// them down ten times.

package webhook_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/race"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// discard is a ResponseWriter that keeps only the status, the byte count
// and the end of the body, so that a test's own copy of a large answer
// does not count in the heap it measures.
type discard struct {
	header http.Header
	code   int
	n      int
	tail   []byte
}

func (d *discard) Header() http.Header { return d.header }
func (d *discard) WriteHeader(code int) {
	if d.code == 0 {
		d.code = code
	}
}
func (d *discard) Write(b []byte) (int, error) {
	d.WriteHeader(http.StatusOK)
	d.n += len(b)
	d.tail = append(d.tail, b[max(0, len(b)-200):]...)
	d.tail = d.tail[max(0, len(d.tail)-200):]
	return len(b), nil
}

// peakHeap runs fn and returns the most heap it saw in use above what was
// in use before, sampled every 100µs. The collector is made eager
// (GOGC=10) meanwhile, so that the samples stay close to the live heap.
func peakHeap(fn func()) uint64 {
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > base && ms.HeapAlloc-base > peak.Load() {
				peak.Store(ms.HeapAlloc - base)
			}
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Microsecond):
			}
		}
	}()
	fn()
	close(stop)
	<-stopped
	return peak.Load()
}

// TestConversionMemoryOfMaximalReview: a review at the size limit holds
// at most its body and the converted objects, about twice its size. (When
// the objects were copied out of the body and the answer marshaled whole,
// this sampled 2.0 to 2.8 times the review, and the review allocated 10
// times its size; now about 1.1 and 5.)
func TestConversionMemoryOfMaximalReview(t *testing.T) {
	if race.Enabled() {
		t.Skip("the race detector distorts heap peaks")
	}
	if testing.Short() {
		t.Skip("builds and converts a review at the size limit")
	}
	c := widgetConversions(t)
	body := bigReview(webhook.MaxConversionBytes)
	var d discard
	peak := peakHeap(func() {
		req := httptest.NewRequest(http.MethodPost, "/convert", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		d = discard{header: http.Header{}}
		c.ServeHTTP(&d, req)
	})
	if d.code != 200 || !bytes.Contains(d.tail, []byte(`"status":"Success"`)) {
		t.Fatalf("answer = %d, %d bytes ending %q; want 200 and a Success", d.code, d.n, d.tail)
	}
	ratio := float64(peak) / float64(len(body))
	t.Logf("review of %d bytes: peak heap %d bytes above the start, %.2f times the review", len(body), peak, ratio)
	if ratio > 2.5 {
		t.Errorf("peak heap %.2f times the review's size, want at most 2.5 (the body and the converted objects)", ratio)
	}
}
