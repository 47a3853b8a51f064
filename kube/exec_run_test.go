// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Runs of a credential plugin: bounded, shared, stopped when they print
// too much, and never ended by the caller that happened to start them.

// pluginClient returns an HTTP client for srv that runs ex, and its plugin
// runner.
func pluginClient(t *testing.T, srv *httptest.Server, ex *ExecConfig) (*http.Client, *execAuth) {
	t.Helper()
	c, err := (&Config{Host: srv.URL, Exec: ex}).HTTPClient()
	if err != nil {
		t.Fatal(err)
	}
	return c, c.Transport.(*authTransport).exec
}

func TestExecHangingPluginEndsAtItsBound(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	dir := t.TempDir()
	c, ex := pluginClient(t, srv, testPlugin(dir, "hang"))
	ex.timeout = time.Second
	// Callers without a deadline of their own: only the run's bound ends
	// their wait. The test's own deadline is a safety net.
	errs := make([]string, 3)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Go(func() {
			_, err := get(t, c, srv.URL)
			if err == nil {
				t.Errorf("caller %d: GET succeeded with a hanging plugin", i)
				return
			}
			errs[i] = err.Error()
		})
	}
	wg.Wait()
	for i, e := range errs {
		if !strings.Contains(e, "did not finish within 1s") {
			t.Errorf("caller %d: error %q, want one saying the plugin did not finish within its bound", i, e)
		}
		if e != errs[0] {
			t.Errorf("caller %d: error %q, caller 0 got %q; want the same", i, e, errs[0])
		}
	}
	if n := pluginRuns(t, dir); n != 1 {
		t.Errorf("plugin ran %d times for 3 concurrent callers, want 1", n)
	}
}

func TestExecEndlessOutputIsStopped(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	c, _ := pluginClient(t, srv, testPlugin(t.TempDir(), "endless"))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a safety net
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	_, err := do(t, c, req)
	if err == nil || !strings.Contains(err.Error(), "output passed 1048576 bytes") {
		t.Fatalf("GET with a plugin that prints without end: error %v, want one saying its output passed the cap", err)
	}
	if ctx.Err() != nil {
		t.Errorf("GET returned at the caller's deadline: the plugin was not stopped at the cap")
	}
}

// countingWriter counts what is written to it.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

func TestExecEndlessStderrIsStopped(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	c, ex := pluginClient(t, srv, testPlugin(t.TempDir(), "stderr"))
	stderr := &countingWriter{}
	ex.stderr = stderr
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a safety net
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	_, err := do(t, c, req)
	if err == nil || !strings.Contains(err.Error(), "standard error passed 1048576 bytes") {
		t.Fatalf("GET with a plugin that writes to standard error without end: error %v, want one saying its standard error passed the cap", err)
	}
	if ctx.Err() != nil {
		t.Errorf("GET returned at the caller's deadline: the plugin was not stopped at the cap")
	}
	// The run is over: its writes happened before its result.
	if stderr.n > execMaxStderr {
		t.Errorf("%d bytes of the plugin's standard error passed on, want at most %d", stderr.n, execMaxStderr)
	}
}

// TestExecSlowPluginOutlivesShortCallers: with a request timeout shorter
// than the plugin takes, the plugin's run must go on after the caller that
// started it gives up, so that a later caller gets its credential.
func TestExecSlowPluginOutlivesShortCallers(t *testing.T) {
	srv := httptest.NewServer(echoHandler())
	defer srv.Close()
	dir := t.TempDir()
	c, _ := pluginClient(t, srv, testPlugin(dir, "slow", ExecEnvVar{Name: "KUBELOOP_TEST_EXEC_SLEEP", Value: "2s"}))
	var err error
	for range 10 {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
		var e echo
		e, err = do(t, c, req)
		cancel()
		if err == nil {
			if e.Authorization != "Bearer tok-1" {
				t.Errorf("Authorization %q, want Bearer tok-1", e.Authorization)
			}
			break
		}
	}
	if err != nil {
		t.Fatalf("10 requests with a 1s timeout and a 2s plugin all failed; the last: %v", err)
	}
	if n := pluginRuns(t, dir); n != 1 {
		t.Errorf("plugin started %d times, want 1: the short callers must not kill its run", n)
	}
}
