// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"io"
	"maps"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// sixteenth returns the n-th of 16 equal shards of the hash space.
func sixteenth(n int) kube.ShardSelector {
	return kube.ShardSelector{Ranges: []kube.HashRange{{Start: uint64(n) << 60, End: uint64(n+1) << 60}}}
}

// countingTransport counts the bytes of the response bodies it passes.
type countingTransport struct {
	next http.RoundTripper
	read atomic.Int64
}

func (c *countingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := c.next.RoundTrip(req)
	if err == nil {
		resp.Body = countingBody{ReadCloser: resp.Body, n: &c.read}
	}
	return resp, err
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n.Add(int64(n))
	return n, err
}

// countingClient returns a client of srv whose bytes read count.
func countingClient(t *testing.T, srv *kubetest.Server) (*kube.Client, *countingTransport) {
	t.Helper()
	cfg := srv.Config()
	cfg.QPS = -1
	ct := &countingTransport{next: srv.Transport()}
	cfg.Transport = ct
	c, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return c, ct
}

// TestShardFallbackReadsOnce adds 8 shards of 16 at once to a sharded
// informer on a server that ignores the selector: the informer reads
// about what an unsharded one reads (not once per shard), holds exactly
// the shards' objects, and receives each later event once (not once per
// shard).
func TestShardFallbackReadsOnce(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := newBareServer(t, kubetest.Options{DisableShardedListAndWatch: true})
				for n := range 200 {
					createCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), nil)
				}
				c, ct := countingClient(t, srv)
				startSynced(t, c, mode.opts)
				whole := ct.read.Load()

				opts := mode.opts
				opts.Sharded = true
				inf, rec := startSynced(t, c, opts)
				before := ct.read.Load()
				var sels []kube.ShardSelector
				want := map[string]string{}
				for n := 0; n < 16; n += 2 {
					sels = append(sels, sixteenth(n))
					maps.Copy(want, shardState(t, srv, sixteenth(n)))
				}
				for _, sel := range sels {
					if err := inf.AddShard(sel); err != nil {
						t.Fatal(err)
					}
				}
				for _, sel := range sels {
					if err := inf.WaitForShard(context.Background(), sel); err != nil {
						t.Fatal(err)
					}
				}
				checkHeld(t, inf, rec, "8 shards added", want)
				if rec.initialAdds != len(want) || rec.adds != len(want) {
					t.Errorf("adds = %d (%d initial), want %d (all initial)", rec.adds, rec.initialAdds, len(want))
				}
				t.Logf("8 shards of 16 read %d bytes; an unsharded informer %d", ct.read.Load()-before, whole)
				if got := ct.read.Load() - before; got > 2*whole {
					t.Errorf("8 shards read %d bytes, want about one read of the kind (%d bytes), at most twice that", got, whole)
				}

				st := inf.stats()
				for n := range 200 {
					updateCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), map[string]string{"n": "1"})
				}
				synctest.Wait()
				after := inf.stats()
				if got := (after.Events + after.ShardDropped) - (st.Events + st.ShardDropped); got != 200 {
					t.Errorf("200 changes came as %d watch events, want 200: each once", got)
				}
				if got := after.ShardDropped - st.ShardDropped; got != uint64(200-len(want)) {
					t.Errorf("ShardDropped grew by %d, want %d (the changes outside the shards)", got, 200-len(want))
				}
				want = map[string]string{}
				for _, sel := range sels {
					maps.Copy(want, shardState(t, srv, sel))
				}
				checkHeld(t, inf, rec, "after changes", want)
			})
		})
	}
}

// TestShardFallbackChangesDuringRead adds and removes shards while a
// fallback read is held up: the shard removed reaches no handler from
// its removal on and leaves nothing in the store; the shards added are
// synced by the read that follows, and their objects arrive as initial
// adds; the shards held all along hear nothing but their changes.
func TestShardFallbackChangesDuringRead(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, c := newServer(t, kubetest.Options{DisableShardedListAndWatch: true})
				for n := range 80 {
					createCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), nil)
				}
				opts := mode.opts
				opts.Sharded = true
				inf, rec := startSynced(t, c, opts)
				a, b, c1, d := sixteenth(0), sixteenth(5), sixteenth(10), sixteenth(15)
				addShard(t, inf, a)
				addShard(t, inf, b)
				checkHeld(t, inf, rec, "A and B", union(shardState(t, srv, a), shardState(t, srv, b)))
				adds, deletes := rec.adds, rec.deletes

				// Every read is held up for a minute from now.
				undo := srv.Delay(func(ri kubetest.RequestInfo) bool {
					return ri.Resource == "configmaps" && (ri.Verb == "list" || ri.Verb == "watch")
				}, time.Minute)
				srv.CutWatches()
				if err := inf.AddShard(c1); err != nil {
					t.Fatal(err)
				}
				time.Sleep(10 * time.Second) // past the settling; the read is held up
				keysA, err := inf.ShardKeys(a)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := inf.RemoveShard(a); err != nil {
					t.Fatal(err)
				}
				if err := inf.AddShard(d); err != nil {
					t.Fatal(err)
				}
				for n := range 80 {
					if n%4 == 0 {
						updateCM(t, srv, namespaces[n%2], fmt.Sprintf("cm%d", n), map[string]string{"n": "1"})
					}
				}
				undo()
				for _, sel := range []kube.ShardSelector{c1, d} {
					if err := inf.WaitForShard(context.Background(), sel); err != nil {
						t.Fatal(err)
					}
				}
				synctest.Wait()
				if rec.deletes != deletes {
					t.Errorf("%d deletions told, want none", rec.deletes-deletes)
				}
				// The handler drops A's share itself, as documented.
				rec.mu.Lock()
				for _, k := range keysA {
					delete(rec.state, k.String())
				}
				rec.mu.Unlock()
				want := union(shardState(t, srv, b), shardState(t, srv, c1), shardState(t, srv, d))
				checkHeld(t, inf, rec, "B, C and D", want)
				if got, wantAdds := rec.adds-adds, len(shardState(t, srv, c1))+len(shardState(t, srv, d)); got != wantAdds {
					t.Errorf("%d adds, want %d: the objects of C and D", got, wantAdds)
				}
			})
		})
	}
}
