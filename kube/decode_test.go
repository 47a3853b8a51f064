// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"unsafe"

	"github.com/kubeloop/kubeloop/internal/exactjson"
)

// TestObjectDecoder: a reused decoder answers as exactjson.Unmarshal does
// (json.Unmarshal with keys matched exactly), object after object, through
// failures.
func TestObjectDecoder(t *testing.T) {
	jd := newDecoders().all
	inputs := []string{
		`{"metadata":{"name":"a"},"data":{"k":"v"}}`,
		`{"metadata":{"name":"b"}}`,
		`{"metadata":{"name":"c"}} {"metadata":{"name":"d"}}`, // two values
		`{"metadata":{"name":"e"}}}`,                          // a stray brace
		`{"metadata":{"name":`,                                // cut
		`{"data":{"k":1}}`,                                    // wrong type
		`garbage`,
		`  {"metadata":{"name":"f"}}  `,
		`{"metadata":{"name":"g"},"data":{"big":"` + strings.Repeat("x", 5000) + `"}}`,
		`{"metadata":{"name":"h"}}`,
		`{"metadata":{"name":"i","Name":"j","namſpace":"k"},"Metadata":{"name":"l"},"dAta":{"k":"v"}}`,
	}
	for _, in := range inputs {
		var want, got ConfigMap
		wantErr := exactjson.Unmarshal([]byte(in), &want)
		gotErr := unmarshal(jd, []byte(in), &got)
		if (gotErr == nil) != (wantErr == nil) || gotErr == nil && !reflect.DeepEqual(got, want) {
			t.Errorf("decode(%.40q) = %+v, %v; exactjson.Unmarshal gives %+v, %v", in, got.ObjectMeta, gotErr, want.ObjectMeta, wantErr)
		}
	}
}

// TestWatchDecodeErrorHidesObject: an object that does not decode is named
// by its event type and the field that failed; its content, which may be
// a Secret's data, is not in the error.
func TestWatchDecodeErrorHidesObject(t *testing.T) {
	w := watcherOn(`{"type":"ADDED","object":{"kind":"Secret","apiVersion":"v1","metadata":{"name":"s"},"data":{"password":"c2VjcmV0"},"immutable":"yes"}}` + "\n")
	ev, err := w.Next()
	if err != nil {
		t.Fatal(err)
	}
	var s Secret
	err = ev.Decode(&s)
	if err == nil || !strings.Contains(err.Error(), "decode ADDED event") || !strings.Contains(err.Error(), ".immutable") {
		t.Errorf("Decode() = %v, want an error naming the event and the field", err)
	}
	if err != nil && strings.Contains(err.Error(), "c2VjcmV0") {
		t.Errorf("Decode() error %q shows the Secret's data", err)
	}
}

// TestWatchDecodeConcurrent: events whose objects were copied may be
// decoded on other goroutines while the watcher reads on (go test -race).
func TestWatchDecodeConcurrent(t *testing.T) {
	var stream bytes.Buffer
	for n := range 200 {
		stream.WriteString(`{"type":"ADDED","object":{"metadata":{"name":"cm` + strings.Repeat("x", n) + `"}}}` + "\n")
	}
	w := watcherOn(stream.String())
	var wg sync.WaitGroup
	for n := range 200 {
		ev, err := w.Next()
		if err != nil {
			t.Fatal(err)
		}
		ev.Object = bytes.Clone(ev.Object)
		wg.Go(func() {
			var cm ConfigMap
			if err := ev.Decode(&cm); err != nil || len(cm.Name) != 2+n {
				t.Errorf("event %d: Decode() = %v, name of %d bytes; want %d", n, err, len(cm.Name), 2+n)
			}
		})
		var cm ConfigMap
		if err := ev.Decode(&cm); err != nil || len(cm.Name) != 2+n {
			t.Errorf("event %d: Decode() = %v, name of %d bytes; want %d", n, err, len(cm.Name), 2+n)
		}
	}
	wg.Wait()
}

// TestDecodersShareRepeatedStrings: objects a Client decodes share the
// strings of their metadata that repeat (one copy of a namespace, of a
// label's key and value), not those that do not repeat or are long, and
// the table forgets everything once full.
func TestDecodersShareRepeatedStrings(t *testing.T) {
	d := newDecoders()
	long := strings.Repeat("v", maxInternLength+1)
	decode := func(name string) *ConfigMap {
		t.Helper()
		var cm ConfigMap
		raw := `{"metadata":{"name":"` + name + `","namespace":"ns","labels":{"app":"web","long":"` + long + `"},` +
			`"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u"}],"finalizers":["fin"]},"data":{"k":"value"}}`
		if err := unmarshal(d.lean, []byte(raw), &cm); err != nil {
			t.Fatal(err)
		}
		return &cm
	}
	same := func(a, b string) bool { return unsafe.StringData(a) == unsafe.StringData(b) }
	a, b := decode("a"), decode("b")
	for what, shared := range map[string]bool{
		"namespace":   same(a.Namespace, b.Namespace),
		"label value": same(a.Labels["app"], b.Labels["app"]),
		"owner kind":  same(a.OwnerReferences[0].Kind, b.OwnerReferences[0].Kind),
		"finalizer":   same(a.Finalizers[0], b.Finalizers[0]),
	} {
		if !shared {
			t.Errorf("%s: two objects hold two copies, want one shared", what)
		}
	}
	for what, shared := range map[string]bool{
		"a long label value": same(a.Labels["long"], b.Labels["long"]),
		"data":               same(a.Data["k"], b.Data["k"]),
	} {
		if shared {
			t.Errorf("%s is shared, want a copy per object", what)
		}
	}
	var all ConfigMap // the decoder of answers interns as well
	if err := unmarshal(d.all, []byte(`{"metadata":{"namespace":"ns"}}`), &all); err != nil || !same(all.Namespace, a.Namespace) {
		t.Errorf("answer's namespace not shared with the listed objects' (%v)", err)
	}
	for i := range maxInterned { // fill the table: it starts over
		decode(fmt.Sprint("n", i)).Labels = nil
		var o ConfigMap
		if err := unmarshal(d.lean, fmt.Appendf(nil, `{"metadata":{"namespace":"ns%d"}}`, i), &o); err != nil {
			t.Fatal(err)
		}
	}
	if c := decode("c"); same(c.Namespace, a.Namespace) {
		t.Error("after the table filled up, namespace still shared with the first objects: want the table forgotten")
	}
}
