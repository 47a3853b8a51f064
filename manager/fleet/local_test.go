// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// TestEngageLocal: the manager's own cluster, engaged with EngageLocal,
// is a member like the others, read through the manager's cache (no
// second list of its objects); disengaged, its controller stops there
// and the manager's cache runs on.
func TestEngageLocal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host, member := newServer(t, 2), newServer(t, 2)
		mgr, err := manager.New(config(host), manager.Options{MetricsBindAddress: "0"})
		if err != nil {
			t.Fatal(err)
		}
		f, err := fleet.New(mgr, fleet.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var did seen
		err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
			func(ctx context.Context, req controller.Request) (controller.Result, error) {
				cl := fleet.ClusterFrom(ctx)
				did.add(cl.Name())
				return labelSeen(ctx, cl, req.Key)
			}))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := f.EngageLocal(ctx, "hub", mgr); err != nil {
			t.Fatal(err)
		}
		if err := f.Engage(ctx, "member", config(member)); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- mgr.Start(ctx) }()
		synctest.Wait()

		if got := label(t, host, "app-1"); got != "hub" {
			t.Errorf("the manager's own cluster: label seen of app-1 = %q, want hub", got)
		}
		if got := label(t, member, "app-1"); got != "member" {
			t.Errorf("the member: label seen of app-1 = %q, want member", got)
		}
		if n := host.Count("list", "configmaps"); n != 1 {
			t.Errorf("the manager's cluster's ConfigMaps listed %d times, want once: one cache, shared", n)
		}
		if err := f.Disengage(ctx, "hub"); err != nil {
			t.Fatal(err)
		}
		if got := f.Names(); !slices.Equal(got, []string{"member"}) {
			t.Errorf("Names() = %v after the hub left, want [member]", got)
		}
		before := did.clusters()["hub"]
		if _, err := host.Update(configMaps, map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"namespace": "default", "name": "app-0"}, "data": map[string]any{"x": "y"}}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if after := did.clusters()["hub"]; after != before {
			t.Errorf("hub reconciled %d times after it left, want none", after-before)
		}
		var cms kube.List[kube.ConfigMap]
		if err := mgr.Client().List(ctx, &cms, kube.InNamespace("default")); err != nil || len(cms.Items) != 2 {
			t.Errorf("the manager's cache after the hub left the fleet: %d ConfigMaps, %v; want it running", len(cms.Items), err)
		}
		if err := f.EngageLocal(ctx, "", mgr); err == nil {
			t.Error("EngageLocal with no name: no error")
		}
		if err := f.EngageLocal(ctx, "x", (*manager.Manager)(nil)); err == nil {
			t.Error("EngageLocal of a nil manager: no error")
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("Start: %v", err)
		}
	})
}
