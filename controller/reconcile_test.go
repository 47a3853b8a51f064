// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/queue"
)

// TestResultHandling follows one request through every outcome and checks
// when it is reconciled again: errors back off exponentially from 5ms,
// RequeueAfter is exact and resets the backoff, Requeue backs off,
// a Result returned with an error is ignored, success forgets.
func TestResultHandling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boom := errors.New("boom")
		rec := newRecorder(func(_ context.Context, _ Request, n int) (Result, error) {
			switch n {
			case 1, 2, 3, 5, 9:
				return Result{}, boom
			case 4:
				return Result{RequeueAfter: time.Second}, nil
			case 6:
				return RequeueRateLimited(), nil
			case 7:
				return Result{RequeueAfter: time.Hour}, boom // the result is ignored
			}
			return Result{}, nil
		})
		c := mustNew(t, "results", rec, Options{})
		ch := make(chan Change, 1)
		mustWatch(t, c, Channel(ch, EnqueueObject()))
		key := req("default", "a")
		ch <- Change{Key: key.Key}
		stop := startController(t, c)

		time.Sleep(2 * time.Second)
		synctest.Wait()
		want := ms(0, 5, 15, 35, 1035, 1040, 1050, 1070)
		if got := rec.times(key); !slices.Equal(got, want) {
			t.Fatalf("reconcile times = %v, want %v", got, want)
		}
		if n := c.q.NumRequeues(key); n != 0 {
			t.Errorf("after success NumRequeues = %d, want 0 (forgotten)", n)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if n := rec.count(key); n != 8 {
			t.Errorf("an hour after success: %d reconciles, want 8", n)
		}
		ch <- Change{Key: key.Key} // again: the backoff starts over at 5ms
		time.Sleep(time.Second)
		synctest.Wait()
		want = append(want, 2000*time.Millisecond+time.Hour, 2005*time.Millisecond+time.Hour)
		if got := rec.times(key); !slices.Equal(got, want) {
			t.Fatalf("reconcile times = %v, want %v", got, want)
		}
		stop()

		m := c.Metrics()
		wantTotal := ReconcileTotal{Success: 2, Error: 6, Requeue: 1, RequeueAfter: 1}
		if m.ReconcileTotal != wantTotal || m.ReconcileErrorsTotal != 6 || m.TerminalReconcileErrorsTotal != 0 {
			t.Errorf("metrics: total %+v, errors %d, terminal %d; want %+v, 6, 0", m.ReconcileTotal, m.ReconcileErrorsTotal, m.TerminalReconcileErrorsTotal, wantTotal)
		}
		if m.ReconcileTimeSeconds.Count != 10 || m.ReconcileTimeSeconds.Counts[0] != 10 {
			t.Errorf("reconcile time histogram: count %d, first bucket %d; want 10 and 10", m.ReconcileTimeSeconds.Count, m.ReconcileTimeSeconds.Counts[0])
		}
		if m.Queue.Name != "results" || m.Queue.RetriesTotal != 7 || m.MaxConcurrentReconciles != 1 || m.Name != "results" {
			t.Errorf("metrics: queue %q with %d retries, max workers %d, name %q; want results, 7, 1, results",
				m.Queue.Name, m.Queue.RetriesTotal, m.MaxConcurrentReconciles, m.Name)
		}
	})
}

func TestResultKinds(t *testing.T) {
	for _, tc := range []struct {
		name              string
		r                 Result
		zero, rateLimited bool
	}{
		{"zero", Result{}, true, false},
		{"after", Result{RequeueAfter: time.Second}, false, false},
		{"rate limited", RequeueRateLimited(), false, true},
		{"after wins", Result{RequeueAfter: time.Second, rateLimited: true}, false, false},
	} {
		if z, rl := tc.r.IsZero(), tc.r.IsRateLimited(); z != tc.zero || rl != tc.rateLimited {
			t.Errorf("%s: IsZero, IsRateLimited = %v, %v; want %v, %v", tc.name, z, rl, tc.zero, tc.rateLimited)
		}
	}
}

func TestTerminalErrorIsNotRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(func(_ context.Context, _ Request, n int) (Result, error) {
			if n == 1 {
				return Result{}, errors.New("transient")
			}
			return Result{}, fmt.Errorf("validate spec: %w", TerminalError(errors.New("replicas is -1")))
		})
		c := mustNew(t, "terminal", rec, Options{})
		key := req("default", "bad")
		mustWatch(t, c, sendKeys(t, key))
		stop := startController(t, c)
		time.Sleep(time.Hour)
		synctest.Wait()
		if got, want := rec.times(key), ms(0, 5); !slices.Equal(got, want) {
			t.Errorf("reconcile times = %v, want %v (no retry after the terminal error)", got, want)
		}
		if n := c.q.NumRequeues(key); n != 0 {
			t.Errorf("NumRequeues = %d, want 0: a terminal error resets the backoff", n)
		}
		stop()
		m := c.Metrics()
		if m.ReconcileTotal.Error != 2 || m.ReconcileErrorsTotal != 2 || m.TerminalReconcileErrorsTotal != 1 {
			t.Errorf("metrics: total errors %d, errors %d, terminal %d; want 2, 2, 1", m.ReconcileTotal.Error, m.ReconcileErrorsTotal, m.TerminalReconcileErrorsTotal)
		}
	})
}

func TestTerminalErrorMatching(t *testing.T) {
	cause := errors.New("replicas is -1")
	tests := []struct {
		name     string
		err      error
		terminal bool
	}{
		{"terminal", TerminalError(cause), true},
		{"wrapped", fmt.Errorf("reconcile: %w", TerminalError(cause)), true},
		{"joined", errors.Join(errors.New("x"), TerminalError(nil)), true},
		{"plain", cause, false},
		{"nil", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.Is(tt.err, ErrTerminal); got != tt.terminal {
				t.Errorf("errors.Is(%v, ErrTerminal) = %v, want %v", tt.err, got, tt.terminal)
			}
			if got := errors.Is(tt.err, TerminalError(nil)); got != tt.terminal {
				t.Errorf("errors.Is(%v, TerminalError(nil)) = %v, want %v", tt.err, got, tt.terminal)
			}
		})
	}
	if err := TerminalError(cause); !errors.Is(err, cause) || err.Error() != "terminal error: replicas is -1" {
		t.Errorf("TerminalError(cause) = %q, unwraps to cause %v; want %q, true", err, errors.Is(err, cause), "terminal error: replicas is -1")
	}
}

// syncBuffer is a bytes.Buffer safe for concurrent writes, for logs.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// records returns the JSON log records written so far.
func (b *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	for line := range strings.Lines(b.buf.String()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

func jsonLogger(b *syncBuffer) *slog.Logger {
	return slog.New(slog.NewJSONHandler(b, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

func TestPanicIsRecoveredAsError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs syncBuffer
		rec := newRecorder(func(_ context.Context, _ Request, n int) (Result, error) {
			if n == 1 {
				panic("boom")
			}
			return Result{}, nil
		})
		c := mustNew(t, "panics", rec, Options{Logger: jsonLogger(&logs)})
		key := req("default", "a")
		mustWatch(t, c, sendKeys(t, key))
		stop := startController(t, c)
		time.Sleep(time.Second)
		synctest.Wait()
		stop()
		if got, want := rec.times(key), ms(0, 5); !slices.Equal(got, want) {
			t.Errorf("reconcile times = %v, want %v (the panic retried as an error)", got, want)
		}
		m := c.Metrics()
		if m.ReconcilePanicsTotal != 1 || m.ReconcileErrorsTotal != 1 || m.ReconcileTotal.Success != 1 {
			t.Errorf("metrics: panics %d, errors %d, successes %d; want 1, 1, 1", m.ReconcilePanicsTotal, m.ReconcileErrorsTotal, m.ReconcileTotal.Success)
		}
		var found bool
		for _, r := range logs.records(t) {
			if r["err"] == "panic: boom [recovered]" {
				found = true
				if stack, _ := r["stack"].(string); !strings.Contains(stack, "reconcile_test.go") {
					t.Errorf("panic log stack = %q, want the reconciler's frame", stack)
				}
			}
		}
		if !found {
			t.Errorf("no log record with err %q", "panic: boom [recovered]")
		}
	})
}

func TestPanicIsReraisedWhenAsked(t *testing.T) {
	no := false
	r := ReconcilerFunc(func(context.Context, Request) (Result, error) { panic("boom") })
	c := mustNew(t, "repanic", r, Options{RecoverPanic: &no})
	got := func() (v any) {
		defer func() { v = recover() }()
		_, _ = c.reconcile(context.Background(), req("default", "a"))
		return nil
	}()
	if got != "boom" {
		t.Errorf("reconcile with RecoverPanic false: recovered %v, want the panic %q re-raised", got, "boom")
	}
	if n := c.Metrics().ReconcilePanicsTotal; n != 1 {
		t.Errorf("panics counted = %d, want 1", n)
	}
}

func TestReconcileTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var ctxErr error
		rec := newRecorder(func(ctx context.Context, _ Request, n int) (Result, error) {
			if n > 1 {
				return Result{}, nil
			}
			<-ctx.Done()
			ctxErr = ctx.Err()
			return Result{}, ctx.Err()
		})
		c := mustNew(t, "timeout", rec, Options{ReconcileTimeout: 3 * time.Second})
		key := req("default", "a")
		mustWatch(t, c, sendKeys(t, key))
		startController(t, c)
		time.Sleep(time.Minute)
		synctest.Wait()
		if got, want := rec.times(key), ms(0, 3005); !slices.Equal(got, want) {
			t.Errorf("reconcile times = %v, want %v", got, want)
		}
		if !errors.Is(ctxErr, context.DeadlineExceeded) {
			t.Errorf("reconcile context error = %v, want DeadlineExceeded", ctxErr)
		}
		// The first reconcile timed out, the second returned in time.
		if n := c.Metrics().ReconcileTimeoutsTotal; n != 1 {
			t.Errorf("ReconcileTimeoutsTotal = %d, want 1", n)
		}
		var e counters
		c.CollectMetrics(&e)
		if got, want := e["controller_runtime_reconcile_timeouts_total{controller=timeout}"], 1.0; got != want {
			t.Errorf("controller_runtime_reconcile_timeouts_total{controller=timeout} = %v, want %v", got, want)
		}
	})
}

var uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestReconcileLoggerAndID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs syncBuffer
		var ids []string
		rec := newRecorder(func(ctx context.Context, _ Request, n int) (Result, error) {
			ids = append(ids, ReconcileIDFrom(ctx))
			LoggerFrom(ctx).Info("hello from the reconciler")
			if n == 1 {
				return Result{}, errors.New("boom")
			}
			return Result{}, nil
		})
		c := mustNew(t, "logs", rec, Options{Logger: jsonLogger(&logs)})
		mustWatch(t, c, sendKeys(t, req("ns", "a")))
		stop := startController(t, c)
		time.Sleep(time.Second)
		stop()

		if len(ids) != 2 || ids[0] == ids[1] || !uuidRE.MatchString(ids[0]) || !uuidRE.MatchString(ids[1]) {
			t.Errorf("reconcile IDs = %q, want two different UUIDs", ids)
		}
		var hello, errs int
		for _, r := range logs.records(t) {
			if r["controller"] != "logs" {
				t.Errorf("log record %v: controller = %v, want logs", r, r["controller"])
			}
			switch r["msg"] {
			case "hello from the reconciler":
				hello++
				if r["key"] != "ns/a" || !uuidRE.MatchString(fmt.Sprint(r["reconcileID"])) {
					t.Errorf("reconciler log record %v: want key ns/a and a reconcileID", r)
				}
			case "reconciler error":
				errs++
				if r["key"] != "ns/a" || r["reconcileID"] != ids[0] || r["err"] != "boom" || r["level"] != "ERROR" {
					t.Errorf("error log record %v: want key ns/a, reconcileID %s, err boom, level ERROR", r, ids[0])
				}
			}
		}
		if hello != 2 || errs != 1 {
			t.Errorf("%d reconciler records and %d error records, want 2 and 1", hello, errs)
		}
		if LoggerFrom(context.Background()) == nil || ReconcileIDFrom(context.Background()) != "" {
			t.Errorf("outside a reconcile: want a discarding logger and an empty ID")
		}
	})
}

func TestCustomRateLimiter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rec := newRecorder(func(_ context.Context, _ Request, n int) (Result, error) {
			if n < 4 {
				return Result{}, errors.New("boom")
			}
			return Result{}, nil
		})
		limiter := queue.NewExponentialRateLimiter[Request](time.Second, time.Minute)
		c := mustNew(t, "limited", rec, Options{RateLimiter: limiter})
		key := req("ns", "a")
		mustWatch(t, c, sendKeys(t, key))
		startController(t, c)
		time.Sleep(time.Hour)
		synctest.Wait()
		if got, want := rec.times(key), ms(0, 1000, 3000, 7000); !slices.Equal(got, want) {
			t.Errorf("reconcile times with a 1s exponential limiter = %v, want %v", got, want)
		}
		if n := limiter.NumRequeues(key); n != 0 {
			t.Errorf("limiter NumRequeues after success = %d, want 0", n)
		}
	})
}

