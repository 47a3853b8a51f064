// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/internal/scenario"
	"github.com/kubeloop/kubeloop/kube"
)

// loadConfigs reads the harness's two kubeconfigs through kube.LoadConfig,
// so that the YAML reader and the TLS transport are exercised on the real
// thing.
func loadConfigs(t *testing.T) (admin, denied *kube.Config) {
	h := harnessFromEnv(t)
	admin, err := kube.LoadConfig(kube.LoadOptions{Path: h.Kubeconfig})
	if err != nil {
		t.Fatalf("load admin kubeconfig: %v", err)
	}
	denied, err = kube.LoadConfig(kube.LoadOptions{Path: h.DeniedKubeconfig})
	if err != nil {
		t.Fatalf("load denied kubeconfig: %v", err)
	}
	return admin, denied
}

// TestScenarios runs the wire scenarios that also run against kube/kubetest.
// They reach the server directly, but for the clients of a scenario that
// asks for lagging watches, which go through a lagProxy.
func TestScenarios(t *testing.T) {
	admin, denied := loadConfigs(t)
	lag := newLagProxy(t, admin)
	scenario.Run(t, scenario.Env{
		Config:       admin,
		DeniedConfig: denied,
		Compact:      waitForCompaction,
		LagWatches:   lag.LagWatches,
		// The harness compacts etcd every 20 s, one interval behind: a
		// version is gone within about 45 s.
		Wait: 90 * time.Second,
		// The harness runs kube-controller-manager's garbage collector and
		// namespace controller unless told otherwise.
		Controllers: os.Getenv("KUBELOOP_CONTROLLERS") != "",
		// The version the harness built, which /version must report and
		// by which the scenarios choose what to expect; empty for a
		// server it did not build (they read /version).
		Version: os.Getenv("KUBELOOP_KUBE_VERSION"),
	})
}

// waitForCompaction waits until the server refuses an exact list at rv,
// which it does once etcd has compacted past it.
func waitForCompaction(ctx context.Context, t *testing.T, c *kube.Client, rv string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		var list kube.List[kube.Namespace]
		err := c.List(ctx, &list, kube.ListOptions{Limit: 1, ResourceVersion: rv, ResourceVersionMatch: kube.MatchExact})
		if kube.IsGone(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("resourceVersion %s not compacted after 90s (last answer: %v)", rv, err)
		}
		select {
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
