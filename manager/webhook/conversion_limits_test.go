// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/manager/webhook"
)

// bigReview is a ConversionReview of v1beta1 Widgets to convert to v1, of
// about size bytes: objects of 64 KiB, the size of a large custom
// resource, as an API server that converts a list in one review would
// send them.
func bigReview(size int) []byte {
	const objSize = 64 << 10
	filler := strings.Repeat("x", objSize-200)
	var objs []string
	for total := 0; total+objSize < size-200; total += objSize {
		objs = append(objs, widget("v1beta1", fmt.Sprint("w", len(objs)), fmt.Sprintf(`{"size":"3","data":%q}`, filler)))
	}
	return []byte(conversionReview("uid-big", "example.com/v1", objs...))
}

// countingReader tells how much of a body was read.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// convertRequest is a POST of body to /convert, with its length stated
// or (stated false) not, as a chunked request has none.
func convertRequest(body io.Reader, length int64) *http.Request {
	req := httptest.NewRequest(http.MethodPost, "/convert", body)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = length
	return req
}

// TestConversionTooLarge: a review larger than the limit is refused with
// 413 and a message saying what to do; one that states its length is not
// read at all.
func TestConversionTooLarge(t *testing.T) {
	c := widgetConversions(t)
	c.MaxRequestBytes = 4096
	body := conversionReview("uid-l", "example.com/v1", widget("v1beta1", "a", `{"size":"3","data":"`+strings.Repeat("x", 5000)+`"}`))
	for _, stated := range []bool{true, false} {
		cr := &countingReader{r: strings.NewReader(body)}
		length := int64(len(body))
		if !stated {
			length = -1
		}
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, convertRequest(cr, length))
		msg := rec.Body.String()
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "larger than the limit of 4096 bytes") ||
			!strings.Contains(msg, "raise the conversion webhook's MaxRequestBytes") || !strings.Contains(msg, `"reason":"RequestEntityTooLarge"`) {
			t.Errorf("length stated %v: answer = %d %s, want 413 with a Status saying the limit and what to do", stated, rec.Code, msg)
		}
		if stated && cr.n != 0 {
			t.Errorf("a review stating a length over the limit was read (%d bytes)", cr.n)
		}
	}
}

// TestConversionDefaultLimit: by default a review of 9 MiB, more than
// one object the API server would store (1.5 MiB) or accept (3 MiB), is
// refused; up to 256 MiB were read.
func TestConversionDefaultLimit(t *testing.T) {
	c := widgetConversions(t)
	body := bigReview(9 << 20)
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, convertRequest(bytes.NewReader(body), int64(len(body))))
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "larger than the limit of 8388608 bytes") {
		t.Errorf("review of %d bytes = %d %.300s, want 413", len(body), rec.Code, rec.Body)
	}
}

// TestConversionBytesInFlight: reviews that would take the bytes being
// converted past the limit are refused at once with 429 and Retry-After
// (the API server's client retries those), and accepted again once the
// others are done.
func TestConversionBytesInFlight(t *testing.T) {
	var c webhook.Conversion
	entered, release := make(chan struct{}), make(chan struct{})
	slow := func(obj []byte) ([]byte, error) {
		entered <- struct{}{}
		<-release
		return obj, nil
	}
	if err := c.AddRawSpoke("example.com", "Widget", "v1", "v1beta1", webhook.RawSpoke{ToHub: slow, FromHub: slow}); err != nil {
		t.Fatal(err)
	}
	body := conversionReview("uid-s", "example.com/v1", widget("v1beta1", "a", `{"size":"3"}`))
	n := int64(len(body))
	c.MaxRequestBytes, c.MaxInFlightBytes = 2*n, 2*n+n/2 // two reviews, not three
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() {
			rec := httptest.NewRecorder()
			c.ServeHTTP(rec, convertRequest(strings.NewReader(body), n))
			codes[i] = rec.Code
		})
		<-entered
	}
	refused := func(req *http.Request) {
		t.Helper()
		rec := httptest.NewRecorder()
		c.ServeHTTP(rec, req)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" ||
			!strings.Contains(rec.Body.String(), "conversion webhook is busy") {
			t.Errorf("review past the bytes in flight = %d (Retry-After %q) %s, want 429 with Retry-After 1", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	refused(convertRequest(strings.NewReader(body), n))
	refused(convertRequest(strings.NewReader(body), -1)) // no length: counted as the limit
	close(release)
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("reviews in flight answered %v, want 200s", codes)
	}
	go func() { <-entered }()
	rec := httptest.NewRecorder()
	c.ServeHTTP(rec, convertRequest(strings.NewReader(body), n))
	if rec.Code != 200 {
		t.Errorf("review after the others ended = %d %s, want 200", rec.Code, rec.Body)
	}
}
