// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
)

// A reconciler that polls an outside system: it asks to run again in a
// second, ahead of the changes queued meanwhile (Result.Priority), and
// its calls are bounded by ReconcileTimeout; a call cut short by the
// timeout is counted in controller_runtime_reconcile_timeouts_total.
func ExampleResult_priority() {
	var mu sync.Mutex
	calls := 0
	done := make(chan struct{})
	poller := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		mu.Lock()
		calls++
		n := calls
		mu.Unlock()
		switch n {
		case 1: // the outside system hangs: the timeout ends the wait
			<-ctx.Done()
			return controller.Result{}, ctx.Err()
		case 2:
			return controller.Result{RequeueAfter: time.Millisecond, Priority: 10}, nil
		}
		close(done)
		return controller.Result{}, nil
	})
	c, _ := controller.New("poller", poller, controller.Options{ReconcileTimeout: 10 * time.Millisecond})
	changes := make(chan controller.Change, 1)
	changes <- controller.Change{Key: kube.Key{Namespace: "default", Name: "outside"}}
	_ = c.Watch(controller.Channel(changes, controller.EnqueueObject()))

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = c.Start(ctx) })
	<-done
	cancel()
	wg.Wait()
	m := c.Metrics()
	fmt.Println("reconciles:", m.ReconcileTotal.Error+m.ReconcileTotal.RequeueAfter+m.ReconcileTotal.Success)
	fmt.Println("timeouts:", m.ReconcileTimeoutsTotal)
	// Output:
	// reconciles: 3
	// timeouts: 1
}
