// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"context"
	"fmt"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// Widget is a type of your own: embed the metadata, declare only the fields
// you need, and state the kind once.
type Widget struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	Data            map[string]string `json:"data,omitempty"`
}

func (*Widget) GroupVersionKind() kube.GroupVersionKind {
	return kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
}

func Example() {
	srv := kubetest.New(kubetest.Options{}) // or kube.LoadConfig for a real cluster
	defer srv.Close()
	c, err := kube.NewClient(srv.Config(), kube.ClientOptions{FieldManager: "example"})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()

	w := &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "hello"}, Data: map[string]string{"greeting": "hi"}}
	if err := c.Create(ctx, w); err != nil {
		panic(err)
	}
	err = c.Create(ctx, &Widget{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: "hello"}})
	fmt.Println("create again:", kube.IsAlreadyExists(err))

	var list kube.List[Widget]
	if err := c.List(ctx, &list, kube.ListOptions{Namespace: "default"}); err != nil {
		panic(err)
	}
	for _, item := range list.Items {
		fmt.Println(item.Name, item.Data["greeting"])
	}
	// Output:
	// create again: true
	// hello hi
}
