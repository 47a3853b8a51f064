// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/kube"
)

// FuzzIntern decodes each input as a typed, an unstructured and a
// metadata-only object, in turn, and checks that interning their metadata
// with one interner leaves each equal to what json.Unmarshal gives. (The
// decoder itself is fuzzed in kube: FuzzObjectDecoder.)
func FuzzIntern(f *testing.F) {
	f.Add([]byte(`{"metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}`))
	f.Add([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"a":"b"},"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u"}],"finalizers":["x"]},"spec":{"replicas":3}}`))
	f.Add([]byte(`{"metadata":{"namespace":"ns","labels":{"a":"b","c":"b"},"annotations":{"a":"b"},"finalizers":["x","x"]}}`))
	f.Add([]byte(`{"metadata":{"creationTimestamp":"2026-11-21T04:48:10Z","managedFields":[{"manager":"m"}]}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		in := newInterner()
		checkIntern[kube.ConfigMap](t, in, raw)
		checkIntern[kube.Unstructured](t, in, raw)
		checkIntern[kube.PartialObjectMetadata](t, in, raw)
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
