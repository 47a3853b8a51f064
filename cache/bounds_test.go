// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// The bounds of what an informer waits for and reads from a server that
// misbehaves: a state without end, a silent watch, a list never answered.

// largestTransport records the most read of one answer body through it.
type largestTransport struct {
	next    http.RoundTripper
	mu      sync.Mutex
	largest int64
}

func (t *largestTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(r)
	if err == nil {
		resp.Body = &largestBody{ReadCloser: resp.Body, t: t}
	}
	return resp, err
}

func (t *largestTransport) max() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.largest
}

type largestBody struct {
	io.ReadCloser
	t *largestTransport
	n int64
}

func (b *largestBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	b.t.mu.Lock()
	b.t.largest = max(b.t.largest, b.n)
	b.t.mu.Unlock()
	return n, err
}

// TestEndlessStateIsBounded: a server whose list (or WatchList's initial
// events) never ends does not make the informer read without end: each
// attempt stops at the client's bound (kube.ClientOptions.MaxListSize)
// with an error naming the kind, the informer tries again after its
// backoff, and syncs once the server answers.
func TestEndlessStateIsBounded(t *testing.T) {
	const limit = 256 << 10 // any bound: each try reads it, under -race
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newBareServer(t, kubetest.Options{})
				createCM(t, srv, "default", "real", nil)
				ct := &largestTransport{next: srv.Transport()}
				cfg := srv.Config()
				cfg.Transport, cfg.QPS = ct, -1
				c, err := kube.NewClient(cfg, kube.ClientOptions{MaxListSize: limit})
				if err != nil {
					t.Fatal(err)
				}
				undo := srv.EndlessLists(nil)
				var mu sync.Mutex
				var failures []error
				opts := mode.opts
				opts.PageSize = 0
				opts.WatchErrorHandler = func(_ kube.GroupVersionKind, err error) {
					mu.Lock()
					failures = append(failures, err)
					mu.Unlock()
				}
				inf := newCMInformer(t, c, opts)
				startInformer(t, inf)
				time.Sleep(time.Minute)
				synctest.Wait()
				ctx, cancel := context.WithCancel(context.Background())
				cancel()
				err = inf.WaitForSync(ctx)
				var nse *NotSyncedError
				if !errors.As(err, &nse) || !errors.Is(nse.LastError, kube.ErrListTooLarge) ||
					!strings.Contains(nse.LastError.Error(), "ConfigMap") || !strings.Contains(nse.LastError.Error(), "passed 262144 bytes (read ") {
					t.Errorf("WaitForSync on an endless state = %v, want NotSyncedError whose last error is ErrListTooLarge naming ConfigMap and the bytes read", err)
				}
				if n := ct.max(); n > limit+64<<10 {
					t.Errorf("an answer of %d KiB was read, want at most the bound (%d KiB) and a little more", n>>10, limit>>10)
				}
				mu.Lock()
				tries := len(failures)
				mu.Unlock()
				if tries < 3 || tries > 12 {
					t.Errorf("%d failed reads of the state in a minute, want retries spaced by the backoff (3 to 12)", tries)
				}
				undo()
				time.Sleep(time.Minute)
				synctest.Wait()
				if !inf.HasSynced() || inf.stats().Objects != 1 {
					t.Errorf("once the server answers: synced %v with %d objects, want synced with 1", inf.HasSynced(), inf.stats().Objects)
				}
			})
		})
	}
}

// failures collects what an informer's WatchErrorHandler is told.
type failures struct {
	mu   sync.Mutex
	errs []error
}

func (f *failures) handler(_ kube.GroupVersionKind, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, err)
}

func (f *failures) all() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.errs...)
}

