// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/race"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// portsReview is the CREATE review of a Widget whose spec holds n ports
// without a port number: about 30 bytes each, every one of which
// whDefault changes.
func portsReview(uid string, n int) string {
	var obj strings.Builder
	obj.WriteString(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"size":1,"ports":[`)
	for i := range n {
		if i > 0 {
			obj.WriteString(",")
		}
		fmt.Fprintf(&obj, `{"name":"widget-port-%07d"}`, i)
	}
	obj.WriteString(`]}}`)
	return whReview{UID: uid, Operation: "CREATE", Kind: (&whWidget{}).GroupVersionKind(), Resource: "widgets", Object: obj.String()}.JSON()
}

// timedDiscard is a discard that records when the answer was written.
type timedDiscard struct {
	discard
	at time.Time
}

func (d *timedDiscard) Write(b []byte) (int, error) {
	if d.at.IsZero() {
		d.at = time.Now()
	}
	return d.discard.Write(b)
}

// TestAdmissionMemoryMeasure measures the heap a mutating webhook's
// reviews take, one review and six at once, of 160,000 ports (5 MB) and
// of 30,000 (0.9 MB), and how long after its arrival a review of 30,000
// ports with a timeout of 1s is answered. It takes a minute and, without
// the admission limits, more than a GiB, so it runs only when asked:
//
//	KUBELOOP_MEASURE=1 go test -run TestAdmissionMemoryMeasure -v ./manager/webhook/
func TestAdmissionMemoryMeasure(t *testing.T) {
	if race.Enabled() {
		t.Skip("the race detector distorts heap peaks")
	}
	if os.Getenv("KUBELOOP_MEASURE") == "" {
		t.Skip("set KUBELOOP_MEASURE=1 to run the measurements")
	}
	h := webhook.MutatingFor[whWidget](webhook.DefaulterFunc[whWidget](whDefault))
	serve := func(body, target string) (code int, answered, returned time.Duration, answer string) {
		req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := &timedDiscard{discard: discard{header: http.Header{}}}
		start := time.Now()
		h.ServeHTTP(w, req)
		return w.code, w.at.Sub(start), time.Since(start), string(w.tail)
	}
	for _, n := range []int{160000, 30000} {
		body := portsReview("uid-m", n)
		for _, at := range []int{1, 6} {
			codes := make([]int, at)
			answers := make([]string, at)
			peak := peakHeap(func() {
				var wg sync.WaitGroup
				for i := range at {
					wg.Go(func() { codes[i], _, _, answers[i] = serve(body, "/mutate?timeout=30s") })
				}
				wg.Wait()
			})
			t.Logf("%d review(s) of %d bytes (%d ports) at once: peak heap %d MiB above the start; answers %v, the first ending %q",
				at, len(body), n, peak>>20, codes, answers[0][max(0, len(answers[0])-80):])
		}
	}
	body := portsReview("uid-t", 30000)
	for range 3 {
		code, answered, returned, answer := serve(body, "/mutate?timeout=1s")
		t.Logf("timeout=1s: answered %d after %v (returned after %v), ending %q",
			code, answered.Round(time.Millisecond), returned.Round(time.Millisecond), answer[max(0, len(answer)-80):])
	}
}
