// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// BenchmarkEngage measures what a cluster costs: the time to engage a
// cluster of 1 or 1,000 ConfigMaps (of 512 bytes of data) until a
// controller has reconciled them all,
// the time to disengage it, and the goroutines and heap each of ten
// clusters engaged at once adds (one controller watching ConfigMaps; the
// objects cached included). The servers are kubetest's, in process.
func BenchmarkEngage(b *testing.B) {
	for _, objects := range []int{1, 1000} {
		b.Run(fmt.Sprintf("configmaps=%d", objects), func(b *testing.B) { benchmarkEngage(b, objects) })
	}
}

func benchmarkEngage(b *testing.B, objects int) {
	host, srv := newServer(b, 0), newServer(b, objects)
	mgr, err := manager.New(config(host), manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		b.Fatal(err)
	}
	f, err := fleet.New(mgr, fleet.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var mu sync.Mutex
	reconciled := map[string]int{}
	all := map[string]chan struct{}{} // closed once a cluster's ConfigMaps are reconciled
	wait := func(name string) chan struct{} {
		mu.Lock()
		defer mu.Unlock()
		if all[name] == nil {
			all[name] = make(chan struct{})
		}
		return all[name]
	}
	err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
		func(ctx context.Context, req controller.Request) (controller.Result, error) {
			name := fleet.ClusterFrom(ctx).Name()
			done := wait(name)
			mu.Lock()
			defer mu.Unlock()
			if req.Namespace == "default" && req.Name != "kube-root-ca.crt" {
				if reconciled[name]++; reconciled[name] == objects {
					close(done)
				}
			}
			return controller.Result{}, nil
		}))
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() { stopped <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-stopped; err != nil {
			b.Error(err)
		}
	}()

	var engage, disengage time.Duration
	n := 0
	for b.Loop() {
		name := fmt.Sprintf("c%d", n)
		n++
		start := time.Now()
		if err := f.Engage(ctx, name, config(srv)); err != nil {
			b.Fatal(err)
		}
		<-wait(name)
		engage += time.Since(start)
		start = time.Now()
		if err := f.Disengage(ctx, name); err != nil {
			b.Fatal(err)
		}
		disengage += time.Since(start)
	}
	b.ReportMetric(float64(engage.Microseconds())/float64(n)/1000, "engage-ms")
	b.ReportMetric(float64(disengage.Microseconds())/float64(n)/1000, "disengage-ms")

	time.Sleep(100 * time.Millisecond) // what the disengagements stopped ends
	goroutines, before := runtime.NumGoroutine(), heap()
	const k = 10
	for i := range k {
		name := fmt.Sprintf("m%d", i)
		if err := f.Engage(ctx, name, config(srv)); err != nil {
			b.Fatal(err)
		}
		<-wait(name)
	}
	time.Sleep(100 * time.Millisecond)
	b.ReportMetric(float64(runtime.NumGoroutine()-goroutines)/k, "goroutines/cluster")
	b.ReportMetric(float64(heap()-before)/k, "heap-B/cluster")
}
