// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
)

// The manager never imports package controller; this test does, to check
// the two join: a *Manager is a controller.Manager, the builder's
// controller runs under it, and its metrics (read without importing
// controller) come out of the endpoint.

var (
	_ controller.Manager     = (*Manager)(nil)
	_ MetricsCollector       = (*controller.Controller)(nil)
	_ LeaderElectionRunnable = (*controller.Controller)(nil)
)

func TestControllerBuilderJoin(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		createCM(t, srv, "default", "a")
		createCM(t, srv, "default", "b")
		m := newTestManager(t, srv, nil)
		var reconciles atomic.Int32
		r := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
			var cm kube.ConfigMap
			if err := m.Client().Get(ctx, req.Key, &cm); err != nil {
				return controller.Result{}, err
			}
			reconciles.Add(1)
			return controller.Result{}, nil
		})
		if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).WithOptions(controller.Options{MaxConcurrentReconciles: 3}).Complete(r); err != nil {
			t.Fatal(err)
		}
		if err := controller.NewBuilder(m).For(&kube.ConfigMap{}).Complete(r); err == nil {
			t.Error("a second controller named configmap was accepted")
		}
		run := start(t, m)
		time.Sleep(time.Second)
		synctest.Wait()
		if got := reconciles.Load(); got != 2 {
			t.Errorf("reconciles = %d, want 2", got)
		}
		fams := scrape(t, m)
		for _, v := range []struct {
			name   string
			labels []string
			want   float64
		}{
			{"controller_runtime_reconcile_total", []string{"controller", "configmap", "result", "success"}, 2},
			{"controller_runtime_max_concurrent_reconciles", []string{"controller", "configmap"}, 3},
			{"workqueue_adds_total", []string{"controller", "configmap", "name", "configmap"}, 2},
			{"workqueue_depth", []string{"name", "configmap"}, 0},
		} {
			if s, ok := sample(fams, v.name, v.labels...); !ok || s.Value != v.want {
				t.Errorf("%s%v = %v (found %v), want %v", v.name, v.labels, s.Value, ok, v.want)
			}
		}
		if s, ok := sample(fams, "controller_runtime_reconcile_time_seconds", "controller", "configmap"); !ok || s.Histogram.Count != 2 {
			t.Errorf("controller_runtime_reconcile_time_seconds = %+v, want 2 observations", s.Histogram)
		}
		if err := run.stop(); err != nil {
			t.Fatal(err)
		}
	})
}
