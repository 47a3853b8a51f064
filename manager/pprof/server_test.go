// SPDX-License-Identifier: Apache-2.0

package pprof

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
)

// serve runs a server on a port of loopback until stop is called or
// the test ends; stop returns Start's error.
func serve(t *testing.T) (base string, stop func() error) {
	t.Helper()
	s, err := New(Options{BindAddress: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Start(ctx) }()
	stop = sync.OnceValue(func() error { cancel(); return <-done })
	t.Cleanup(func() { _ = stop() })
	return "http://" + s.Addr().String() + "/debug/pprof/", stop
}

func get(t *testing.T, url string) (int, http.Header, []byte) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

var gzipMagic = []byte{0x1f, 0x8b} // a profile in the protocol buffer format is gzipped

func TestServerPaths(t *testing.T) {
	base, _ := serve(t)
	for _, tc := range []struct {
		path     string
		code     int
		contains []byte
		prefix   []byte
	}{
		{"", 200, []byte("goroutine: "), nil},
		{"goroutine", 200, nil, gzipMagic},
		{"heap?debug=1&gc=1", 200, []byte("heap profile: "), nil},
		{"allocs", 200, nil, gzipMagic},
		{"cmdline", 200, []byte(os.Args[0]), nil},
		{"profile?seconds=1", 200, nil, gzipMagic},
		{"profile?seconds=0", 400, []byte("want 1 to 600"), nil},
		{"profile?seconds=601", 400, []byte("want 1 to 600"), nil},
		{"heap?debug=x", 400, []byte("debug"), nil},
		{"nosuch", 404, []byte(`profile "nosuch" not found`), nil},
		{"../metrics", 404, nil, nil},
	} {
		code, _, body := get(t, base+tc.path)
		if code != tc.code || !bytes.Contains(body, tc.contains) || !bytes.HasPrefix(body, tc.prefix) {
			t.Errorf("GET /debug/pprof/%s = %d %.80q, want %d with %q", tc.path, code, body, tc.code, tc.contains)
		}
	}
}

// TestServerStopEndsCPUProfile: a CPU profile in flight ends when the
// server stops, which Start waits for; a second one meanwhile is
// refused.
func TestServerStopEndsCPUProfile(t *testing.T) {
	base, stop := serve(t)
	got := make(chan int, 1)
	go func() {
		resp, err := http.Get(base + "profile?seconds=600")
		if err != nil {
			got <- 0
			return
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		got <- resp.StatusCode
	}()
	// The long profile runs once its handler waits in cpu's select,
	// after StartCPUProfile (read from the goroutine profile, which does
	// not compete for the profiler).
	for {
		select {
		case code := <-got:
			t.Fatalf("the 600 s CPU profile ended at once: %d", code)
		default:
		}
		_, _, body := get(t, base+"goroutine?debug=2")
		if slices.ContainsFunc(strings.Split(string(body), "\n\n"), func(g string) bool {
			return strings.Contains(g, "[select") && strings.Contains(g, "pprof.(*Server).cpu(")
		}) {
			break
		}
	}
	if code, _, body := get(t, base+"profile?seconds=1"); code != 500 || !bytes.Contains(body, []byte("cpu profiling already in use")) {
		t.Errorf("a second CPU profile = %d %q, want 500", code, body)
	}
	if err := stop(); err != nil {
		t.Errorf("Start = %v, want nil", err)
	}
	if code := <-got; code != 200 {
		t.Errorf("CPU profile cut by the stop = %d, want 200 (its answer cut short)", code)
	}
}

func TestNewErrors(t *testing.T) {
	for _, addr := range []string{"", "localhost", "127.0.0.1:"} {
		if _, err := New(Options{BindAddress: addr}); err == nil || !strings.Contains(err.Error(), `BindAddress "`+addr+`"`) {
			t.Errorf("New(%q) = %v, want an error naming the address", addr, err)
		}
	}
}
