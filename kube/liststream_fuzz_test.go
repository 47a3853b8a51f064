// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/kubeloop/kubeloop/internal/exactjson"
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

// TestListEachCaptures runs FuzzListEach's checks on the real server's
// list answers whole, as every item type reads them.
func TestListEachCaptures(t *testing.T) {
	c := newBodyClient(t)
	for _, name := range []string{"09-list-paged.txt", "19-partial-object-metadata-list.txt", "27-list-exact-compacted.txt"} {
		for kind := range byte(3) {
			t.Run(fmt.Sprintf("%s/%d", name, kind), func(t *testing.T) {
				checkListEachKind(t, c, readCapture(t, name).body, kind)
			})
		}
	}
}

// FuzzListEach checks the streamed list decoder against exactjson.Unmarshal
// (json.Unmarshal with keys matched exactly) of the whole body, as
// Client.List decodes it: whatever the body, ListEach either fails or
// hands out exactly the items exactjson.Unmarshal decodes, in
// order, stamped with the kind, with the list's metadata, and item sizes
// that add up to no more than the body.
//
// The seeds are small: the fuzzing engine minimizes every input that
// finds new code, trying up to n*n/2 cuts of its n bytes for up to a
// minute (-fuzzminimizetime), and an input grown from a 2 KB capture kept
// it at that for the whole minute. The real lists are seeds in the shape
// of one of their items, and TestListEachCaptures checks them whole.
func FuzzListEach(f *testing.F) {
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
		`{"Items":[{"metadata":{"name":"a"}}],"METADATA":{"continue":"c"},"items":[{"Metadata":{"name":"b"},"metadata":{"namſ":"c"}}]}`,
		// 09-list-paged.txt, 19-partial-object-metadata-list.txt and
		// 27-list-exact-compacted.txt, compacted and cut to one item
		// with short values.
		`{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"281","continue":"eyJ2IjoiIn0","remainingItemCount":4},"items":[{"metadata":{"name":"cm1","uid":"5708e7b9","resourceVersion":"276","creationTimestamp":"2026-11-21T04:48:10Z","labels":{"app":"demo"},"managedFields":[{"manager":"curl","operation":"Update","time":"2026-11-21T04:48:10Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"data":{"k":"v1"}}]}`,
		`{"kind":"PartialObjectMetadataList","apiVersion":"meta.k8s.io/v1","metadata":{},"items":[{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"applied","namespace":"default"}}]}`,
		`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old","reason":"Expired","code":410}`,
	} {
		f.Add([]byte(s), byte(0))
		f.Add([]byte(s), byte(1))
		f.Add([]byte(s), byte(2))
	}
	c := newBodyClient(f)
	f.Fuzz(func(t *testing.T, body []byte, kind byte) {
		checkListEachKind(t, c, body, kind)
	})
}

// newBodyClient returns a client whose requests a bodyServer answers.
func newBodyClient(t testing.TB) *bodyClient {
	t.Helper()
	srv := &bodyServer{}
	c, err := NewClient(&Config{Host: "https://fake.invalid", Transport: srv, QPS: -1}, ClientOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return &bodyClient{c, srv}
}

// bodyClient is a client and the bodyServer it sends requests to.
type bodyClient struct {
	*Client
	srv *bodyServer
}

// checkListEachKind has the server answer body and compares ListEach and
// List on it, with items of the type kind%3 picks: ConfigMap,
// Unstructured or PartialObjectMetadata.
func checkListEachKind(t *testing.T, c *bodyClient, body []byte, kind byte) {
	c.srv.mu.Lock()
	c.srv.body = body
	c.srv.mu.Unlock()
	ctx := context.Background()
	switch kind % 3 {
	case 0:
		checkListEach[ConfigMap](t, c.Client, ctx, body)
	case 1:
		checkListEach[Unstructured](t, c.Client, ctx, body)
	default:
		checkListEach[PartialObjectMetadata](t, c.Client, ctx, body)
	}
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
	if lerr := exactjson.Unmarshal(body, &list); lerr != nil {
		t.Fatalf("ListEach(%q) succeeded with %d items, exactjson.Unmarshal fails: %v", body, len(got), lerr)
	}
	for i := range list.Items {
		any(&list.Items[i]).(interface{ SetGroupVersionKind(GroupVersionKind) }).SetGroupVersionKind(configMapKind)
	}
	if len(list.Items) == 0 {
		list.Items = nil
	}
	if !reflect.DeepEqual(got, list.Items) {
		t.Fatalf("ListEach(%q) items\n%+v\nexactjson.Unmarshal items\n%+v", body, got, list.Items)
	}
	if !reflect.DeepEqual(meta, list.ListMeta) {
		t.Fatalf("ListEach(%q) metadata %+v, exactjson.Unmarshal metadata %+v", body, meta, list.ListMeta)
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