func TestReconcileTimeHistogram(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		took := []time.Duration{0, 300 * time.Millisecond, 301 * time.Millisecond, 90 * time.Second}
		rec := newRecorder(func(_ context.Context, _ Request, n int) (Result, error) {
			time.Sleep(took[n-1])
			if n < len(took) {
				return RequeueRateLimited(), nil
			}
			return Result{}, nil
		})
		c := mustNew(t, "histogram", rec, Options{})
		mustWatch(t, c, sendKeys(t, req("ns", "a")))
		startController(t, c)
		time.Sleep(time.Hour)
		synctest.Wait()
		h := c.Metrics().ReconcileTimeSeconds
		// Bounds ... 0.25 (index 7), 0.3 (8), 0.35 (9) ... 60 (39).
		checks := []struct {
			i    int
			le   float64
			want uint64
		}{{0, 0.005, 1}, {7, 0.25, 1}, {8, 0.3, 2}, {9, 0.35, 3}, {39, 60, 3}}
		for _, ck := range checks {
			if h.UpperBounds[ck.i] != ck.le || h.Counts[ck.i] != ck.want {
				t.Errorf("bucket %d: le %v count %d, want le %v count %d", ck.i, h.UpperBounds[ck.i], h.Counts[ck.i], ck.le, ck.want)
			}
		}
		if h.Count != 4 || h.Sum != 90.601 {
			t.Errorf("count %d sum %v, want 4 and 90.601", h.Count, h.Sum)
		}
		if m := c.Metrics(); m.ReconcileTotal.Requeue != 3 || m.ReconcileTotal.Success != 1 {
			t.Errorf("totals %+v, want 3 requeues and 1 success", m.ReconcileTotal)
		}
	})
}

func TestShutdownCutIsNotAnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs syncBuffer
		started := make(chan struct{})
		rec := newRecorder(func(ctx context.Context, _ Request, n int) (Result, error) {
			close(started)
			<-ctx.Done()
			return Result{}, fmt.Errorf("patch something: %w", ctx.Err())
		})
		c := mustNew(t, "cut", rec, Options{Logger: jsonLogger(&logs)})
		mustWatch(t, c, sendKeys(t, req("ns", "a")))
		stop := startController(t, c)
		<-started
		stop()
		var cut int
		for _, r := range logs.records(t) {
			if r["level"] == "ERROR" {
				t.Errorf("log record %v at ERROR, want a shutdown cut logged below it", r)
			}
			if r["msg"] == "reconcile cut short by shutdown" {
				cut++
			}
		}
		if cut != 1 {
			t.Errorf("shutdown-cut records = %d, want 1", cut)
		}
	})
}

// counters records the counters a controller emits, by name{labels}.
type counters map[string]float64

func (e *counters) Counter(name, _ string, value float64, labels ...string) {
	if *e == nil {
		*e = counters{}
	}
	var l []string
	for i := 0; i+1 < len(labels); i += 2 {
		l = append(l, labels[i]+"="+labels[i+1])
	}
	(*e)[name+"{"+strings.Join(l, ",")+"}"] = value
}
func (e *counters) Gauge(string, string, float64, ...string)             {}
func (e *counters) Histogram(string, string, queue.Histogram, ...string) {}

// TestResultPriority: a request queued again with a higher
// Result.Priority is reconciled before the requests of priority 0 that
// waited longer; with priority 0 (the error's retry here) it waits its
// turn behind them.
func TestResultPriority(t *testing.T) {
	for _, tc := range []struct {
		priority int
		want     []string
	}{
		{10, []string{"ns/a", "ns/b1", "ns/a", "ns/b2", "ns/b3"}},
		{0, []string{"ns/a", "ns/b1", "ns/b2", "ns/b3", "ns/a"}},
	} {
		t.Run(fmt.Sprint(tc.priority), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := newRecorder(func(ctx context.Context, req Request, n int) (Result, error) {
					switch {
					case req.Name == "a" && n == 1:
						return Result{RequeueAfter: time.Second, Priority: tc.priority}, nil
					case req.Name == "b1":
						time.Sleep(2 * time.Second) // a is due meanwhile
					}
					return Result{}, nil
				})
				c := mustNew(t, "priority", rec, Options{MaxConcurrentReconciles: 1})
				mustWatch(t, c, sendKeys(t, req("ns", "a"), req("ns", "b1"), req("ns", "b2"), req("ns", "b3")))
				startController(t, c)
				time.Sleep(time.Minute)
				synctest.Wait()
				if got := rec.order(); !slices.Equal(got, tc.want) {
					t.Errorf("reconciles = %q, want %q", got, tc.want)
				}
			})
		})
	}
}
