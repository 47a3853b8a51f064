// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// warnings is a slog handler that keeps the messages of the records at
// Warn and above.
type warnings struct {
	mu   *sync.Mutex
	msgs *[]string
}

func (w warnings) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (w warnings) Handle(_ context.Context, r slog.Record) error {
	msg := r.Message
	r.Attrs(func(a slog.Attr) bool {
		msg += " " + a.String()
		return true
	})
	w.mu.Lock()
	*w.msgs = append(*w.msgs, msg)
	w.mu.Unlock()
	return nil
}
func (w warnings) WithAttrs([]slog.Attr) slog.Handler { return w }
func (w warnings) WithGroup(string) slog.Handler      { return w }

// TestShardStopsQuiet moves shards while their first reads are in flight
// (every read of the kind takes a second): shards removed, shards added
// that restart the fallback mode's reader. The informer's own stops are
// no failures: it logs no warning.
func TestShardStopsQuiet(t *testing.T) { onShardServers(t, testShardStopsQuiet) }

func testShardStopsQuiet(t *testing.T, srvOpts kubetest.Options, opts InformerOptions) {
	srv, c := newServer(t, srvOpts)
	for n := range 40 {
		createCM(t, srv, "default", fmt.Sprint("cm", n), nil)
	}
	w := warnings{mu: &sync.Mutex{}, msgs: new([]string)}
	opts.Sharded = true
	opts.Logger = slog.New(w)
	inf := newCMInformer(t, c, opts) // no recorder: removed shards leave no trace with handlers
	startInformer(t, inf)
	waitSynced(t, inf)
	srv.Delay(func(ri kubetest.RequestInfo) bool {
		return ri.Resource == "configmaps" && (ri.Verb == "list" || ri.Verb == "watch")
	}, time.Second)
	for round := range 3 {
		for n := range 16 {
			if err := inf.AddShard(sixteenth(n)); err != nil {
				t.Fatal(err)
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(time.Duration(round) * 500 * time.Millisecond)
		for n := range 16 {
			if n%2 == round%2 {
				if _, err := inf.RemoveShard(sixteenth(n)); err != nil {
					t.Fatal(err)
				}
			}
		}
		time.Sleep(5 * time.Second)
		for n := range 16 {
			_, _ = inf.RemoveShard(sixteenth(n))
		}
	}
	time.Sleep(10 * time.Second)
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, m := range *w.msgs {
		t.Errorf("warning logged: %s", m)
	}
}
