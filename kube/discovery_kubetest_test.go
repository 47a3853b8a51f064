// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// TestGetDuringSlowDiscovery: on kubetest (aggregated discovery), while a
// lookup of a kind nobody serves refreshes discovery and the server takes
// an hour to answer, a Get of a known kind is served at once and a second
// unknown kind gives up at its own deadline.
func TestGetDuringSlowDiscovery(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := kubetest.New(kubetest.Options{})
		defer srv.Close()
		c, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		cm := &kube.Unstructured{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
		if err := c.Get(ctx, kube.Key{Namespace: "kube-system", Name: "absent"}, cm); !kube.IsNotFound(err) {
			t.Fatalf("first Get = %v, want NotFound", err)
		}
		srv.Delay(func(ri kubetest.RequestInfo) bool { return ri.Path == "/api" || ri.Path == "/apis" }, time.Hour)
		go c.Mapping(context.Background(), kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"})
		synctest.Wait()

		start := time.Now()
		get, cancel := context.WithTimeout(ctx, time.Second)
		err = c.Get(get, kube.Key{Namespace: "kube-system", Name: "absent"}, cm)
		cancel()
		if !kube.IsNotFound(err) || time.Since(start) != 0 {
			t.Errorf("Get of a known kind during a slow discovery = %v after %v, want NotFound at once", err, time.Since(start))
		}
		lookup, cancel := context.WithTimeout(ctx, time.Second)
		_, err = c.Mapping(lookup, kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"})
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("Mapping of another unknown kind = %v after %v, want its deadline after 1s", err, time.Since(start))
		}
	})
}
