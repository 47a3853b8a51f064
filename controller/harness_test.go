// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// This file is the test harness: a kubetest server and client, informers
// and controllers run for the length of a test, and a reconciler that
// records its calls.

var configMaps = kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}

// newServer returns a server and a client for it, over the in-process
// transport (usable inside a synctest bubble).
func newServer(t testing.TB) (*kubetest.Server, *kube.Client) {
	t.Helper()
	srv := kubetest.New(kubetest.Options{})
	t.Cleanup(srv.Close)
	// The tests count ConfigMaps cluster-wide: start without the one every
	// server (and kubetest) holds in kube-system.
	if err := srv.Delete(configMaps, "kube-system", "kube-apiserver-legacy-service-account-token-tracking"); err != nil {
		t.Fatal(err)
	}
	c, err := srv.Client(kube.ClientOptions{FieldManager: "controller-test"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// cm is a ConfigMap to seed the server with.
type cm struct {
	ns, name string
	labels   map[string]any
	owners   []any
	data     map[string]any
}

func createCM(t testing.TB, srv *kubetest.Server, o cm) map[string]any {
	t.Helper()
	meta := map[string]any{"namespace": o.ns, "name": o.name}
	if o.labels != nil {
		meta["labels"] = o.labels
	}
	if o.owners != nil {
		meta["ownerReferences"] = o.owners
	}
	out, err := srv.Create(configMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": o.data})
	if err != nil {
		t.Fatalf("create %s/%s: %v", o.ns, o.name, err)
	}
	return out
}

func updateCM(t testing.TB, srv *kubetest.Server, ns, name string, data map[string]any) {
	t.Helper()
	cur, err := srv.Get(configMaps, ns, name)
	if err != nil {
		t.Fatal(err)
	}
	cur["data"] = data
	if _, err := srv.Update(configMaps, cur); err != nil {
		t.Fatalf("update %s/%s: %v", ns, name, err)
	}
}

// run runs fn(ctx) in a goroutine until the test ends or stop is called;
// stop returns fn's error.
func run(t testing.TB, fn func(ctx context.Context) error) (stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- fn(ctx) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			err = <-done
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stop
}

// startCMInformer returns a started ConfigMap informer.
func startCMInformer(t testing.TB, c *kube.Client) *cache.Informer[kube.ConfigMap] {
	t.Helper()
	inf, err := cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	run(t, inf.Start)
	return inf
}

// startController runs c and fails the test if Start returns an error.
func startController(t testing.TB, c *Controller) (stop func()) {
	t.Helper()
	stopRun := run(t, c.Start)
	return func() {
		if err := stopRun(); err != nil {
			t.Errorf("Start = %v, want nil", err)
		}
	}
}

func mustNew(t testing.TB, name string, r Reconciler, opts Options) *Controller {
	t.Helper()
	c, err := New(name, r, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustWatch(t testing.TB, c *Controller, src Source) {
	t.Helper()
	if err := c.Watch(src); err != nil {
		t.Fatal(err)
	}
}

func req(ns, name string) Request { return Request{Key: kube.Key{Namespace: ns, Name: name}} }

// call is one recorded call of Reconcile.
type call struct {
	req Request
	at  time.Duration // since the recorder was made
}

// recorder is a Reconciler that records its calls and answers with fn
// (nil: success).
type recorder struct {
	start time.Time
	fn    func(ctx context.Context, req Request, n int) (Result, error)

	mu    sync.Mutex
	calls []call
	per   map[Request]int
}

func newRecorder(fn func(ctx context.Context, req Request, n int) (Result, error)) *recorder {
	return &recorder{start: time.Now(), fn: fn, per: map[Request]int{}}
}

func (r *recorder) Reconcile(ctx context.Context, req Request) (Result, error) {
	r.mu.Lock()
	r.calls = append(r.calls, call{req: req, at: time.Since(r.start)})
	r.per[req]++
	n := r.per[req]
	r.mu.Unlock()
	if r.fn == nil {
		return Result{}, nil
	}
	return r.fn(ctx, req, n)
}

// times returns when req was reconciled.
func (r *recorder) times(req Request) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for _, c := range r.calls {
		if c.req == req {
			out = append(out, c.at)
		}
	}
	return out
}

func (r *recorder) count(req Request) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.per[req]
}

func (r *recorder) total() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.calls)
}

// order returns the requests in the order they were reconciled.
func (r *recorder) order() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, len(r.calls))
	for i, c := range r.calls {
		out[i] = c.req.String()
	}
	return out
}

// sendKeys returns a channel source fed with one generic event per key.
func sendKeys(t testing.TB, keys ...Request) Source {
	t.Helper()
	ch := make(chan Change, len(keys))
	for _, k := range keys {
		ch <- Change{Key: k.Key}
	}
	return Channel(ch, EnqueueObject())
}

func ms(n ...int) []time.Duration {
	out := make([]time.Duration, len(n))
	for i, v := range n {
		out[i] = time.Duration(v) * time.Millisecond
	}
	return out
}

func names(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return out
}
