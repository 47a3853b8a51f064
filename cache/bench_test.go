// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// counter is a handler that counts events and signals when it has seen
// want of them.
type counter struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (c *counter) saw() {
	if c.n.Add(1) == c.want {
		close(c.done)
	}
}
func (c *counter) OnAdd(kube.Object, bool)           {}
func (c *counter) OnUpdate(_, _ kube.Object, _ bool) { c.saw() }
func (c *counter) OnDelete(kube.Object, bool)        {}
func newCounter(want int) *counter                   { return &counter{want: int64(want), done: make(chan struct{})} }
func (c *counter) wait(b *testing.B, d time.Duration) {
	select {
	case <-c.done:
	case <-time.After(d):
		b.Fatalf("handler saw %d of %d events", c.n.Load(), c.want)
	}
}

// replayTransport answers the first plain watch (one that resumes from a
// resourceVersion) with a canned stream, and passes every other request
// on: the informer lists from the server, then reads events as fast as it
// can, with no server work in the way.
type replayTransport struct {
	next   http.RoundTripper
	stream []byte
	used   atomic.Bool
}

func (r *replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	if q.Get("watch") != "true" || q.Get("resourceVersion") == "" || r.used.Swap(true) {
		return r.next.RoundTrip(req)
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(r.stream)), Request: req}, nil
}

// BenchmarkEventsFiveHandlers measures events per second through an
// informer with five handlers: reading a watch stream (1 KiB ConfigMaps
// with managedFields), decoding, storing, and delivering to every handler.
func BenchmarkEventsFiveHandlers(b *testing.B) {
	srv := kubetest.New(kubetest.Options{})
	defer srv.Close()
	seedConfigMaps(b, srv, 100)
	var stream bytes.Buffer
	pad := strings.Repeat("x", 1000)
	for n := range b.N {
		fmt.Fprintf(&stream, `{"type":"MODIFIED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%06d","namespace":"default","uid":"5708e7b9-af1c-489e-afe6-%012d","resourceVersion":"%d","creationTimestamp":"2026-11-21T04:48:10Z","managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:payload":{}}}}]},"data":{"payload":"%d%s"}}}`+"\n",
			n%100, n%100, 1000000+n, n, pad)
	}
	cfg := srv.Config()
	cfg.QPS = -1
	cfg.Transport = &replayTransport{next: srv.Transport(), stream: stream.Bytes()}
	client, err := kube.NewClient(cfg, kube.ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	inf, err := NewInformer[kube.ConfigMap](client, InformerOptions{Transform: DropManagedFields})
	if err != nil {
		b.Fatal(err)
	}
	counters := make([]*counter, 5)
	for n := range counters {
		counters[n] = newCounter(b.N)
		if _, err := inf.ObjectInformer().AddEventHandler(counters[n]); err != nil {
			b.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	b.ResetTimer()
	start := time.Now()
	go func() { defer close(done); _ = inf.Start(ctx) }()
	defer func() { cancel(); <-done }()
	for _, c := range counters {
		c.wait(b, time.Minute)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkFanoutFiveHandlers measures the informer's own share of an
// event: decode, store, queue to five handlers and deliver.
func BenchmarkFanoutFiveHandlers(b *testing.B) {
	_, client := newServer(b, kubetest.Options{})
	inf, err := NewInformer[kube.ConfigMap](client, InformerOptions{Transform: DropManagedFields})
	if err != nil {
		b.Fatal(err)
	}
	i := inf.inf
	counters := make([]*counter, 5)
	for n := range counters {
		counters[n] = newCounter(b.N)
		if _, err := i.AddEventHandler(counters[n]); err != nil {
			b.Fatal(err)
		}
	}
	// Run the deliveries as Start would, without a reflector.
	i.hub.Lock()
	i.hub.startLocked()
	i.hub.Unlock()
	defer i.hub.stop()
	events := make([][]byte, 100)
	for n := range events {
		events[n] = fmt.Appendf(nil, `{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%06d","namespace":"default","uid":"5708e7b9-af1c-489e-afe6-%012d","resourceVersion":"%%d","creationTimestamp":"2026-11-21T04:48:10Z","managedFields":[{"manager":"curl","operation":"Update","apiVersion":"v1","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}}}}]},"data":{"k":"%s"}}`,
			n, n, strings.Repeat("v", 1000))
	}
	lw, sink := listWatch{src: &i.source}, nsSink{w: i.hub, run: &nsRun{}}
	for n := range events { // store a first version, so that events are updates
		obj, size, err := lw.decode(&kube.WatchEvent{Type: kube.Modified, Object: fmt.Appendf(nil, string(events[n]), 0)})
		if err != nil {
			b.Fatal(err)
		}
		i.store.put(obj, size)
	}
	raws := make([][]byte, b.N)
	for n := range raws {
		raws[n] = fmt.Appendf(nil, string(events[n%len(events)]), n+1)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for n := range b.N {
		obj, size, err := lw.decode(&kube.WatchEvent{Type: kube.Modified, Object: raws[n]})
		if err != nil {
			b.Fatal(err)
		}
		sink.apply(kube.Modified, obj, size)
	}
	for _, c := range counters {
		c.wait(b, time.Minute)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
}

// BenchmarkRead compares a Get that copies with the zero-copy view, and a
// List by index, from a cache of decoded objects and from a compact one.
func BenchmarkRead(b *testing.B) {
	srv, client := newServer(b, kubetest.Options{})
	seedConfigMaps(b, srv, 1000)
	b.Run("decoded", func(b *testing.B) { benchmarkRead(b, client, false) })
	b.Run("compact", func(b *testing.B) { benchmarkRead(b, client, true) })
}

func benchmarkRead(b *testing.B, client *kube.Client, compact bool) {
	c, err := New(client, Options{DefaultTransform: DropManagedFields, Compact: compact})
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = c.Start(ctx) }()
	defer func() { cancel(); <-done }()
	if err := c.IndexField(ctx, &kube.ConfigMap{}, "payload.prefix", func(o kube.Object) []string {
		return []string{o.(*kube.ConfigMap).Data["payload"][:15]}
	}); err != nil {
		b.Fatal(err)
	}
	key := kube.Key{Namespace: "default", Name: "cm-000500"}
	b.Run("Get", func(b *testing.B) {
		var cm kube.ConfigMap
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Get(ctx, key, &cm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Get/others-pending", func(b *testing.B) {
		// A write to another object that the cache has not seen: the
		// read looks its own key up among the pending writes.
		c.writes.add(kube.Written{Kind: kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Key: kube.Key{Namespace: "default", Name: "elsewhere"}, ResourceVersion: "999999999"}, c.recordLimits())
		w, _ := c.writes.pendingObject(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, kube.Key{Namespace: "default", Name: "elsewhere"})
		defer c.writes.dropObject(kube.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, kube.Key{Namespace: "default", Name: "elsewhere"}, w)
		var cm kube.ConfigMap
		b.ReportAllocs()
		for b.Loop() {
			if err := c.Get(ctx, key, &cm); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("View.Get", func(b *testing.B) {
		view, err := View(ctx, c, &kube.ConfigMap{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := view.Get(key); !ok {
				b.Fatal("missing")
			}
		}
	})
	b.Run("List/index", func(b *testing.B) {
		opts := kube.ListOptions{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"payload.prefix": "000000000000050"})}
		b.ReportAllocs()
		for b.Loop() {
			var list kube.List[kube.ConfigMap]
			if err := c.List(ctx, &list, opts); err != nil || len(list.Items) != 10 {
				b.Fatal(len(list.Items), err)
			}
		}
	})
}
