// SPDX-License-Identifier: Apache-2.0

package controller

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

const benchObjects = 10_000

// countdown is a no-op reconciler that closes done after n reconciles.
type countdown struct {
	left atomic.Int64
	done chan struct{}
}

func (c *countdown) reset(n int) {
	c.left.Store(int64(n))
	c.done = make(chan struct{})
}

func (c *countdown) Reconcile(context.Context, Request) (Result, error) {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
	return Result{}, nil
}

// benchServer returns a server holding benchObjects ConfigMaps, with room
// for a whole round of watch events, a client, and a synced informer.
func benchServer(b *testing.B) (*kubetest.Server, *cache.Informer[kube.ConfigMap]) {
	b.Helper()
	srv := kubetest.New(kubetest.Options{WatchBufferSize: 2 * benchObjects, HistorySize: 2 * benchObjects})
	b.Cleanup(srv.Close)
	client, err := srv.Client(kube.ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchObjects {
		createCM(b, srv, cm{ns: "default", name: fmt.Sprintf("cm%05d", i), data: map[string]any{"n": "0"}})
	}
	inf := startCMInformer(b, client)
	if err := inf.WaitForSync(b.Context()); err != nil {
		b.Fatal(err)
	}
	return srv, inf
}

func reportRate(b *testing.B, reconciles int, took time.Duration) {
	b.ReportMetric(float64(took.Nanoseconds())/float64(reconciles), "ns/reconcile")
	b.ReportMetric(float64(reconciles)/took.Seconds(), "reconciles/s")
}

// BenchmarkReconcileInitialList measures a controller started on a synced
// cache of 10,000 ConfigMaps until it has reconciled them all with a
// no-op reconciler: handler registration, events, predicates-free
// enqueueing (at low priority), queue, workers, results, metrics.
func BenchmarkReconcileInitialList(b *testing.B) {
	_, inf := benchServer(b)
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			r := &countdown{}
			var took time.Duration
			for b.Loop() {
				r.reset(benchObjects)
				c, err := New("bench", r, Options{MaxConcurrentReconciles: workers})
				if err != nil {
					b.Fatal(err)
				}
				if err := c.Watch(Kind(inf.ObjectInformer(), EnqueueObject())); err != nil {
					b.Fatal(err)
				}
				start := time.Now()
				ctx, cancel := context.WithCancel(b.Context())
				errc := make(chan error, 1)
				go func() { errc <- c.Start(ctx) }()
				<-r.done
				took += time.Since(start)
				cancel()
				if err := <-errc; err != nil {
					b.Fatal(err)
				}
			}
			reportRate(b, b.N*benchObjects, took)
		})
	}
}

// BenchmarkReconcileWatchEvents measures the whole path of a change: each
// round updates the 10,000 ConfigMaps on the server, and the controller
// reconciles each from its watch event (server write and watch encoding,
// the informer's decoding and store, handler, queue, worker).
func BenchmarkReconcileWatchEvents(b *testing.B) {
	srv, inf := benchServer(b)
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			r := &countdown{}
			r.reset(benchObjects) // the initial list
			c, err := New("bench", r, Options{MaxConcurrentReconciles: workers})
			if err != nil {
				b.Fatal(err)
			}
			if err := c.Watch(Kind(inf.ObjectInformer(), EnqueueObject())); err != nil {
				b.Fatal(err)
			}
			stop := run(b, c.Start)
			<-r.done
			objs, err := srv.List(configMaps, "default")
			if err != nil {
				b.Fatal(err)
			}
			round := 0
			for b.Loop() {
				round++
				r.reset(len(objs))
				for _, o := range objs {
					o["data"] = map[string]any{"n": fmt.Sprint(round)}
					delete(o["metadata"].(map[string]any), "resourceVersion")
					if _, err := srv.Update(configMaps, o); err != nil {
						b.Fatal(err)
					}
				}
				<-r.done
			}
			b.StopTimer()
			if err := stop(); err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(objs)), "ns/reconcile")
			b.ReportMetric(float64(b.N*len(objs))/b.Elapsed().Seconds(), "reconciles/s")
		})
	}
}
