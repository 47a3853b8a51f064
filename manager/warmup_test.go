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

// TestBuilderControllerWarmsUpOnStandby: a controller made by the builder
// for a kind the manager was not told about gets its informer made and
// synced on the standby replica, so that it starts at once when elected.
func TestBuilderControllerWarmsUpOnStandby(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newServer(t)
		var standbyReconciles atomic.Int64
		for _, id := range []string{"a", "b"} {
			m := electing(t, srv, id, &ledger{}, nil)
			err := controller.NewBuilder(m).For(&kube.Secret{}).Named("secrets").Complete(controller.ReconcilerFunc(
				func(ctx context.Context, req controller.Request) (controller.Result, error) {
					if id == "b" {
						standbyReconciles.Add(1)
					}
					return controller.Result{}, nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			start(t, m)
			time.Sleep(time.Second)
			synctest.Wait()
			if id == "b" {
				synced := false
				for _, s := range m.Cache().Stats() {
					if s.Kind.Kind == "Secret" {
						synced = s.Synced
					}
				}
				if !synced {
					t.Errorf("standby cache has no synced Secret informer: %+v", m.Cache().Stats())
				}
			}
		}
		if n := standbyReconciles.Load(); n != 0 {
			t.Errorf("standby reconciled %d times, want 0", n)
		}
	})
}
