// SPDX-License-Identifier: Apache-2.0

package metrics

import (
	"bytes"
	"math"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
)

// goldenText is what TestWriteTextGolden's registry writes: every kind of
// family, escapes in help and label values, infinities. FuzzParse starts
// from it too.
const goldenText = `# TYPE a_total counter
a_total 3
# HELP b_gauge A gauge.\nSecond line with a \\ backslash.
# TYPE b_gauge gauge
b_gauge{a="0",z=""} -Inf
b_gauge{a="quote \" and \\ and\nnewline",z="last"} 1.5
# HELP c_seconds Latency.
# TYPE c_seconds histogram
c_seconds_bucket{name="q",le="0.1"} 1
c_seconds_bucket{name="q",le="1"} 2
c_seconds_bucket{name="q",le="+Inf"} 3
c_seconds_sum{name="q"} 12.25
c_seconds_count{name="q"} 3
`

func TestWriteTextGolden(t *testing.T) {
	reg := NewRegistry(CollectorFunc(func(e *Emitter) {
		e.Gauge("b_gauge", "A gauge.\nSecond line with a \\ backslash.", 1.5, "z", "last", "a", `quote " and \ and`+"\nnewline")
		e.Gauge("b_gauge", "A gauge.\nSecond line with a \\ backslash.", math.Inf(-1), "a", "0", "z", "")
		e.Counter("a_total", "", 3)
		e.Histogram("c_seconds", "Latency.", Histogram{UpperBounds: []float64{0.1, 1}, Counts: []uint64{1, 2}, Count: 3, Sum: 12.25}, "name", "q")
	}))
	var buf bytes.Buffer
	if err := reg.Write(&buf); err != nil {
		t.Fatal(err)
	}
	want := goldenText
	if got := buf.String(); got != want {
		t.Errorf("Write =\n%s\nwant\n%s", got, want)
	}
}

func TestStableOrder(t *testing.T) {
	reg := NewRegistry(CollectorFunc(func(e *Emitter) {
		for _, k := range []string{"m", "b", "z", "a", "q"} {
			e.Counter("x_total", "x", 1, "k", k)
		}
	}), CollectorFunc(func(e *Emitter) { e.Gauge("a", "a", 1) }))
	var first bytes.Buffer
	if err := reg.Write(&first); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		var again bytes.Buffer
		if err := reg.Write(&again); err != nil {
			t.Fatal(err)
		}
		if again.String() != first.String() {
			t.Fatalf("second scrape differs:\n%s\nfirst:\n%s", again.String(), first.String())
		}
	}
	want := "# HELP a a\n# TYPE a gauge\na 1\n# HELP x_total x\n# TYPE x_total counter\n" +
		"x_total{k=\"a\"} 1\nx_total{k=\"b\"} 1\nx_total{k=\"m\"} 1\nx_total{k=\"q\"} 1\nx_total{k=\"z\"} 1\n"
	if first.String() != want {
		t.Errorf("Write =\n%s\nwant\n%s", first.String(), want)
	}
}

func TestServeHTTP(t *testing.T) {
	reg := NewRegistry(CollectorFunc(func(e *Emitter) { e.Counter("up_total", "Up.", 1) }))
	rec := httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != ContentType {
		t.Errorf("GET = %d %q, want 200 %q", rec.Code, rec.Header().Get("Content-Type"), ContentType)
	}
	if want := "# HELP up_total Up.\n# TYPE up_total counter\nup_total 1\n"; rec.Body.String() != want {
		t.Errorf("GET body = %q, want %q", rec.Body.String(), want)
	}
	rec = httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/metrics", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST = %d, want 405", rec.Code)
	}
	rec = httptest.NewRecorder()
	reg.ServeHTTP(rec, httptest.NewRequest(http.MethodHead, "/metrics", nil))
	if rec.Code != http.StatusOK || rec.Body.Len() != 0 {
		t.Errorf("HEAD = %d with %d bytes, want 200 and no body", rec.Code, rec.Body.Len())
	}
}

func TestRegisterWhileScraping(t *testing.T) {
	reg := NewRegistry()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			if err := reg.Write(&bytes.Buffer{}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for i := range 100 {
		reg.Register(CollectorFunc(func(e *Emitter) { e.Gauge("g", "g", 1, "i", strings.Repeat("x", i)) }))
	}
	<-done
}

func TestExponentialBucketsPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("ExponentialBuckets(0, 2, 3) did not panic")
		}
	}()
	ExponentialBuckets(0, 2, 3)
}

func TestExponentialBuckets(t *testing.T) {
	if got, want := ExponentialBuckets(0.001, 2, 4), []float64{0.001, 0.002, 0.004, 0.008}; !reflect.DeepEqual(got, want) {
		t.Errorf("ExponentialBuckets(0.001, 2, 4) = %v, want %v", got, want)
	}
}
