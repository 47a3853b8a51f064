// SPDX-License-Identifier: Apache-2.0

package controller_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/controller"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// A controller that answers every ConfigMap labelled app=greeter with a
// "-reply" ConfigMap it owns, run on the in-process kubetest server.
func Example() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	client, _ := kube.NewClient(srv.Config(), kube.ClientOptions{})
	greetings, _ := cache.NewInformer[kube.ConfigMap](client, cache.InformerOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	results := make(chan string)

	reconciler := controller.ReconcilerFunc(func(ctx context.Context, req controller.Request) (controller.Result, error) {
		greeting, ok := greetings.Get(req.Key) // a copy from the cache
		if !ok {
			return controller.Result{}, nil // deleted: the reply goes with it
		}
		reply := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: req.Namespace, Name: req.Name + "-reply"}}
		op, err := controller.CreateOrUpdate(ctx, client, reply, func() error {
			reply.Data = map[string]string{"reply": greeting.Data["greeting"] + ", world"}
			return controller.SetControllerReference(greeting, reply)
		})
		select {
		case results <- fmt.Sprintf("%s: %s %s (%s)", req, op, reply.Name, reply.Data["reply"]):
		case <-ctx.Done():
		}
		return controller.Result{}, err
	})
	c, _ := controller.New("greeter", reconciler, controller.Options{})
	_ = c.Watch(controller.Kind(greetings.ObjectInformer(), controller.EnqueueObject(),
		controller.LabelSelector(kube.SelectorFromSet(map[string]string{"app": "greeter"}))))

	var wg sync.WaitGroup
	wg.Go(func() { _ = greetings.Start(ctx) })
	wg.Go(func() { _ = c.Start(ctx) })

	hello := &kube.ConfigMap{
		ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "hello", Labels: map[string]string{"app": "greeter"}},
		Data:       map[string]string{"greeting": "hello"},
	}
	_ = client.Create(ctx, hello)
	fmt.Println(<-results)
	_ = client.Patch(ctx, hello, kube.Patch{Type: kube.MergePatch, Data: []byte(`{"data":{"greeting":"goodbye"}}`)})
	fmt.Println(<-results)

	cancel()
	wg.Wait()
	// Output:
	// default/hello: created hello-reply (hello, world)
	// default/hello: updated hello-reply (goodbye, world)
}
