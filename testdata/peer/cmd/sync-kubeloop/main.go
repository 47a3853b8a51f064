// SPDX-License-Identifier: Apache-2.0

// Command sync-kubeloop starts a kubeloop informer of the ConfigMaps of
// every namespace of the server of $KUBECONFIG, with kubeloop's defaults
// (cache.InformerOptions's zero value), waits for it to sync and prints
// one JSON line: wall and CPU time to sync, heap per object, peak RSS.
//
//	sync-kubeloop [-variant typed|typed-watchlist|metadata] [-page N]
//
// typed caches kube.ConfigMap, read with one list (or pages of N);
// typed-watchlist reads them from a WatchList stream instead; metadata
// caches kube.PartialObjectMetadata (the server sends metadata only).
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
	variant := flag.String("variant", "typed", "typed, typed-watchlist (a WatchList stream instead of one list) or metadata")
	page := flag.Int64("page", 0, "the page size of the typed informer's lists (0: one list, the default)")
	flag.Parse()
	r, err := run(*variant, *page)
	if err != nil {
		measure.Fail(fmt.Errorf("sync-kubeloop: %w", err))
	}
	measure.Print(r)
}

func run(variant string, page int64) (measure.Result, error) {
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
		inf, err = cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{PageSize: page})
	case "typed-watchlist":
		inf, err = cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{WatchList: true})
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
