// SPDX-License-Identifier: Apache-2.0

// Package operatortest holds the test helpers the example programs and
// their controllers share: a kubetest server with a client and a cache on
// it, standing in for the manager (so that tests run inside synctest
// bubbles); an event recorder that keeps what it records; the programs'
// exit codes checked, and a program run as its own process would be; a
// kubeconfig writer; and a buffer safe for concurrent writes, for logs.
//
// Usage:
//
//  1. e := StartEnv(t, "my-test", setup) makes the server, client and
//     cache, has setup register the controllers (with the [Harness] as
//     their manager), and runs them until the test ends; or, by hand,
//     h := New(t, "my-test"), set up, h.Start(ctx).
//  2. Seed e.Server or write with e.Client, then e.Eventually checks the
//     outcome; e.Events holds the events recorded.
//  3. For a program's main: [CheckExitCodes] for its command lines, and
//     p := Start(t, run, args...), p.Until(...), p.Stop() for its life.
package operatortest

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
)

// Harness is the least a manager does for a controller's builder (a
// cache, the client's mappings, a registry of controllers) over a new
// kubetest server. It implements controller.Manager: its embedded
// cache.Cluster gives the informers, mappings and waits for writes.
type Harness struct {
	*cache.Cluster
	t      *testing.T
	Server *kubetest.Server
	Client *kube.Client // unlimited (no client-side rate limit)
	Cache  *cache.Cache // drops managedFields

	mu          sync.Mutex
	controllers map[string]manager.LeaderElectionRunnable // added, not yet started
}

// New starts a kubetest server until the test ends, and makes a client
// of it with fieldManager, and a cache on that client that remembers
// the client's writes, as a manager's does.
func New(t *testing.T, fieldManager string) *Harness {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	cfg := srv.Config()
	cfg.QPS = -1 // as srv.Client: tests need no pacing
	c, err := cache.NewCluster(cfg, kube.ClientOptions{FieldManager: fieldManager}, cache.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &Harness{Cluster: c, t: t, Server: srv, Client: c.APIClient(), Cache: c.Cache(), controllers: map[string]manager.LeaderElectionRunnable{}}
}

func (h *Harness) AddController(name string, r manager.LeaderElectionRunnable) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.controllers[name]; ok {
		return fmt.Errorf("controller %q added twice", name)
	}
	h.controllers[name] = r
	return nil
}

// AddShardedController fails: the harness runs no ring.
func (h *Harness) AddShardedController(name string, _ kube.Object, _ manager.LeaderElectionRunnable, _ func(context.Context, kube.ShardSelector) error) error {
	return fmt.Errorf("add sharded controller %q: the harness runs no ring", name)
}

// Start runs the cache and the controllers added so far until ctx is
// done or the test ends, and waits for them when it ends. A controller
// that returns an error fails the test.
func (h *Harness) Start(ctx context.Context) {
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = h.Cache.Start(ctx) })
	h.mu.Lock()
	for name, r := range h.controllers {
		wg.Go(func() {
			if err := r.Start(ctx); err != nil {
				h.t.Errorf("controller %s: %v", name, err)
			}
		})
	}
	h.mu.Unlock()
	h.t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
}

// Recorder keeps the events recorded, as "Type Reason: note". The zero
// value is ready to use.
type Recorder struct {
	mu     sync.Mutex
	events []string
}

// Eventf implements the recorders of the operators, as a
// *manager.EventRecorder does.
func (r *Recorder) Eventf(_ kube.Object, severity manager.Severity, reason, _, noteFmt string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, fmt.Sprintf("%s %s: %s", severity, reason, fmt.Sprintf(noteFmt, args...)))
}

// Has reports whether an event containing s was recorded.
func (r *Recorder) Has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.events {
		if strings.Contains(e, s) {
			return true
		}
	}
	return false
}

// String returns the events recorded, one a line.
func (r *Recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.events, "\n")
}

// WriteKubeconfig writes a kubeconfig for server (with CA caData, if
// any) and a token, in a directory removed when the test ends, and
// returns its path.
func WriteKubeconfig(t *testing.T, server string, caData []byte) string {
	t.Helper()
	ca := ""
	if caData != nil {
		ca = "\n    certificate-authority-data: " + base64.StdEncoding.EncodeToString(caData)
	}
	data := fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: %s%s
users:
- name: test
  user:
    token: test
contexts:
- name: test
  context:
    cluster: test
    user: test
current-context: test
`, server, ca)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// SyncBuffer is a bytes.Buffer safe for concurrent writes and reads. The
// zero value is ready to use.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Env is an operator's controllers running on a kubetest server, as its
// tests see them: the server to seed and inspect, an unlimited client,
// and the events the controllers recorded.
type Env struct {
	T      *testing.T
	Ctx    context.Context // the test's: done when it ends
	Server *kubetest.Server
	Client *kube.Client
	Events *Recorder
}

// StartEnv makes a [Harness] with fieldManager, has setup register the
// controllers on it (recording events in events), and starts them until
// the test ends. Call it inside a synctest bubble.
func StartEnv(t *testing.T, fieldManager string, setup func(ctx context.Context, h *Harness, events *Recorder) error) *Env {
	t.Helper()
	h := New(t, fieldManager)
	e := &Env{T: t, Ctx: t.Context(), Server: h.Server, Client: h.Client, Events: &Recorder{}}
	if err := setup(e.Ctx, h, e.Events); err != nil {
		t.Fatal(err)
	}
	h.Start(e.Ctx)
	return e
}

// Eventually checks cond every 100ms (of the bubble's fake time) for up to
// a minute, and fails the test with cond's last error and the events
// recorded if it never holds.
func (e *Env) Eventually(what string, cond func() error) {
	e.T.Helper()
	var err error
	for range 600 {
		if err = cond(); err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	e.T.Fatalf("%s: %v\nevents:\n%s", what, err, e.Events)
}
