// SPDX-License-Identifier: Apache-2.0

package main

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/crd"
	"github.com/kubeloop/kubeloop/kube/kubetest"
	"github.com/kubeloop/kubeloop/manager"
)

// The operator end to end, on an in-process API server: the whole wiring
// of a CRD operator is the manager, the CRD installer, the owner index
// and one builder chain. Copy types.go, reconcile.go and this wiring to
// start your own.
func Example() {
	srv := kubetest.New(kubetest.Options{}) // or kube.LoadConfig for a real cluster
	defer srv.Close()
	ctx, stop := context.WithCancel(context.Background())
	defer stop()

	mgr, err := manager.New(srv.Config(), manager.Options{
		Logger:             slog.New(slog.DiscardHandler),
		Cache:              cache.Options{ByObject: []cache.ByObject{{Object: &kube.ConfigMap{}, LabelSelector: kube.SelectorFromSet(map[string]string{LabelManagedBy: Name})}}},
		MetricsBindAddress: "0",
	})
	if err != nil {
		panic(err)
	}
	def, err := crd.For(&Widget{}, crd.Options{})
	if err != nil {
		panic(err)
	}
	if err := mgr.Add(crd.NewInstaller(mgr.APIClient(), def)); err != nil {
		panic(err)
	}
	if err := mgr.Cache().IndexOwner(ctx, &kube.ConfigMap{}, &Widget{}); err != nil {
		panic(err)
	}
	err = controller.NewBuilder(mgr).For(&Widget{}).Owns(&kube.ConfigMap{}).
		Complete(&reconciler{client: mgr.Client(), events: mgr.GetEventRecorderFor(Name)})
	if err != nil {
		panic(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()

	// A user creates a Widget once the CRD serves...
	c := mgr.APIClient()
	w := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "demo"}, Spec: WidgetSpec{Color: "blue", Size: 3}}
	for c.Create(ctx, w) != nil {
		time.Sleep(10 * time.Millisecond)
	}
	// ...and the operator reports it Ready.
	for !kube.IsStatusConditionTrue(w.Status.Conditions, ConditionReady) {
		time.Sleep(10 * time.Millisecond)
		if err := c.Get(ctx, w.Key(), w); err != nil {
			panic(err)
		}
	}
	var cm kube.ConfigMap
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: w.Status.ConfigMap}, &cm); err != nil {
		panic(err)
	}
	ready := kube.FindStatusCondition(w.Status.Conditions, ConditionReady)
	fmt.Println(ready.Type, ready.Status, ready.Reason, "generation", ready.ObservedGeneration)
	fmt.Println(cm.Name, cm.Data, w.Finalizers)

	stop()
	if err := <-done; err != nil {
		panic(err)
	}
	// Output:
	// Ready True Reconciled generation 1
	// widget-demo map[color:blue size:3] [example.kubeloop.dev/cleanup]
}
