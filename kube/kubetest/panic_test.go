// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
)

// A panic while serving a request (here in a test's fault matcher, which
// runs with the server's lock held) answers that request 500 as
// kube-apiserver does, is logged with its value, and leaves the server
// serving: no lock stays held, no test binary crashes.
func TestHandlerPanicAnswers500AndServerKeepsServing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		inject func(s *Server, match func(RequestInfo) bool)
	}{
		{"Delay matcher", func(s *Server, match func(RequestInfo) bool) { s.Delay(match, time.Nanosecond) }},
		{"FailNext matcher", func(s *Server, match func(RequestInfo) bool) { s.FailNext(1, match, apierr.BadRequest("x")) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer // read after Close, which waits for the handlers
			s := New(Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
			// Not deferred: Close would wait forever for a lock left held.
			l, err := s.Listen(false)
			if err != nil {
				t.Fatal(err)
			}
			var once sync.Once
			tc.inject(s, func(ri RequestInfo) bool {
				if ri.Verb == "list" {
					once.Do(func() { panic("matcher bug") })
				}
				return false
			})
			for _, target := range []struct {
				name string
				base string
				c    *http.Client
			}{
				{"in-process", "https://kubetest.invalid", &http.Client{Transport: s.Transport()}},
				{"listener", l.URL, http.DefaultClient},
			} {
				once = sync.Once{}
				code, ct, body := panicGet(t, target.c, target.base+cmPath)
				want := "This request caused apiserver to panic. Look in the logs for details.\n"
				if code != http.StatusInternalServerError || !strings.HasPrefix(ct, "text/plain") || body != want {
					t.Errorf("%s: list whose matcher panics = %d %s %q, want 500 text/plain %q", target.name, code, ct, body, want)
				}
				// The answer is written after the handler unwound: a lock
				// it held is free by now, or never will be.
				if !s.mu.TryLock() {
					t.Fatalf("%s: the server's lock is still held after the panic", target.name)
				}
				s.mu.Unlock()
				if code, _, body := panicGet(t, target.c, target.base+cmPath); code != http.StatusOK {
					t.Errorf("%s: list after the panic = %d %s, want 200", target.name, code, body)
				}
			}
			s.Close()
			if got := logs.String(); !strings.Contains(got, "level=ERROR") || !strings.Contains(got, "matcher bug") {
				t.Errorf("log = %q, want an error record with the panic value", got)
			}
		})
	}
}

func panicGet(t *testing.T, c *http.Client, url string) (int, string, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Content-Type"), string(body)
}
