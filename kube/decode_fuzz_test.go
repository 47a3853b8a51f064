// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/kubeloop/kubeloop/internal/exactjson"
)

// FuzzObjectDecoder feeds one reused jsondec.Decoder (through unmarshal,
// which decodes an Unstructured member by member) a sequence of inputs
// (data split at each 0xff byte), decoding each into a typed, an
// unstructured or a metadata-only object as kinds says, and checks every
// answer against exactjson.Unmarshal (json.Unmarshal with keys matched
// exactly, as Kubernetes matches them) into a fresh object of the same
// type: the same success or failure and, on success, an equal object.
func FuzzObjectDecoder(f *testing.F) {
	for _, s := range []string{
		`{"metadata":{"name":"a"},"data":{"k":"v"}}` + "\xff" + `{"metadata":{"name":"b"}}`,
		`{"metadata":{"name":"c"}} {"metadata":{"name":"d"}}` + "\xff" + `{"metadata":{"name":"e"}}}` + "\xff" + `{"metadata":{"name":"h"}}`,
		`{"metadata":{"name":` + "\xff" + `{"data":{"k":1}}` + "\xff" + `garbage` + "\xff" + `  {"metadata":{"name":"f"}}  `,
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"a":"b"},"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u"}],"finalizers":["x"]},"spec":{"replicas":3}}`,
		`123` + "\xff" + `"s"` + "\xff" + `null` + "\xff" + `[]` + "\xff" + `{}` + "\xff" + `` + "\xff" + ` `,
		`{"metadata":{"creationTimestamp":"2026-11-21T04:48:10Z","managedFields":[{"manager":"m"}]}}`,
		`{"METADATA":{"name":"x"},"metadata":{"Name":"y","namespaceſ":"z","labels":{"A":"1","a":"2"}},"Data":{"k":"v"}}`,
		`{"spec":{"replicas":3,"replicaſ":1000},"statuſ":{"ready":1},"Kind":"K","\u212Aind":"K2"}`,
	} {
		f.Add([]byte(s), []byte{0, 1, 2})
	}
	f.Fuzz(func(t *testing.T, data, kinds []byte) {
		d := newDecoders()
		for i, raw := range bytes.Split(data, []byte{0xff}) {
			k := byte(i)
			if len(kinds) > 0 {
				k = kinds[i%len(kinds)]
			}
			switch k % 3 {
			case 0:
				checkDecode[ConfigMap](t, d, raw)
			case 1:
				checkDecode[Unstructured](t, d, raw)
			default:
				checkDecode[PartialObjectMetadata](t, d, raw)
			}
		}
	})
}

func checkDecode[T any, PT interface {
	*T
	Object
}](t *testing.T, d decoders, raw []byte) {
	t.Helper()
	got, want := PT(new(T)), PT(new(T))
	gotErr := unmarshal(d.all, raw, got)
	wantErr := exactjson.Unmarshal(raw, want)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("decode %T (%q) error %v, exactjson.Unmarshal error %v", got, raw, gotErr, wantErr)
	}
	if gotErr == nil && !reflect.DeepEqual(got, want) {
		t.Fatalf("decode %T (%q) =\n%+v\nexactjson.Unmarshal gives\n%+v", got, raw, got, want)
	}
	// Skipping managedFields changes nothing else, and fails only when
	// the whole decoding fails or managedFields is not valid JSON.
	lean := PT(new(T))
	leanErr := unmarshal(d.lean, raw, lean)
	if gotErr == nil && leanErr != nil {
		t.Fatalf("decode %T (%q) without managedFields: %v; with them no error", got, raw, leanErr)
	}
	if leanErr == nil && gotErr == nil {
		want.GetObjectMeta().ManagedFields = nil
		if !reflect.DeepEqual(lean, want) {
			t.Fatalf("decode %T (%q) without managedFields =\n%+v\nwant\n%+v", got, raw, lean, want)
		}
	}
}