// TestSilentWatchIsReopened: a watch the server holds open without a
// word (no event, no bookmark, no end at its timeoutSeconds) is closed
// once it stays silent past its timeoutSeconds (5 to 10 minutes) and a
// minute, and another opened from the last resourceVersion: the change
// the silent watch never told arrives, with no relist.
func TestSilentWatchIsReopened(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				var f failures
				opts := mode.opts
				opts.WatchErrorHandler = f.handler
				inf, rec := syncedInformer(t, srv, c, opts, 3)
				srv.ResetCounts()
				srv.SilenceWatches(nth(1, isWatch))
				srv.CutWatches()
				synctest.Wait()
				createCM(t, srv, "default", "new", nil)
				time.Sleep(5 * time.Minute)
				synctest.Wait()
				if _, ok := storeState(inf)["default/new"]; ok {
					t.Fatalf("the informer saw a change while its watch was silent: the fault did not hold")
				}
				time.Sleep(7 * time.Minute) // 10 minutes and the margin, and the backoff
				synctest.Wait()
				checkConsistent(t, srv, inf, rec)
				if got := srv.Count("list", "configmaps"); got != 0 || inf.stats().Relists != 0 {
					t.Errorf("%d lists, %d relists after a silent watch; want 0, 0 (resume)", got, inf.stats().Relists)
				}
				// The silent watch ends past its timeoutSeconds (5 to 10
				// minutes, at random) and the margin; its successor may
				// itself reach its own timeout before the 12 minutes are
				// up and be followed by a third. More would be a watch
				// reopened for nothing; silent == 1 below rules out a loop.
				if got := srv.Count("watch", "configmaps"); got < 2 || got > 3 {
					t.Errorf("%d watches, want the silent one, then its successor (and at most one after it, at its timeout)", got)
				}
				silent := 0
				for _, err := range f.all() {
					if errors.Is(err, errSilentWatch) {
						silent++
					}
				}
				if silent != 1 {
					t.Errorf("failures reported: %v, want the silent watch once", f.all())
				}
			})
		})
	}
}

// TestQuietWatchIsNotCut: a healthy watch on a kind that does not change
// (the server sends only bookmarks, and ends it at its timeoutSeconds)
// is never closed for silence: in an hour, one watch per timeout and no
// failure.
func TestQuietWatchIsNotCut(t *testing.T) {
	for _, bookmarks := range []time.Duration{time.Minute, 24 * time.Hour} {
		t.Run(fmt.Sprint("bookmarks every ", bookmarks), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{BookmarkInterval: bookmarks})
				var f failures
				syncedInformer(t, srv, c, InformerOptions{WatchErrorHandler: f.handler}, 3)
				srv.ResetCounts()
				time.Sleep(time.Hour)
				synctest.Wait()
				if got := srv.Count("watch", "configmaps"); got < 6 || got > 12 {
					t.Errorf("%d watches in an hour, want one every 5 to 10 minutes", got)
				}
				if errs := f.all(); len(errs) != 0 {
					t.Errorf("failures in an hour of a quiet watch: %v, want none", errs)
				}
			})
		})
	}
}

// TestUnansweredStateRead: with Config.Timeout zero, a list (or a
// WatchList) the server never answers is given up (the list at
// kube.HeaderTimeout, the WatchList when silent past its timeoutSeconds
// and a minute) and tried again: the informer syncs.
func TestUnansweredStateRead(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{})
				createCM(t, srv, "default", "a", nil)
				first, within := nth(1, isList), 2*time.Minute
				if mode.opts.WatchList {
					first, within = nth(1, isWatch), 12*time.Minute
				}
				srv.Delay(first, 24*time.Hour)
				var f failures
				opts := mode.opts
				opts.WatchErrorHandler = f.handler
				inf := newCMInformer(t, c, opts)
				startInformer(t, inf)
				time.Sleep(within)
				synctest.Wait()
				if !inf.HasSynced() || inf.stats().Objects != 1 {
					t.Errorf("after %v on a server that did not answer the first read: synced %v with %d objects, want synced with 1 (failures: %v)",
						within, inf.HasSynced(), inf.stats().Objects, f.all())
				}
				if errs := f.all(); len(errs) != 1 {
					t.Errorf("failures: %v, want the unanswered read once", errs)
				} else if !strings.Contains(errs[0].Error(), "kube.HeaderTimeout") && !errors.Is(errs[0], errSilentWatch) {
					t.Errorf("failure %v, want one naming kube.HeaderTimeout or errSilentWatch", errs[0])
				}
			})
		})
	}
}
