// SPDX-License-Identifier: Apache-2.0

package webhook_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager/webhook"
)

// numbersReview is a CREATE review of a ConfigMap-like object holding an
// array of n numbers: 2n bytes of body, n JSON values.
func numbersReview(uid string, n int) string {
	obj := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"values":[1` + strings.Repeat(",1", n-1) + `]}`
	return whReview{UID: uid, Operation: "CREATE", Kind: whConfigMapKind, Resource: "configmaps", Object: obj}.JSON()
}

// TestAdmissionTooLargeInMemory: a review well within the body limit
// whose JSON values would take more memory once decoded than the limit
// of one review is refused with 413, saying what to raise, and the
// handler is not called. (Before the limit, a review of 5 MB holding
// 160,000 small objects raised the heap by 259 to 371 MiB.)
func TestAdmissionTooLargeInMemory(t *testing.T) {
	called := false
	h := webhook.Admission(func(context.Context, *webhook.AdmissionRequest) webhook.AdmissionResponse {
		called = true
		return webhook.Allowed(nil)
	})
	body := numbersReview("uid-big", 200000) // 400 KB
	rec := post(h, "/validate?timeout=10s", body)
	msg := rec.Body.String()
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(msg, "admission review of") ||
		!strings.Contains(msg, "bytes of memory") || !strings.Contains(msg, "MaxMemoryBytes") || !strings.Contains(msg, `"reason":"RequestEntityTooLarge"`) {
		t.Errorf("review of %d bytes holding 200,000 values = %d %s, want 413 naming MaxMemoryBytes", len(body), rec.Code, msg)
	}
	if called {
		t.Errorf("the handler was called")
	}
	// The same values in one string cost their bytes only.
	small := whReview{UID: "uid-str", Operation: "CREATE", Kind: whConfigMapKind, Resource: "configmaps",
		Object: `{"metadata":{"name":"c"},"data":{"v":"` + strings.Repeat("1,", 200000) + `"}}`}.JSON()
	if r := decodeReview(t, post(h, "/validate?timeout=10s", small)).Response; !r.Allowed || !called {
		t.Errorf("review of %d bytes in one string = %+v (called %v), want allowed by the handler", len(small), r, called)
	}
}

// TestAdmissionMemoryInFlight: a review that would take the memory of
// the reviews being answered at once past the limit is refused at once
// with 429 and Retry-After (which the API server retries), and accepted
// again once the others are done.
func TestAdmissionMemoryInFlight(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	h := webhook.Admission(func(_ context.Context, req *webhook.AdmissionRequest) webhook.AdmissionResponse {
		if strings.HasPrefix(req.UID, "held") {
			entered <- struct{}{}
			<-release
		}
		return webhook.Allowed(nil)
	})
	// Each about 50 MiB once decoded: two fit in the default 128 MiB,
	// not three.
	const n = 80000
	var wg sync.WaitGroup
	codes := make([]int, 2)
	for i := range codes {
		wg.Go(func() { codes[i] = post(h, "/v", numbersReview(fmt.Sprint("held-", i), n)).Code })
		<-entered
	}
	for _, stated := range []bool{true, false} {
		req := httptest.NewRequest(http.MethodPost, "/v", strings.NewReader(numbersReview("third", n)))
		req.Header.Set("Content-Type", "application/json")
		if !stated {
			req.ContentLength = -1
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") != "1" ||
			!strings.Contains(rec.Body.String(), "admission webhook is busy") {
			t.Errorf("length stated %v: review past the memory in flight = %d (Retry-After %q) %s, want 429 with Retry-After 1",
				stated, rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	close(release)
	wg.Wait()
	if codes[0] != 200 || codes[1] != 200 {
		t.Errorf("reviews in flight answered %v, want 200s", codes)
	}
	if rec := post(h, "/v", numbersReview("after", n)); rec.Code != 200 {
		t.Errorf("review after the others ended = %d %s, want 200", rec.Code, rec.Body)
	}
}

// slowReader yields its first part, then waits d before the rest, as a
// body that arrives slowly.
type slowReader struct {
	first, rest io.Reader
	d           time.Duration
	waited      bool
}

func (s *slowReader) Read(p []byte) (int, error) {
	if n, err := s.first.Read(p); n > 0 || err != io.EOF {
		return n, err
	}
	if !s.waited {
		s.waited = true
		time.Sleep(s.d)
	}
	return s.rest.Read(p)
}

// timedWriter records when the answer was first written.
type timedWriter struct {
	*httptest.ResponseRecorder
	at time.Time
}

func (w *timedWriter) Write(b []byte) (int, error) {
	if w.at.IsZero() {
		w.at = time.Now()
	}
	return w.ResponseRecorder.Write(b)
}

// slowSpec takes 3 seconds to decode.
type slowSpec struct{}

func (*slowSpec) UnmarshalJSON([]byte) error {
	time.Sleep(3 * time.Second)
	return nil
}

type slowObj struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Spec            slowSpec `json:"spec"`
}

func (*slowObj) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Slow"}
}

// TestAdmissionDeadlineCoversDecoding: the API server's timeout runs from
// the request's arrival, not from the handler's call: a body that takes
// 600ms to arrive leaves the handler 400ms of a 1s timeout, and an object
// that takes 3s to decode is answered at the 1s deadline (and the grace
// given to a handler answering at its deadline), denied with 504 Timeout
// and the request's uid. (Before, they were answered after 1.6s and 3s,
// and a 1s timeout of a review of 5 MB after 4.2 to 6 s.)
func TestAdmissionDeadlineCoversDecoding(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var deadline time.Time
		h := webhook.Admission(func(ctx context.Context, _ *webhook.AdmissionRequest) webhook.AdmissionResponse {
			deadline, _ = ctx.Deadline()
			<-ctx.Done()
			return webhook.Denied(fmt.Errorf("look up quota: %w", ctx.Err()), nil)
		})
		body := &slowReader{first: strings.NewReader(reviewCreate[:100]), rest: strings.NewReader(reviewCreate[100:]), d: 600 * time.Millisecond}
		req := httptest.NewRequest(http.MethodPost, "/v?timeout=1s", body)
		req.Header.Set("Content-Type", "application/json")
		w := &timedWriter{ResponseRecorder: httptest.NewRecorder()}
		start := time.Now()
		h.ServeHTTP(w, req)
		if !deadline.Equal(start.Add(time.Second)) || !w.at.Equal(start.Add(time.Second)) {
			t.Errorf("slow body: handler's deadline %v after arrival, answered after %v; want both 1s", deadline.Sub(start), w.at.Sub(start))
		}
		if r := decodeReview(t, w.ResponseRecorder).Response; r.Allowed || r.Result.Code != http.StatusGatewayTimeout ||
			!strings.Contains(r.Result.Message, "look up quota") {
			t.Errorf("slow body: response = %+v %+v, want the handler's 504", r, r.Result)
		}

		called := false
		v := webhook.ValidatingFor[slowObj](webhook.ValidatorFuncs[slowObj]{
			Create: func(context.Context, *slowObj) (webhook.Warnings, error) { called = true; return nil, nil },
		})
		review := whReview{UID: "slow-decode", Operation: "CREATE", Kind: (&slowObj{}).GroupVersionKind(), Resource: "slows",
			Object: `{"apiVersion":"example.com/v1","kind":"Slow","metadata":{"name":"s"},"spec":{}}`}
		req = httptest.NewRequest(http.MethodPost, "/validate?timeout=1s", strings.NewReader(review.JSON()))
		req.Header.Set("Content-Type", "application/json")
		w = &timedWriter{ResponseRecorder: httptest.NewRecorder()}
		start = time.Now()
		v.ServeHTTP(w, req)
		if want := time.Second + webhook.AnswerGrace; !w.at.Equal(start.Add(want)) {
			t.Errorf("slow decode: answered after %v, want %v (the timeout and the grace)", w.at.Sub(start), want)
		}
		var out struct{ Response whResponse }
		if err := json.Unmarshal(w.Body.Bytes(), &out); err != nil {
			t.Fatalf("slow decode: answer %d %s: %v", w.Code, w.Body, err)
		}
		if r := out.Response; r.UID != "slow-decode" || r.Allowed || r.Status == nil || r.Status.Code != 504 || r.Status.Reason != "Timeout" {
			t.Errorf("slow decode: response = %+v %+v, want denied 504 Timeout with uid slow-decode", r, r.Status)
		}
		if called {
			t.Errorf("slow decode: the validator was called after the deadline")
		}
	})
}

// TestAdmissionAnswersBeforeWorkEnds: over the wire, a review whose
// handler ignores its context is answered at the deadline, while the
// handler still runs: the answer states its length and is flushed, so
// the API server does not wait for the work left.
func TestAdmissionAnswersBeforeWorkEnds(t *testing.T) {
	pki := newWebhookPKI(t)
	srv, err := webhook.New(webhook.Options{Host: "127.0.0.1", Port: -1, CertDir: pki.Dir})
	if err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	srv.Register("/stuck", webhook.ValidatingFor[kube.ConfigMap](webhook.ValidatorFuncs[kube.ConfigMap]{
		Create: func(context.Context, *kube.ConfigMap) (webhook.Warnings, error) {
			<-release // stuck, not watching its context
			return nil, nil
		},
	}))
	url := startWebhookServer(t, srv) + "/stuck?timeout=100ms"
	defer close(release)
	review := whReview{UID: "stuck", Operation: "CREATE", Kind: whConfigMapKind, Resource: "configmaps", Object: `{"metadata":{"name":"c"}}`}
	client := pki.Client()
	client.Timeout = 10 * time.Second // not to hang if the answer waits for the handler
	r := whPostReview(t, client, url, review.JSON())
	if r.UID != "stuck" || r.Allowed || r.Status == nil || r.Status.Code != 504 || !strings.Contains(r.Status.Message, "within the timeout of 100ms") {
		t.Errorf("response = %+v %+v, want denied 504 with uid stuck", r, r.Status)
	}
}
