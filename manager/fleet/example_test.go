// SPDX-License-Identifier: Apache-2.0

package fleet_test

import (
	"context"
	"fmt"
	"slices"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/manager/fleet"
)

// One controller over two clusters (kubetest servers here; kubeconfigs
// loaded with kube.LoadConfig in a program): each ConfigMap named app
// gets the label cluster, the name its cluster was engaged under.
func Example() {
	host, a, b := kubetest.New(kubetest.Options{}), kubetest.New(kubetest.Options{}), kubetest.New(kubetest.Options{})
	defer host.Close()
	defer a.Close()
	defer b.Close()
	for _, srv := range []*kubetest.Server{a, b} {
		_, _ = srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}, map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"namespace": "default", "name": "app"}})
	}

	mgr, err := manager.New(host.Config(), manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		panic(err)
	}
	f, err := fleet.New(mgr, fleet.Options{Providers: []fleet.Provider{
		fleet.Static{"a": a.Config(), "b": b.Config()},
	}})
	if err != nil {
		panic(err)
	}
	labelled := make(chan string, 2)
	err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Clusters(f).Complete(controller.ReconcilerFunc(
		func(ctx context.Context, req controller.Request) (controller.Result, error) {
			cl := fleet.ClusterFrom(ctx) // the cluster of this request
			var cm kube.ConfigMap
			if err := cl.Client().Get(ctx, req.Key, &cm); err != nil || cm.Name != "app" || cm.Labels["cluster"] == cl.Name() {
				return controller.Result{}, kube.IgnoreNotFound(err)
			}
			patch := kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"metadata":{"labels":{"cluster":%q}}}`, cl.Name())}
			if err := cl.Client().Patch(ctx, &cm, patch); err != nil {
				return controller.Result{}, err
			}
			labelled <- cl.Name()
			return controller.Result{}, nil
		}))
	if err != nil {
		panic(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- mgr.Start(ctx) }()
	names := []string{<-labelled, <-labelled}
	slices.Sort(names)
	fmt.Println("labelled in", names)
	for _, srv := range []*kubetest.Server{a, b} {
		obj, _ := srv.Get(kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}, "default", "app")
		fmt.Println(obj["metadata"].(map[string]any)["labels"])
	}
	cancel()
	if err := <-done; err != nil {
		panic(err)
	}
	// Output:
	// labelled in [a b]
	// map[cluster:a]
	// map[cluster:b]
}
