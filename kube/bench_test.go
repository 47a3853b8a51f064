// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// configMapJSON is a ConfigMap as a real server sends it, managedFields
// included, with 1 KiB of data.
func configMapJSON(i int) string {
	return fmt.Sprintf(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"cm-%05d","namespace":"default","uid":"5708e7b9-af1c-489e-afe6-%012d","resourceVersion":"%d","creationTimestamp":"2026-11-21T04:48:10Z","labels":{"app":"demo","idx":"%d"},"managedFields":[{"manager":"curl","operation":"Update","apiVersion":"v1","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}},"f:metadata":{"f:labels":{".":{},"f:app":{},"f:idx":{}}}}}]},"data":{"k":"%s"}}`,
		i, i, 1000+i, i, bytes.Repeat([]byte("v"), 1024))
}

// configMapListJSON is a list of n ConfigMaps as configMapJSON makes them.
func configMapListJSON(n int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9999"},"items":[`)
	for i := range n {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.WriteString(configMapJSON(i))
	}
	buf.WriteString("]}")
	return buf.Bytes()
}

// BenchmarkDecodeList500 decodes a list of 500 ConfigMaps whole, as
// json.Unmarshal does, and item by item, each bounded, as Client.List
// does.
func BenchmarkDecodeList500(b *testing.B) {
	data := configMapListJSON(500)
	dec := newDecoders()
	for _, bb := range []struct {
		name   string
		decode func(*List[ConfigMap]) error
	}{
		{"Unmarshal", func(l *List[ConfigMap]) error { return json.Unmarshal(data, l) }},
		{"Streamed", func(l *List[ConfigMap]) error {
			lr := &listReader{r: bytes.NewReader(data), jd: dec.all, step: DefaultMaxObjectSize, total: DefaultMaxListSize}
			_, err := lr.list(l.decoding(dec.all))
			return err
		}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				var list List[ConfigMap]
				if err := bb.decode(&list); err != nil || len(list.Items) != 500 {
					b.Fatal(len(list.Items), err)
				}
			}
		})
	}
}

// BenchmarkListEach500 reads a list of 500 objects item by item, as a
// cache's list does.
func BenchmarkListEach500(b *testing.B) {
	data := configMapListJSON(500)
	rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		code, body := 200, data
		if c, _, b, ok := legacyDiscovery(r); ok {
			code, body = c, []byte(b)
		}
		return &http.Response{StatusCode: code, Header: http.Header{"Content-Type": {"application/json"}},
			Body: io.NopCloser(bytes.NewReader(body)), Request: r}, nil
	})
	c, err := NewClient(&Config{Host: "https://fake.invalid", Transport: rt, QPS: -1}, ClientOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	gvk := GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	newItem := func() Object { return new(ConfigMap) }
	if _, err := c.Mapping(ctx, gvk); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := c.ListEach(ctx, gvk, ListOptions{}, newItem, func(Object, int) error { n++; return nil }); err != nil || n != 500 {
			b.Fatal(n, err)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

func BenchmarkWatch10000(b *testing.B) {
	var buf bytes.Buffer
	for i := range 10000 {
		fmt.Fprintf(&buf, `{"type":"MODIFIED","object":%s}`+"\n", configMapJSON(i%500))
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		w := NewWatcher(io.NopCloser(bytes.NewReader(data)), nil)
		n := 0
		for {
			ev, err := w.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			var cm ConfigMap
			if err := ev.Decode(&cm); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 10000 {
			b.Fatal(n)
		}
	}
}

// BenchmarkMergeFrom makes the merge patch of one changed label of a
// ConfigMap as a real server sends it (managedFields, 1 KiB of data):
// MergeFrom (one encoding) and DataFor (one encoding and the diff), what
// a Patch with kube.MergeFrom costs on top of the request.
func BenchmarkMergeFrom(b *testing.B) {
	var cm ConfigMap
	if err := json.Unmarshal([]byte(configMapJSON(1)), &cm); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		patch := MergeFrom(&cm)
		cm.Labels["idx"] = "2"
		data, err := patch.DataFor(&cm)
		if err != nil || string(data) != `{"metadata":{"labels":{"idx":"2"}}}` {
			b.Fatalf("DataFor = %s, %v", data, err)
		}
		cm.Labels["idx"] = "1"
	}
}

// BenchmarkWatchDecode reads a watch stream of 2,000 ConfigMap events
// and decodes each object typed, metadata-only and Unstructured: what a
// watch costs the client, per byte of the stream.
func BenchmarkWatchDecode(b *testing.B) {
	var buf bytes.Buffer
	for i := range 2000 {
		fmt.Fprintf(&buf, `{"type":"MODIFIED","object":%s}`+"\n", configMapJSON(i%500))
	}
	data := buf.Bytes()
	for _, target := range []struct {
		name string
		new  func() any
	}{
		{"typed", func() any { return new(ConfigMap) }},
		{"meta", func() any { return new(PartialObjectMetadata) }},
		{"unstructured", func() any { return new(Unstructured) }},
	} {
		b.Run(target.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				w := NewWatcher(io.NopCloser(bytes.NewReader(data)), nil)
				for {
					ev, err := w.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
					if err := ev.Decode(target.new()); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
