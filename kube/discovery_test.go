// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// slowGroup is a server whose discovery of slow.example/v1 answers only
// when released (or when its client gives up); the rest is legacyDiscovery.
type slowGroup struct {
	release chan struct{}
	mu      sync.Mutex
	asked   int       // requests for /apis/slow.example/v1
	gaveUp  time.Time // when the last of them was given up by its client
}

func (s *slowGroup) handle(r *http.Request) (int, http.Header, string) {
	if code, h, body, ok := legacyDiscovery(r); ok {
		return code, h, body
	}
	switch r.URL.Path {
	case "/apis/slow.example/v1":
		s.mu.Lock()
		s.asked++
		s.mu.Unlock()
		select {
		case <-s.release:
			return 200, nil, `{"kind":"APIResourceList","groupVersion":"slow.example/v1","resources":[{"name":"widgets","namespaced":true,"kind":"Widget"}]}`
		case <-r.Context().Done():
			s.mu.Lock()
			s.gaveUp = time.Now()
			s.mu.Unlock()
			return 0, nil, ""
		}
	case "/api/v1/namespaces/ns/configmaps/a":
		return 200, nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"}}`
	}
	return 404, nil, "404 page not found"
}

func (s *slowGroup) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.asked
}

var (
	slowWidget = GroupVersionKind{Group: "slow.example", Version: "v1", Kind: "Widget"}
	slowGadget = GroupVersionKind{Group: "slow.example", Version: "v1", Kind: "Gadget"}
	elsewhere  = GroupVersionKind{Group: "other.example", Version: "v1", Kind: "Thing"}
)

// TestDiscoveryNeverBlocksKnownKinds: while one caller's discovery of a
// group hangs, a Get of a kind already known is served at once, and other
// lookups wait no longer than their own deadline.
func TestDiscoveryNeverBlocksKnownKinds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &slowGroup{release: make(chan struct{})}
		c := newFakeClient(t, &fakeServer{handle: s.handle}, ClientOptions{})
		var cm ConfigMap
		if err := c.Get(t.Context(), Key{Namespace: "ns", Name: "a"}, &cm); err != nil {
			t.Fatal(err)
		}

		// A caller whose discovery of slow.example takes up to 6 s.
		slowDone := make(chan error, 1)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
			defer cancel()
			_, err := c.Mapping(ctx, slowWidget)
			slowDone <- err
		}()
		synctest.Wait()

		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		err := c.Get(ctx, Key{Namespace: "ns", Name: "a"}, &cm)
		cancel()
		if err != nil || time.Since(start) != 0 {
			t.Errorf("Get of a known kind during a slow discovery = %v after %v, want success at once", err, time.Since(start))
		}

		// A kind of the slow group waits for the same discovery, until
		// its own deadline.
		start = time.Now()
		ctx, cancel = context.WithTimeout(t.Context(), time.Second)
		_, err = c.Mapping(ctx, slowGadget)
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) != time.Second {
			t.Errorf("Mapping(%v) during a slow discovery = %v after %v, want its own deadline after 1s", slowGadget, err, time.Since(start))
		}

		// Another group is discovered on its own.
		start = time.Now()
		_, err = c.Mapping(t.Context(), elsewhere)
		var nk *NoKindMatchError
		if !errors.As(err, &nk) || time.Since(start) != 0 {
			t.Errorf("Mapping(%v) during a slow discovery = %v after %v, want NoKindMatchError at once", elsewhere, err, time.Since(start))
		}

		close(s.release)
		if err := <-slowDone; err != nil {
			t.Errorf("the slow discovery, released: %v", err)
		}
		if n := s.requests(); n != 1 {
			t.Errorf("%d requests for slow.example/v1, want 1 shared by both lookups", n)
		}
	})
}

// TestDiscoveryOutlivesTheCallerThatStartedIt: concurrent misses share one
// refresh, which goes on when the caller that started it gives up.
func TestDiscoveryOutlivesTheCallerThatStartedIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &slowGroup{release: make(chan struct{})}
		c := newFakeClient(t, &fakeServer{handle: s.handle}, ClientOptions{})
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if _, err := c.Mapping(ctx, slowWidget); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Mapping with a 1s deadline = %v, want the deadline", err)
		}
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				if m, err := c.Mapping(t.Context(), slowWidget); err != nil || m.Resource != "widgets" {
					t.Errorf("Mapping(%v) = %+v, %v; want widgets", slowWidget, m, err)
				}
			})
		}
		synctest.Wait()
		close(s.release)
		wg.Wait()
		if n := s.requests(); n != 1 {
			t.Errorf("%d requests for slow.example/v1, want 1 shared by all six lookups", n)
		}
	})
}

// TestDiscoveryRefreshIsBounded: a refresh nobody waits for any more
// still ends, at its own bound.
func TestDiscoveryRefreshIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &slowGroup{release: make(chan struct{})} // never released
		c := newFakeClient(t, &fakeServer{handle: s.handle}, ClientOptions{})
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		start := time.Now()
		c.Mapping(ctx, slowWidget)
		time.Sleep(time.Hour)
		s.mu.Lock()
		gaveUp := s.gaveUp
		s.mu.Unlock()
		if got := gaveUp.Sub(start); gaveUp.IsZero() || got > discoveryTimeout {
			t.Errorf("the abandoned refresh lasted %v, want at most %v", got, discoveryTimeout)
		}
		if _, err := c.Mapping(t.Context(), elsewhere); err == nil {
			t.Errorf("Mapping(%v) = nil error", elsewhere)
		}
	})
}
