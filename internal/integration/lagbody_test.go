// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestLagBody: each line is given out its delay after it was read, but
// never before the line ahead of it, so a bookmark read late never
// overtakes an event held longer; with no delay a line is given out at
// once; closing the body ends the reading ahead.
func TestLagBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		delays := []time.Duration{2 * time.Second, 0, 500 * time.Millisecond, 0}
		next := 0
		delay := func() time.Duration { d := delays[next]; next++; return d }
		b := newLagBody(t.Context(), pr, delay)
		defer b.Close()

		type got struct {
			line string
			at   time.Duration
		}
		start := time.Now()
		out := make(chan got)
		go func() {
			r := bufio.NewReader(b)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					close(out)
					return
				}
				out <- got{line, time.Since(start)}
			}
		}()
		io.WriteString(pw, `{"type":"ADDED","object":{}}`+"\n")
		time.Sleep(time.Second)
		io.WriteString(pw, `{"type":"BOOKMARK","object":{}}`+"\n")
		// Read at 1s, due at 1s, held behind the first line until 2s.
		for _, want := range []got{{`{"type":"ADDED","object":{}}` + "\n", 2 * time.Second}, {`{"type":"BOOKMARK","object":{}}` + "\n", 2 * time.Second}} {
			if g := <-out; g != want {
				t.Errorf("got %q at %v, want %q at %v", g.line, g.at, want.line, want.at)
			}
		}
		time.Sleep(time.Second)
		io.WriteString(pw, "a\n")
		if g := <-out; g != (got{"a\n", 3500 * time.Millisecond}) {
			t.Errorf("got %q at %v, want %q at 3.5s", g.line, g.at, "a\n")
		}
		io.WriteString(pw, "b\n")
		if g := <-out; g != (got{"b\n", 3500 * time.Millisecond}) {
			t.Errorf("got %q at %v, want %q at once (3.5s)", g.line, g.at, "b\n")
		}
		pw.Close()
		if _, ok := <-out; ok {
			t.Error("a line after the stream ended")
		}
	})
}

// TestLagBodyClosed: a Read waiting for a held line ends with the
// request, and closing the body closes the server's stream.
func TestLagBodyClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		ctx, cancel := context.WithCancel(t.Context())
		b := newLagBody(ctx, pr, func() time.Duration { return time.Hour })
		go io.WriteString(pw, "held\n")
		time.AfterFunc(time.Minute, cancel)
		if _, err := b.Read(make([]byte, 10)); err != context.Canceled {
			t.Errorf("Read after the request ended = %v, want context.Canceled", err)
		}
		b.Close()
		if _, err := io.WriteString(pw, "more\n"); err != io.ErrClosedPipe {
			t.Errorf("the server's stream after Close: write = %v, want io.ErrClosedPipe", err)
		}
	})
}

// TestLagProxy: through the proxy a request reaches the server with the
// upstream config's credentials and its answer comes back as the server
// sent it; a JSON watch comes back line by line, in order, with the lag
// off or on.
func TestLagProxy(t *testing.T) {
	stream := `{"type":"ADDED","object":{"metadata":{"resourceVersion":"5"}}}` + "\n" +
		`{"type":"BOOKMARK","object":{"metadata":{"resourceVersion":"6"}}}` + "\n"
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer secret" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if r.URL.Query().Get("watch") == "true" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			for line := range strings.Lines(stream) {
				io.WriteString(w, line)
				w.(http.Flusher).Flush()
			}
			return
		}
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, r.Method+" "+r.URL.RequestURI())
	}))
	defer upstream.Close()
	p := newLagProxy(t, &kube.Config{Host: upstream.URL, BearerToken: "secret"})
	hc, err := p.config.HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := hc.Get(p.config.Host + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, string(body)
	}
	if code, body := get("/api/v1/namespaces/a%2Fb/configmaps?limit=1"); code != 200 || body != "GET /api/v1/namespaces/a%2Fb/configmaps?limit=1" {
		t.Errorf("get = %d %q, want the path and query as sent", code, body)
	}
	if code, body := get("/api/v1/configmaps?watch=true"); code != 200 || body != stream {
		t.Errorf("watch with the lag off = %d %q, want %q", code, body, stream)
	}
	_, undo := p.LagWatches(time.Millisecond, 2*time.Millisecond)
	if code, body := get("/api/v1/configmaps?watch=true"); code != 200 || body != stream {
		t.Errorf("watch with the lag on = %d %q, want %q", code, body, stream)
	}
	undo()
}
