// SPDX-License-Identifier: Apache-2.0

// Command sync-kubeloop starts a kubeloop informer of the ConfigMaps of
// every namespace of the server of $KUBECONFIG, with kubeloop's defaults
// (cache.InformerOptions's zero value), waits for it to sync and prints
// one JSON line: wall and CPU time to sync, heap per object, peak RSS.
//
//	sync-kubeloop -variant typed|metadata
//
// typed caches kube.ConfigMap; metadata caches kube.PartialObjectMetadata
// (the server sends metadata only).
package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/testdata/peer/internal/measure"
)

// informer is what the program needs of a *cache.Informer[T].
type informer interface {
	Start(ctx context.Context) error
	WaitForSync(ctx context.Context) error
	Stats() cache.Stats
}

func main() {
	variant := flag.String("variant", "typed", "typed, typed-list (paged lists instead of a WatchList stream) or metadata")
	flag.Parse()
	r, err := run(*variant)
	if err != nil {
		measure.Fail(fmt.Errorf("sync-kubeloop: %w", err))
	}
	measure.Print(r)
}

func run(variant string) (measure.Result, error) {
	cfg, err := kube.LoadConfig(kube.LoadOptions{})
	if err != nil {
		return measure.Result{}, err
	}
	c, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		return measure.Result{}, err
	}
	var inf informer
	switch variant {
	case "typed":
		inf, err = cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{})
	case "typed-list":
		inf, err = cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{DisableWatchList: true})
	case "metadata":
		inf, err = cache.NewInformer[kube.PartialObjectMetadata](c,
			cache.InformerOptions{Kind: kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}})
	default:
		return measure.Result{}, fmt.Errorf("unknown variant %q", variant)
	}
	if err != nil {
		return measure.Result{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := measure.StartSync("sync kubeloop " + variant)
	errs := make(chan error, 1)
	go func() { errs <- inf.Start(ctx); cancel() }()
	if err := inf.WaitForSync(ctx); err != nil {
		return measure.Result{}, fmt.Errorf("informer stopped before it synced: %w", <-errs)
	}
	r := m.Done(inf.Stats().Objects)
	runtime.KeepAlive(inf)
	cancel()
	if err := <-errs; err != nil && ctx.Err() == nil {
		return measure.Result{}, err
	}
	return r, nil
}
