// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// FuzzIntern decodes a sequence of inputs (data split at each 0xff byte)
// into typed, unstructured or metadata-only objects as kinds says, and
// checks that interning their metadata with one interner leaves each
// equal to what json.Unmarshal gives. (The decoder itself is fuzzed in
// kube: FuzzObjectDecoder.)
func FuzzIntern(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"a"},"data":{"k":"v"}}` + "\xff" + `{"metadata":{"name":"b"}}`,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"a":"b"},"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u"}],"finalizers":["x"]},"spec":{"replicas":3}}`,
		`{"metadata":{"namespace":"ns","labels":{"a":"b","c":"b"},"annotations":{"a":"b"},"finalizers":["x","x"]}}` + "\xff" + `{"metadata":{"namespace":"ns","labels":{"a":"c"}}}`,
		`{"metadata":{"creationTimestamp":"2026-11-21T04:48:10Z","managedFields":[{"manager":"m"}]}}`,
	} {
		f.Add([]byte(s), []byte{0, 1, 2})
	}
	f.Fuzz(func(t *testing.T, data, kinds []byte) {
		in := newInterner()
		for i, raw := range bytes.Split(data, []byte{0xff}) {
			k := byte(i)
			if len(kinds) > 0 {
				k = kinds[i%len(kinds)]
			}
			switch k % 3 {
			case 0:
				checkIntern[kube.ConfigMap](t, in, raw)
			case 1:
				checkIntern[kube.Unstructured](t, in, raw)
			default:
				checkIntern[kube.PartialObjectMetadata](t, in, raw)
			}
		}
	})
}

func checkIntern[T any, PT interface {
	*T
	kube.Object
}](t *testing.T, in *interner, raw []byte) {
	t.Helper()
	got, want := PT(new(T)), PT(new(T))
	if json.Unmarshal(raw, got) != nil || json.Unmarshal(raw, want) != nil {
		return
	}
	in.meta(got.GetObjectMeta())
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("interning changed %+v to %+v", want, got)
	}
}
