// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"errors"
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
	const limit = 1 << 20
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
					!strings.Contains(nse.LastError.Error(), "ConfigMap") || !strings.Contains(nse.LastError.Error(), "passed 1 MiB (read ") {
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
