// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// watchErrors records what a WatchErrorHandler is told.
type watchErrors struct {
	mu   sync.Mutex
	errs []error
	kind kube.GroupVersionKind
}

func (w *watchErrors) handle(kind kube.GroupVersionKind, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.kind = kind
	w.errs = append(w.errs, err)
}

func (w *watchErrors) codes() []int32 {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []int32
	for _, err := range w.errs {
		se, _ := kube.AsStatusError(err)
		var code int32
		if se != nil {
			code = se.Status.Code
		}
		out = append(out, code)
	}
	return out
}

// TestWatchErrorHandler: the cache's WatchErrorHandler hears every
// failure of an informer's reads, with its kind: two lists forbidden,
// then a watch answered 410; the informer syncs and follows on, as
// without a handler.
func TestWatchErrorHandler(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, client := newServer(t, kubetest.Options{})
		seedCache(t, srv)
		var we watchErrors
		c, err := New(client, Options{WatchErrorHandler: we.handle})
		if err != nil {
			t.Fatal(err)
		}
		srv.FailNext(2, isList, kube.NewStatusError(403, kube.ReasonForbidden, "configmaps is forbidden"))
		srv.FailNext(1, isWatch, expired)
		startCache(t, c)
		if _, err := c.GetInformer(context.Background(), &kube.ConfigMap{}); err != nil {
			t.Fatal(err)
		}
		if err := c.WaitForSync(context.Background()); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := we.codes(); len(got) != 3 || got[0] != 403 || got[1] != 403 || got[2] != 410 {
			t.Errorf("WatchErrorHandler told of codes %v, want [403 403 410]", got)
		}
		if want := (kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}); we.kind != want {
			t.Errorf("WatchErrorHandler told of kind %v, want %v", we.kind, want)
		}
		var list kube.List[kube.ConfigMap]
		if err := c.List(context.Background(), &list, kube.ListOptions{}); err != nil || len(list.Items) != 6 {
			t.Errorf("List after the failures = %d items, %v; want 6", len(list.Items), err)
		}
	})
}

// A program told of its informers' read failures: here the server
// refuses the first list of ConfigMaps; the informer retries and syncs.
func ExampleWatchErrorHandler() {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	srv.FailNext(1, isList, kube.NewStatusError(403, kube.ReasonForbidden, `configmaps is forbidden: User "me" cannot list resource "configmaps"`))
	client, err := kube.NewClient(srv.Config(), kube.ClientOptions{})
	if err != nil {
		panic(err)
	}
	c, err := New(client, Options{
		WatchErrorHandler: func(kind kube.GroupVersionKind, err error) {
			fmt.Printf("%s: %v\n", kind.Kind, err)
		},
	})
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Start(ctx) }()
	if _, err := c.GetInformer(ctx, &kube.ConfigMap{}); err != nil {
		panic(err)
	}
	if err := c.WaitForSync(ctx); err != nil {
		panic(err)
	}
	fmt.Println("synced")
	cancel()
	<-done
	// Output:
	// ConfigMap: list ConfigMap: configmaps is forbidden: User "me" cannot list resource "configmaps"
	// synced
}
