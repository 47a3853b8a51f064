// SPDX-License-Identifier: Apache-2.0

package manager_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/leader"
	"github.com/kubeloop/kubeloop/manager"
)

// A program with one controller: it reconciles ConfigMaps, reading them
// from the manager's cache, and records an event for each. Here the API
// server is kubetest's, and the program stops after its first reconcile;
// a real main loads its config with kube.LoadConfig, serves metrics on
// :8080, enables leader election, and runs until SIGTERM.
func Example() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	if _, err := srv.Create(kube.GroupVersionResource{Version: "v1", Resource: "configmaps"}, map[string]any{
		"metadata": map[string]any{"namespace": "default", "name": "hello"}, "data": map[string]any{"greeting": "hi"},
	}); err != nil {
		log.Fatal(err)
	}

	mgr, err := manager.New(srv.Config(), manager.Options{
		MetricsBindAddress: "0", // the default is ":8080"
		// Declared kinds stay warm on standby replicas; this one is cached
		// in namespace default only.
		Cache: cache.Options{ByObject: []cache.ByObject{{Object: &kube.ConfigMap{}, Namespaces: []string{"default"}}}},
		// In a cluster:
		// LeaderElection: manager.LeaderElectionOptions{LeaseName: "greeter"},
		// HealthProbeBindAddress: ":8081",
	})
	if err != nil {
		log.Fatal(err)
	}
	events := mgr.GetEventRecorderFor("example.com/greeter")

	ctx, cancel := context.WithCancel(context.Background()) // manager.SetupSignalHandler() in main
	var once sync.Once
	err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Complete(controller.ReconcilerFunc(
		func(ctx context.Context, req controller.Request) (controller.Result, error) {
			var cm kube.ConfigMap
			if err := mgr.Client().Get(ctx, req.Key, &cm); err != nil {
				return controller.Result{}, err
			}
			once.Do(func() {
				fmt.Printf("reconciled %s: greeting %q\n", req.Key, cm.Data["greeting"])
				events.Eventf(&cm, manager.Normal, "Greeted", "Reconcile", "said %s", cm.Data["greeting"])
				cancel()
			})
			return controller.Result{}, nil
		}))
	if err != nil {
		log.Fatal(err)
	}

	if err := mgr.Start(ctx); err != nil {
		if errors.Is(err, leader.ErrLeadershipLost) {
			log.Fatal("lost the lease; exiting to restart as a fresh candidate: ", err)
		}
		log.Fatal(err) // exit non-zero: a runnable failed, or did not stop in time
	}

	// Start wrote the recorded event before it returned.
	evs, err := srv.List(kube.GroupVersionResource{Group: "events.k8s.io", Version: "v1", Resource: "events"}, "default")
	if err != nil {
		log.Fatal(err)
	}
	for _, ev := range evs {
		fmt.Printf("event %s %s: %s\n", ev["type"], ev["reason"], ev["note"])
	}
	// Output:
	// reconciled default/hello: greeting "hi"
	// event Normal Greeted: said hi
}
