// SPDX-License-Identifier: Apache-2.0

package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

func isConfigMaps(verb string) func(kubetest.RequestInfo) bool {
	return func(ri kubetest.RequestInfo) bool { return ri.Verb == verb && ri.Resource == "configmaps" }
}

// TestHeaderDeadline: with Config.Timeout zero (the default), a request
// that is not a watch gives up when its answer's headers have not come
// within kube.HeaderTimeout, with an error that says so; an answer that
// comes a little after the server's own 60 s request timeout is still
// read, a list whose body streams for longer than the deadline is read
// whole, and a watch waits for as long as its context.
func TestHeaderDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := kubetest.New(kubetest.Options{})
		defer srv.Close()
		c, err := srv.Client(kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		for n := range 100 {
			cm := &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm%d", n)}}
			if err := c.Create(ctx, cm); err != nil {
				t.Fatal(err)
			}
		}
		key := kube.Key{Namespace: "default", Name: "cm1"}

		undo := srv.Delay(isConfigMaps("get"), 24*time.Hour)
		start := time.Now()
		err = c.Get(ctx, key, &kube.ConfigMap{})
		if took := time.Since(start); err == nil || !strings.Contains(err.Error(), "kube.HeaderTimeout") || took != kube.HeaderTimeout {
			t.Errorf("Get from a server that never answers = %v after %v, want an error naming kube.HeaderTimeout after %v", err, took, kube.HeaderTimeout)
		}
		undo()

		undo = srv.Delay(isConfigMaps("get"), 65*time.Second)
		if err := c.Get(ctx, key, &kube.ConfigMap{}); err != nil {
			t.Errorf("Get answered after 65s = %v, want the object", err)
		}
		undo()

		start = time.Now()
		_, err = c.ListEach(ctx, (&kube.ConfigMap{}).GroupVersionKind(), kube.ListOptions{Namespace: "default"},
			func() kube.Object { return &kube.ConfigMap{} }, func(kube.Object, int) error {
				time.Sleep(time.Second) // the body takes 100 s to read
				return nil
			})
		if took := time.Since(start); err != nil || took < 100*time.Second {
			t.Errorf("ListEach read for %v = %v, want the whole list after 100s", took, err)
		}

		undo = srv.Delay(isConfigMaps("watch"), 24*time.Hour)
		defer undo()
		wctx, cancel := context.WithTimeout(ctx, 2*time.Hour)
		defer cancel()
		start = time.Now()
		w, err := c.Watch(wctx, (&kube.ConfigMap{}).GroupVersionKind(), kube.ListOptions{})
		if err == nil {
			w.Stop()
		}
		if took := time.Since(start); took != 2*time.Hour {
			t.Errorf("Watch on a server that never answers gave up after %v (%v), want its context's 2h", took, err)
		}
	})
}

// TestHeaderDeadlineYieldsToTimeout: a client with Config.Timeout waits
// as long as that, which it chose, and no longer.
func TestHeaderDeadlineYieldsToTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := kubetest.New(kubetest.Options{})
		defer srv.Close()
		cfg := srv.Config()
		cfg.Timeout, cfg.QPS = 5*time.Minute, -1
		c, err := kube.NewClient(cfg, kube.ClientOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "x"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
			t.Fatal(err) // discovery done
		}
		srv.Delay(isConfigMaps("get"), 4*time.Minute)
		if err := c.Get(t.Context(), kube.Key{Namespace: "default", Name: "x"}, &kube.ConfigMap{}); !kube.IsNotFound(err) {
			t.Errorf("Get answered after 4m with Config.Timeout 5m = %v, want NotFound", err)
		}
	})
}
