// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// TestWrongServerIsNotNotFound: an informer and a cache whose client
// points at a server that answers plain 404s (the wrong URL) report
// that, a kube.NotKubernetesError, never a NotFound: the informer's
// WatchErrorHandler hears it and it does not sync; the cache's Get fails
// with it rather than reading the object as absent.
func TestWrongServerIsNotNotFound(t *testing.T) {
	s := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(s.Close)
	client, err := kube.NewClient(&kube.Config{Host: s.URL}, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan error, 100)
	handler := func(_ kube.GroupVersionKind, err error) {
		select {
		case heard <- err:
		default:
		}
	}

	t.Run("informer", func(t *testing.T) {
		inf, err := NewInformer[kube.ConfigMap](client, InformerOptions{WatchErrorHandler: handler})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- inf.Start(ctx) }()
		err = <-heard
		if !kube.IsNotKubernetes(err) || kube.IsNotFound(err) {
			t.Errorf("informer's list error = %v, want a NotKubernetesError", err)
		}
		short, stop := context.WithTimeout(t.Context(), 50*time.Millisecond)
		defer stop()
		if err := inf.WaitForSync(short); err == nil {
			t.Errorf("WaitForSync = nil, want it to time out: nothing was listed")
		}
		cancel()
		<-done
	})

	t.Run("cache", func(t *testing.T) {
		c, err := New(client, Options{WatchErrorHandler: handler})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error)
		go func() { done <- c.Start(ctx) }()
		defer func() { cancel(); <-done }()
		short, stop := context.WithTimeout(t.Context(), time.Second)
		defer stop()
		err = c.Get(short, kube.Key{Namespace: "ns", Name: "a"}, &kube.ConfigMap{})
		if err == nil || kube.IsNotFound(err) || kube.IgnoreNotFound(err) == nil {
			t.Errorf("cache Get on the wrong server = %v, want an error that is not NotFound", err)
		}
		t.Logf("cache Get = %v", err)
	})
}
