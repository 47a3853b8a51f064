// SPDX-License-Identifier: Apache-2.0

// Command write-controller-runtime is write-kubeloop's controller written
// with controller-runtime and its defaults: ctrl.GetConfig, a manager,
// and a controller of ConfigMaps whose reconciler reads the object from
// the cache and labels it with a merge patch unless it carries the label
// already. Only the seeded ConfigMaps (namespace peer) are labelled. Once
// all n of them carry the label it prints one JSON line (reconciles, wall
// and CPU time from the start of the manager, CPU per reconcile and per
// object, peak RSS) and exits.
//
//	write-controller-runtime -n 50000
//
// The settings that are not defaults: the metrics server is off
// (BindAddress "0"), so that the program needs no free port, and logs are
// discarded (as kubeloop's are without a logger).
package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/kubeloop/kubeloop/testdata/peer/internal/measure"
)

func main() {
	n := flag.Int("n", 50000, "number of seeded ConfigMaps")
	flag.Parse()
	ctrl.SetLogger(logr.Discard())
	r, err := run(*n)
	if err != nil {
		measure.Fail(fmt.Errorf("write-controller-runtime: %w", err))
	}
	measure.Print(r)
}

func run(n int) (measure.Result, error) {
	cfg, err := ctrl.GetConfig()
	if err != nil {
		return measure.Result{}, err
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Metrics: metricsserver.Options{BindAddress: "0"}})
	if err != nil {
		return measure.Result{}, err
	}
	var w *measure.Write // set before the manager starts
	label := client.RawPatch(types.MergePatchType,
		fmt.Appendf(nil, `{"metadata":{"labels":{%q:%q}}}`, measure.Label, measure.LabelValue))
	err = ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(reconcile.Func(
		func(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
			w.Reconciled()
			var cm corev1.ConfigMap
			if err := mgr.GetClient().Get(ctx, req.NamespacedName, &cm); err != nil { // from the cache
				return ctrl.Result{}, client.IgnoreNotFound(err)
			}
			if cm.Namespace != measure.Namespace {
				return ctrl.Result{}, nil
			}
			if cm.Labels[measure.Label] == measure.LabelValue {
				w.Labelled(cm.Name)
				return ctrl.Result{}, nil
			}
			if err := mgr.GetClient().Patch(ctx, &cm, label); err != nil {
				return ctrl.Result{}, err
			}
			w.Patched()
			w.Labelled(cm.Name)
			return ctrl.Result{}, nil
		}))
	if err != nil {
		return measure.Result{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w = measure.StartWrite("write controller-runtime", n)
	errs := make(chan error, 1)
	go func() { errs <- mgr.Start(ctx) }()
	select {
	case <-w.Done():
	case err := <-errs:
		return measure.Result{}, fmt.Errorf("manager stopped before every object was labelled: %w", err)
	}
	r := w.Result()
	cancel()
	if err := <-errs; err != nil {
		return measure.Result{}, fmt.Errorf("stop manager: %w", err)
	}
	return r, nil
}
