// SPDX-License-Identifier: Apache-2.0

package cache_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// A cache of ConfigMaps on the in-process test server: a handler hears of
// changes, and reads come from memory as copies the caller may change.
func Example() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	settings := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "settings"},
		Data: map[string]string{"color": "blue"}}
	if err := client.Create(ctx, settings); err != nil {
		panic(err)
	}

	c, err := cache.New(client, cache.Options{Namespaces: []string{"default"}, DefaultTransform: cache.DropManagedFields})
	if err != nil {
		panic(err)
	}
	source, err := c.GetInformer(ctx, &kube.ConfigMap{})
	if err != nil {
		panic(err)
	}
	changes := make(chan string, 10)
	if _, err := source.AddEventHandler(cache.HandlerFuncs[kube.Object]{
		AddFunc: func(obj kube.Object, initial bool) {
			changes <- fmt.Sprintf("added %s (initial list: %v)", obj.GetObjectMeta().Key(), initial)
		},
		UpdateFunc: func(_, obj kube.Object, _ bool) {
			changes <- fmt.Sprintf("updated %s: color=%s", obj.GetObjectMeta().Key(), obj.(*kube.ConfigMap).Data["color"])
		},
	}); err != nil {
		panic(err)
	}

	var wg sync.WaitGroup
	wg.Go(func() { _ = c.Start(ctx) })
	if err := c.WaitForSync(ctx); err != nil {
		panic(err)
	}
	fmt.Println(<-changes)

	var cm kube.ConfigMap
	if err := c.Get(ctx, kube.Key{Namespace: "default", Name: "settings"}, &cm); err != nil {
		panic(err)
	}
	fmt.Println("cached color:", cm.Data["color"])

	// cm is a copy: changing it is safe. The cache may be a version
	// behind, so write what changed as a patch (an Update of a stale copy
	// would Conflict).
	patch := kube.MergeFrom(&cm)
	cm.Data["color"] = "green"
	if err := client.Patch(ctx, &cm, patch); err != nil {
		panic(err)
	}
	fmt.Println(<-changes)

	err = c.Get(ctx, kube.Key{Namespace: "default", Name: "missing"}, &cm)
	fmt.Println("missing:", kube.IsNotFound(err))

	cancel()
	wg.Wait() // Start returns once every goroutine it started has ended
	// Output:
	// added default/settings (initial list: true)
	// cached color: blue
	// updated default/settings: color=green
	// missing: true
}
