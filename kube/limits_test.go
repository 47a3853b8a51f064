// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
)

// hugeBody is a response body made as it is read: head, then size bytes
// of 'a', then tail. It counts what was read of it.
type hugeBody struct {
	head, tail string
	size       int64
	off        int64 // bytes read so far
	read       *atomic.Int64
}

func (b *hugeBody) Read(p []byte) (int, error) {
	total := int64(len(b.head)) + b.size + int64(len(b.tail))
	if b.off >= total {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && b.off < total {
		switch {
		case b.off < int64(len(b.head)):
			c := copy(p[n:], b.head[b.off:])
			n += c
			b.off += int64(c)
		case b.off < int64(len(b.head))+b.size:
			c := int(min(int64(len(p)-n), int64(len(b.head))+b.size-b.off, int64(len(filler))))
			copy(p[n:], filler[:c])
			n += c
			b.off += int64(c)
		default:
			c := copy(p[n:], b.tail[b.off-int64(len(b.head))-b.size:])
			n += c
			b.off += int64(c)
		}
	}
	b.read.Add(int64(n))
	return n, nil
}

func (b *hugeBody) Close() error { return nil }

var filler = strings.Repeat("a", 64<<10)

// hugeServer answers every read of ConfigMaps with one object holding 512
// MiB of data (named ns/big), made as it is read: a Get, a list whose
// second item is that object, and a watch whose second event is.
type hugeServer struct{ read atomic.Int64 }

const hugeSize = 512 << 20

func (s *hugeServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if code, _, body, ok := legacyDiscovery(r); ok {
		return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	small := `{"metadata":{"name":"small","namespace":"ns"}}`
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big","namespace":"ns"},"data":{"x":"`
	body := &hugeBody{size: hugeSize, read: &s.read}
	switch {
	case r.URL.Query().Get("watch") == "true":
		body.head = `{"type":"ADDED","object":` + small + "}\n" + `{"type":"ADDED","object":` + big
		body.tail = `"}}}` + "\n"
	case strings.HasSuffix(r.URL.Path, "/configmaps"):
		body.head = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[` + small + "," + big
		body.tail = `"}}]}`
	default:
		body.head, body.tail = big, `"}}`
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: body, Request: r}, nil
}

// TestHugeObjectsAreRefused: an object larger than the limit fails the
// read with an error naming it, after reading little more than the limit,
// whichever call reads it. The limit is 1 MiB here, to keep the test
// quick; the default is the same code with another number.
func TestHugeObjectsAreRefused(t *testing.T) {
	const limit = 1 << 20
	reads := []struct {
		name string
		read func(ctx context.Context, c *Client) error
		want string // names the object
	}{
		{"Get", func(ctx context.Context, c *Client) error {
			var cm ConfigMap
			return c.Get(ctx, Key{Namespace: "ns", Name: "big"}, &cm)
		}, "get ConfigMap ns/big"},
		{"List", func(ctx context.Context, c *Client) error {
			var list List[ConfigMap]
			return c.List(ctx, &list, ListOptions{})
		}, "item 1 (ns/big)"},
		{"List of Unstructured", func(ctx context.Context, c *Client) error {
			list := List[Unstructured]{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
			return c.List(ctx, &list, ListOptions{})
		}, "item 1 (ns/big)"},
		{"ListEach", func(ctx context.Context, c *Client) error {
			_, err := c.ListEach(ctx, configMapKind, ListOptions{}, newConfigMap, func(Object, int) error { return nil })
			return err
		}, "item 1 (ns/big)"},
		{"Watch", func(ctx context.Context, c *Client) error {
			w, err := c.Watch(ctx, configMapKind, ListOptions{Namespace: "ns"})
			if err != nil {
				return err
			}
			defer w.Stop()
			for {
				if _, err := w.Next(); err != nil {
					return err
				}
			}
		}, "ns/big"},
	}
	for _, tt := range reads {
		t.Run(tt.name, func(t *testing.T) {
			s := &hugeServer{}
			c, err := NewClient(&Config{Host: "https://huge.invalid", Transport: s, QPS: -1}, ClientOptions{MaxObjectSize: limit})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Mapping(t.Context(), configMapKind); err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			err = tt.read(t.Context(), c)
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrObjectTooLarge) || !strings.Contains(err.Error(), tt.want) ||
				!strings.Contains(err.Error(), fmt.Sprint(limit)) {
				t.Errorf("%s of a %d MiB object = %v, want ErrObjectTooLarge naming %q and the limit", tt.name, hugeSize>>20, err, tt.want)
			}
			t.Logf("%v; read %d KiB, allocated %d KiB", err, s.read.Load()>>10, (after.TotalAlloc-before.TotalAlloc)>>10)
			if n := s.read.Load(); n > 2*limit {
				t.Errorf("%s read %d KiB of the answer, want little more than the limit (%d KiB)", tt.name, n>>10, limit>>10)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > 8*limit {
				t.Errorf("%s allocated %d KiB, want a few times the limit (%d KiB) at most", tt.name, n>>10, limit>>10)
			}
		})
	}
}

func TestDefaultMaxObjectSize(t *testing.T) {
	c := newFakeClient(t, &fakeServer{}, ClientOptions{})
	if got := c.maxObject(); got != DefaultMaxObjectSize {
		t.Errorf("object limit without MaxObjectSize = %d, want DefaultMaxObjectSize (%d)", got, DefaultMaxObjectSize)
	}
	if w := NewWatcher(io.NopCloser(strings.NewReader("")), nil); w.maxObject != DefaultMaxObjectSize {
		t.Errorf("NewWatcher's object limit = %d, want DefaultMaxObjectSize (%d)", w.maxObject, DefaultMaxObjectSize)
	}
}

// TestListAnswerIsBounded: a list answer as a whole is bounded too, since
// List keeps every item; the error says how to read a larger one.
func TestListAnswerIsBounded(t *testing.T) {
	items := strings.Repeat(`{"metadata":{"name":"a","namespace":"ns"}},`, 100)
	f := &fakeServer{handle: func(r *http.Request) (int, http.Header, string) {
		if code, h, b, ok := legacyDiscovery(r); ok {
			return code, h, b
		}
		return 200, nil, `{"items":[` + items + `{}]}`
	}}
	c := newFakeClient(t, f, ClientOptions{})
	r, err := c.listRequest(t.Context(), configMapKind, ListOptions{}, false)
	if err != nil {
		t.Fatal(err)
	}
	var list List[ConfigMap]
	err = c.readList(t.Context(), r, 1000, list.decoding(c.dec.all))
	if !errors.Is(err, ErrListTooLarge) || !strings.Contains(err.Error(), "passed 1000 bytes (read 1000)") || !strings.Contains(err.Error(), "MaxListSize") {
		t.Errorf("readList of a 4 kB list bounded at 1000 bytes = %v, want an error saying how to read it", err)
	}
	if err := c.readList(t.Context(), r, 10000, list.decoding(c.dec.all)); err != nil || len(list.Items) != 101 {
		t.Errorf("readList of a 4 kB list bounded at 10000 bytes = %v, %d items; want 101 items", err, len(list.Items))
	}
}

// endlessBody is an answer without end: head, then item over and over.
// It counts what was read of it.
type endlessBody struct {
	head, item string
	off        int // in head, then in item
	inItems    bool
	read       *atomic.Int64
}

func (b *endlessBody) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		src := b.head
		if b.inItems {
			src = b.item
		}
		c := copy(p[n:], src[b.off:])
		n += c
		b.off += c
		if b.off == len(src) {
			b.off, b.inItems = 0, true
		}
	}
	b.read.Add(int64(n))
	return n, nil
}

func (b *endlessBody) Close() error { return nil }

// endlessServer answers every list of ConfigMaps with a list that never
// ends, and every watch with initial events that never end.
type endlessServer struct{ read atomic.Int64 }

func (s *endlessServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if code, _, body, ok := legacyDiscovery(r); ok {
		return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(body)), Request: r}, nil
	}
	obj := `{"metadata":{"name":"endless","namespace":"ns","resourceVersion":"1"},"data":{"x":"` + strings.Repeat("y", 1000) + `"}}`
	body := &endlessBody{read: &s.read}
	if r.URL.Query().Get("watch") == "true" {
		body.item = `{"type":"ADDED","object":` + obj + "}\n"
	} else {
		body.head, body.item = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"1"},"items":[`+obj, ","+obj
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Body: body, Request: r}, nil
}

// TestEndlessListsAreRefused: a list whose answer never ends fails with
// an error naming the kind and the bytes read, having read little more
// than the bound, whichever call reads it; so do the initial events of a
// WatchList, which a cache keeps as it keeps a list. A plain watch has no
// such bound: it is read event by event and kept by no one.
func TestEndlessListsAreRefused(t *testing.T) {
	const limit = 1 << 20
	reads := []struct {
		name string
		read func(ctx context.Context, c *Client) error
		want string
	}{
		{"List", func(ctx context.Context, c *Client) error {
			var list List[ConfigMap]
			return c.List(ctx, &list, ListOptions{})
		}, "list ConfigMap: list too large: the answer passed 1048576 bytes (read "},
		{"List of Unstructured", func(ctx context.Context, c *Client) error {
			list := List[Unstructured]{TypeMeta: TypeMeta{APIVersion: "v1", Kind: "ConfigMapList"}}
			return c.List(ctx, &list, ListOptions{})
		}, "list ConfigMap: list too large: the answer passed 1048576 bytes (read "},
		{"ListEach", func(ctx context.Context, c *Client) error {
			_, err := c.ListEach(ctx, configMapKind, ListOptions{}, newConfigMap, func(Object, int) error { return nil })
			return err
		}, "list ConfigMap: list too large: the answer passed 1048576 bytes (read "},
		{"WatchList", func(ctx context.Context, c *Client) error {
			w, err := c.Watch(ctx, configMapKind, ListOptions{SendInitialEvents: true, AllowWatchBookmarks: true, ResourceVersionMatch: MatchNotOlderThan})
			if err != nil {
				return err
			}
			defer w.Stop()
			for {
				if _, err := w.Next(); err != nil {
					return err
				}
			}
		}, "watch ConfigMap: list too large: the initial events passed 1048576 bytes (read "},
	}
	for _, tt := range reads {
		t.Run(tt.name, func(t *testing.T) {
			s := &endlessServer{}
			c, err := NewClient(&Config{Host: "https://endless.invalid", Transport: s, QPS: -1}, ClientOptions{MaxListSize: limit})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Mapping(t.Context(), configMapKind); err != nil {
				t.Fatal(err)
			}
			err = tt.read(t.Context(), c)
			if !errors.Is(err, ErrListTooLarge) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s of an endless answer = %v, want ErrListTooLarge: %q...", tt.name, err, tt.want)
			}
			if n := s.read.Load(); n > limit+64<<10 {
				t.Errorf("%s read %d KiB of an endless answer, want little more than the bound (%d KiB)", tt.name, n>>10, limit>>10)
			}
		})
	}
	t.Run("plain watch", func(t *testing.T) {
		s := &endlessServer{}
		c, err := NewClient(&Config{Host: "https://endless.invalid", Transport: s, QPS: -1}, ClientOptions{MaxListSize: limit})
		if err != nil {
			t.Fatal(err)
		}
		w, err := c.Watch(t.Context(), configMapKind, ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Stop()
		for s.read.Load() < 2*limit {
			if _, err := w.Next(); err != nil {
				t.Fatalf("Next on a plain watch after %d KiB = %v, want events", s.read.Load()>>10, err)
			}
		}
	})
}

func TestDefaultMaxListSize(t *testing.T) {
	c := newFakeClient(t, &fakeServer{}, ClientOptions{})
	if got := c.maxList(); got != DefaultMaxListSize {
		t.Errorf("list bound without MaxListSize = %d, want DefaultMaxListSize (%d)", got, DefaultMaxListSize)
	}
}
