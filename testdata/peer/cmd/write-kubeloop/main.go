// SPDX-License-Identifier: Apache-2.0

// Command write-kubeloop runs the README's controller on the server of
// $KUBECONFIG, with kubeloop's defaults: a manager, and a controller of
// ConfigMaps whose reconciler reads the object from the cache and labels
// it with a merge patch unless it carries the label already. Only the
// seeded ConfigMaps (namespace peer) are labelled. Once all n of them
// carry the label it prints one JSON line (reconciles, wall and CPU time
// from the start of the manager, CPU per reconcile and per object, peak
// RSS) and exits.
//
//	write-kubeloop -n 50000
//
// The one setting that is not a default: the metrics server is off
// (MetricsBindAddress "0"), so that the program needs no free port.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/manager"
	"github.com/kubeloop/kubeloop/testdata/peer/internal/measure"
)

func main() {
	n := flag.Int("n", 50000, "number of seeded ConfigMaps")
	flag.Parse()
	r, err := run(*n)
	if err != nil {
		measure.Fail(fmt.Errorf("write-kubeloop: %w", err))
	}
	measure.Print(r)
}

func run(n int) (measure.Result, error) {
	cfg, err := kube.LoadConfig(kube.LoadOptions{})
	if err != nil {
		return measure.Result{}, err
	}
	mgr, err := manager.New(cfg, manager.Options{MetricsBindAddress: "0"})
	if err != nil {
		return measure.Result{}, err
	}
	var w *measure.Write // set before the manager starts
	label := kube.Patch{Type: kube.MergePatch, Data: fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, measure.Label, measure.LabelValue)}
	err = controller.NewBuilder(mgr).For(&kube.ConfigMap{}).Complete(controller.ReconcilerFunc(
		func(ctx context.Context, req controller.Request) (controller.Result, error) {
			w.Reconciled()
			var cm kube.ConfigMap
			if err := mgr.Client().Get(ctx, req.Key, &cm); err != nil { // from the cache
				return controller.Result{}, kube.IgnoreNotFound(err)
			}
			if cm.Namespace != measure.Namespace {
				return controller.Result{}, nil
			}
			if cm.Labels[measure.Label] == measure.LabelValue {
				w.Labelled(cm.Name)
				return controller.Result{}, nil
			}
			if err := mgr.Client().Patch(ctx, &cm, label); err != nil {
				return controller.Result{}, err
			}
			w.Patched()
			w.Labelled(cm.Name)
			return controller.Result{}, nil
		}))
	if err != nil {
		return measure.Result{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w = measure.StartWrite("write kubeloop", n)
	errs := make(chan error, 1)
	go func() { errs <- mgr.Start(ctx) }()
	select {
	case <-w.Done():
	case err := <-errs:
		return measure.Result{}, fmt.Errorf("manager stopped before every object was labelled: %w", err)
	}
	r := w.Result()
	cancel()
	if err := <-errs; err != nil && !errors.Is(err, context.Canceled) {
		return measure.Result{}, fmt.Errorf("stop manager: %w", err)
	}
	return r, nil
}
