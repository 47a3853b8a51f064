// SPDX-License-Identifier: Apache-2.0

//go:build integration

package integration

import (
	"context"
	"errors"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/cache"
	"github.com/kubeloop/kubeloop/kube"
)

// TestQuietWatchOnRealServer checks on kube-apiserver what the informer's
// bound on a silent watch (its timeoutSeconds and a minute) rests on: a
// watch with bookmarks on a kind that does not change gets a bookmark
// about every minute and ends at its timeoutSeconds, so it is never
// silent past that bound; and an informer on it syncs and reports no
// failure meanwhile (no watch closed for silence, none reopened).
func TestQuietWatchOnRealServer(t *testing.T) {
	harnessFromEnv(t)
	admin, _ := loadConfigs(t)
	c, err := kube.NewClient(admin, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	ns := "quiet-watch-" + randomName()
	if err := c.Create(ctx, &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = c.Delete(context.Background(), &kube.Namespace{ObjectMeta: kube.ObjectMeta{Name: ns}})
	})
	if err := c.Create(ctx, &kube.ConfigMap{ObjectMeta: kube.ObjectMeta{Namespace: ns, Name: "only"}}); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var failures []error
	inf, err := cache.NewInformer[kube.ConfigMap](c, cache.InformerOptions{Namespaces: []string{ns},
		WatchErrorHandler: func(_ kube.GroupVersionKind, err error) {
			mu.Lock()
			failures = append(failures, err)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	ictx, icancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- inf.Start(ictx) }()
	defer func() { icancel(); <-done }()
	if err := inf.WaitForSync(ctx); err != nil {
		t.Fatalf("informer on the real server: %v", err)
	}

	const timeout = 130
	var list kube.List[kube.ConfigMap]
	if err := c.List(ctx, &list, kube.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, (&kube.ConfigMap{}).GroupVersionKind(), kube.ListOptions{Namespace: ns,
		ResourceVersion: list.ResourceVersion, AllowWatchBookmarks: true, TimeoutSeconds: timeout})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	start := time.Now()
	last, longest, bookmarks := start, time.Duration(0), 0
	for {
		ev, err := w.Next()
		now := time.Now()
		longest = max(longest, now.Sub(last))
		last = now
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("quiet watch after %v: %v", now.Sub(start), err)
		}
		if ev.Type == kube.Bookmark {
			bookmarks++
		}
	}
	took := time.Since(start)
	t.Logf("quiet watch of timeoutSeconds=%d: %d bookmarks, longest silence %v, ended after %v", timeout, bookmarks, longest.Round(time.Millisecond), took.Round(time.Millisecond))
	// The server's clock starts when it reads the request, before this
	// one's (after the answer's headers): 1.33.13 once ended 25 ms short.
	if took < (timeout-1)*time.Second || took > (timeout+5)*time.Second {
		t.Errorf("the server ended a watch of timeoutSeconds=%d after %v, want at its timeout", timeout, took)
	}
	if longest > 70*time.Second || bookmarks < 2 {
		t.Errorf("longest silence %v with %d bookmarks, want a bookmark about every minute", longest, bookmarks)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(failures) != 0 {
		t.Errorf("the informer reported failures on a quiet kind: %v", failures)
	}
	if st := inf.Stats(); st.WatchRequests != 1 {
		t.Errorf("the informer opened %d watches in %v, want 1 (none reopened)", st.WatchRequests, took)
	}
}
