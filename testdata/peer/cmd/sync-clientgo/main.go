// SPDX-License-Identifier: Apache-2.0

// Command sync-clientgo starts a client-go shared informer of the
// ConfigMaps of every namespace of the server of $KUBECONFIG, as a
// client-go program does (a SharedInformerFactory with no resync), waits
// for it to sync and prints one JSON line: wall and CPU time to sync, heap
// per object, peak RSS.
//
//	sync-clientgo -variant protobuf|json|metadata
//
// protobuf is client-go's default: a generated clientset asks for
// protobuf when the config sets no content type. json forces
// application/json. metadata is the metadata-only informer (package
// metadatainformer), protobuf too by default.
package main

import (
	"context"
	"flag"
	"fmt"
	"runtime"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kubeloop/kubeloop/testdata/peer/internal/measure"
)

// factory is what the program needs of client-go's two informer
// factories.
type factory interface {
	Start(stop <-chan struct{})
	Shutdown()
}

func main() {
	variant := flag.String("variant", "protobuf", "protobuf, json or metadata")
	flag.Parse()
	r, err := run(*variant)
	if err != nil {
		measure.Fail(fmt.Errorf("sync-clientgo: %w", err))
	}
	measure.Print(r)
}

func run(variant string) (measure.Result, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		clientcmd.NewDefaultClientConfigLoadingRules(), &clientcmd.ConfigOverrides{}).ClientConfig()
	if err != nil {
		return measure.Result{}, err
	}
	f, inf, err := newInformer(cfg, variant)
	if err != nil {
		return measure.Result{}, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	m := measure.StartSync("sync client-go " + variant)
	f.Start(ctx.Done())
	if !toolscache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return measure.Result{}, fmt.Errorf("informer did not sync")
	}
	r := m.Done(len(inf.GetStore().ListKeys()))
	runtime.KeepAlive(inf)
	cancel()
	f.Shutdown()
	return r, nil
}

func newInformer(cfg *rest.Config, variant string) (factory, toolscache.SharedIndexInformer, error) {
	switch variant {
	case "protobuf", "json":
		if variant == "json" {
			cfg.ContentType = "application/json"
			cfg.AcceptContentTypes = "application/json"
		}
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return nil, nil, err
		}
		f := informers.NewSharedInformerFactory(cs, 0)
		return f, f.Core().V1().ConfigMaps().Informer(), nil
	case "metadata":
		mc, err := metadata.NewForConfig(cfg)
		if err != nil {
			return nil, nil, err
		}
		f := metadatainformer.NewSharedInformerFactory(mc, 0)
		return f, f.ForResource(schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}).Informer(), nil
	}
	return nil, nil, fmt.Errorf("unknown variant %q", variant)
}
