// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// bodyServer answers every list with the body it holds and discovery as
// legacyDiscovery does. Unlike fakeServer it records nothing, so that a
// fuzzer's millions of requests do not pile up.
type bodyServer struct {
	mu   sync.Mutex
	body []byte
}

func (s *bodyServer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	code, _, out, ok := legacyDiscovery(r)
	if !ok {
		s.mu.Lock()
		code, out = 200, string(s.body)
		s.mu.Unlock()
	}
	return &http.Response{StatusCode: code, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(out)), Request: r}, nil
}

// FuzzListEach checks the streamed list decoder against json.Unmarshal of
// the whole body, as Client.List decodes it: whatever the body, ListEach
// either fails or hands out exactly the items json.Unmarshal decodes, in
// order, stamped with the kind, with the list's metadata, and item sizes
// that add up to no more than the body.
func FuzzListEach(f *testing.F) {
	f.Add(readCapture(f, "09-list-paged.txt").body, byte(0))
	f.Add(readCapture(f, "19-partial-object-metadata-list.txt").body, byte(2))
	f.Add(readCapture(f, "27-list-exact-compacted.txt").body, byte(1))
	for _, s := range []string{
		`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9","continue":"next"},"items":[{"metadata":{"name":"a","namespace":"ns1"},"data":{"x":"1"}}, {"metadata":{"name":"b"}}]}`,
		`{"items":null}`,
		`{"items":[]}`,
		`{}`,
		`{"metadata":{"continue":"c"},"metadata":{"resourceVersion":"2"}}`,
		`{"items":[{"data":{"x":1}}]}`,
		`{"items":[{"metadata":{"name":"a"}}]} trailing`,
		`{"items":{}}`,
		`[1]`,
		`null`,
		`{"items":[{"metadata":{"name":"a"}},{"meta`,
		`{"items":[{"binaryData":{"k":"aGk="},"immutable":true,"spec":{"x":[1,2,{"y":null}]}}]}`,
	} {
		f.Add([]byte(s), byte(0))
		f.Add([]byte(s), byte(1))
	}
	srv := &bodyServer{}
	c, err := NewClient(&Config{Host: "https://fake.invalid", Transport: srv, QPS: -1}, ClientOptions{})
	if err != nil {
		f.Fatal(err)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, body []byte, kind byte) {
		srv.mu.Lock()
		srv.body = body
		srv.mu.Unlock()
		switch kind % 3 {
		case 0:
			checkListEach[ConfigMap](t, c, ctx, body)
		case 1:
			checkListEach[Unstructured](t, c, ctx, body)
		default:
			checkListEach[PartialObjectMetadata](t, c, ctx, body)
		}
	})
}

// checkListEach compares ListEach and List on one body, with items of type T.
func checkListEach[T any, PT interface {
	*T
	Object
}](t *testing.T, c *Client, ctx context.Context, body []byte) {
	var got []T
	var sizes []int
	meta, err := c.ListEach(ctx, configMapKind, ListOptions{}, func() Object { return PT(new(T)) },
		func(o Object, n int) error {
			got = append(got, *o.(PT))
			sizes = append(sizes, n)
			return nil
		})
	if err != nil {
		if !strings.HasPrefix(err.Error(), "list ConfigMap: ") {
			t.Errorf("ListEach(%q) error %q does not start with %q", body, err, "list ConfigMap: ")
		}
		return
	}
	// What ListEach reads of a list, decoded whole: apiVersion and kind
	// are skipped whatever their type, where List refuses a kind that is
	// not a string.
	var list struct {
		ListMeta `json:"metadata"`
		Items    []T `json:"items"`
	}
	if lerr := json.Unmarshal(body, &list); lerr != nil {
		t.Fatalf("ListEach(%q) succeeded with %d items, json.Unmarshal fails: %v", body, len(got), lerr)
	}
	for i := range list.Items {
		any(&list.Items[i]).(interface{ SetGroupVersionKind(GroupVersionKind) }).SetGroupVersionKind(configMapKind)
	}
	if len(list.Items) == 0 {
		list.Items = nil
	}
	if !reflect.DeepEqual(got, list.Items) {
		t.Fatalf("ListEach(%q) items\n%+v\njson.Unmarshal items\n%+v", body, got, list.Items)
	}
	if !reflect.DeepEqual(meta, list.ListMeta) {
		t.Fatalf("ListEach(%q) metadata %+v, json.Unmarshal metadata %+v", body, meta, list.ListMeta)
	}
	total := 0
	for i, n := range sizes {
		if n < 2 { // "{}" is the shortest item
			t.Errorf("ListEach(%q) item %d: size %d, want at least 2", body, i, n)
		}
		total += n
	}
	if total > len(body) {
		t.Errorf("ListEach(%q) item sizes add up to %d, more than the body's %d bytes", body, total, len(body))
	}
}
