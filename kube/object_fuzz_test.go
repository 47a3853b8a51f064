// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzUnstructured decodes an Unstructured from JSON and checks that
// encoding is stable (decode, encode, decode and encode again gives the
// same bytes and an equal object) and that Field reads what SetField
// wrote, before and after a JSON round trip, without touching the rest
// of the object; SetField refuses, with a panic, a path into apiVersion,
// kind or metadata, which the encoding would drop. path is split on "/"
// into map keys; value is JSON.
func FuzzUnstructured(f *testing.F) {
	for _, s := range []string{
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","labels":{"a":"b"}},"spec":{"replicas":3,"template":{"x":[1,"two",null]}},"status":{"ready":true}}`,
		`{"metadata":{"name":"a","creationTimestamp":"2026-11-21T04:48:10.5+01:00","deletionTimestamp":"2026-11-21T04:48:10Z","managedFields":[ {"manager": "m<"} ],"finalizers":[],"labels":{}}}`,
		`{"metadata":null,"kind":"X","data":{"k":"v"},"n":1e308,"f":-0.0}`,
		`{}`,
		`{"metadata":{"creationTimestamp":""}}`,
		`{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"K","name":"n","uid":"u","controller":true}],"deletionGracePeriodSeconds":30,"generation":2}}`,
	} {
		f.Add([]byte(s), "spec/replicas", []byte(`5`))
		f.Add([]byte(s), "data", []byte(`{"a":[1,{"b":null}]}`))
	}
	f.Add(readCapture(f, "09-list-paged.txt").body, "items", []byte(`"x"`))
	f.Fuzz(func(t *testing.T, data []byte, path string, value []byte) {
		var u1 Unstructured
		if err := json.Unmarshal(data, &u1); err != nil {
			return
		}
		e1, err := json.Marshal(&u1)
		if err != nil {
			t.Fatalf("Marshal(Unmarshal(%q)) error: %v", data, err)
		}
		var u2 Unstructured
		if err := json.Unmarshal(e1, &u2); err != nil {
			t.Fatalf("Unmarshal(%s) (encoding of %q) error: %v", e1, data, err)
		}
		e2, err := json.Marshal(&u2)
		if err != nil || !bytes.Equal(e1, e2) {
			t.Fatalf("encoding is not stable: %q gives\n%s\nthen\n%s (%v)", data, e1, e2, err)
		}
		if !reflect.DeepEqual(u1.Content, u2.Content) || u1.TypeMeta != u2.TypeMeta {
			t.Fatalf("round trip of %q: %+v %+v, want %+v %+v", data, u2.TypeMeta, u2.Content, u1.TypeMeta, u1.Content)
		}
		if m1, m2 := normalMeta(u1.ObjectMeta), normalMeta(u2.ObjectMeta); !reflect.DeepEqual(m1, m2) {
			t.Fatalf("round trip of %q: metadata\n%+v, want\n%+v", data, m2, m1)
		}

		var v any
		if json.Unmarshal(value, &v) != nil || !utf8.ValidString(path) { // JSON has no other keys
			return
		}
		keys := strings.Split(path, "/")
		if isTypedField(keys[0]) {
			defer func() {
				if p := recover(); p == nil || !strings.Contains(fmt.Sprint(p), keys[0]+" is not in Content") {
					t.Fatalf("SetField(%v, %q) panic %v, want one saying %s is not in Content", v, keys, p, keys[0])
				}
			}()
			u1.SetField(v, keys...)
			return
		}
		before := u1.DeepCopy()
		u1.SetField(v, keys...)
		if got, ok := u1.Field(keys...); !ok || !reflect.DeepEqual(got, v) {
			t.Fatalf("SetField(%v, %q) then Field = %v, %v", v, keys, got, ok)
		}
		if before.TypeMeta != u1.TypeMeta || !reflect.DeepEqual(before.ObjectMeta, u1.ObjectMeta) {
			t.Fatalf("SetField(%v, %q) changed apiVersion, kind or metadata", v, keys)
		}
		for k, old := range before.Content { // other top-level fields are untouched
			if k != keys[0] && !reflect.DeepEqual(u1.Content[k], old) {
				t.Fatalf("SetField(%v, %q) changed field %q", v, keys, k)
			}
		}
		e3, err := json.Marshal(&u1)
		if err != nil {
			t.Fatalf("Marshal after SetField(%v, %q) error: %v", v, keys, err)
		}
		var u3 Unstructured
		if err := json.Unmarshal(e3, &u3); err != nil {
			t.Fatalf("Unmarshal(%s) error: %v", e3, err)
		}
		if got, ok := u3.Field(keys...); !ok || !reflect.DeepEqual(got, v) {
			t.Fatalf("SetField(%v, %q), then a JSON round trip (%s), then Field = %v, %v", v, keys, e3, got, ok)
		}
	})
}

// normalMeta returns m as its JSON says it: empty maps and slices as nil,
// times at the second in UTC, a deletionTimestamp that encodes as null as
// nil, managedFields compact.
func normalMeta(m ObjectMeta) ObjectMeta {
	if len(m.Labels) == 0 {
		m.Labels = nil
	}
	if len(m.Annotations) == 0 {
		m.Annotations = nil
	}
	if len(m.OwnerReferences) == 0 {
		m.OwnerReferences = nil
	}
	if len(m.Finalizers) == 0 {
		m.Finalizers = nil
	}
	m.CreationTimestamp = Time{m.CreationTimestamp.UTC().Truncate(1e9)}
	if m.DeletionTimestamp != nil {
		if m.DeletionTimestamp.IsZero() {
			m.DeletionTimestamp = nil
		} else {
			m.DeletionTimestamp = &Time{m.DeletionTimestamp.UTC().Truncate(1e9)}
		}
	}
	if len(m.ManagedFields) > 0 {
		var b bytes.Buffer
		if json.Compact(&b, m.ManagedFields) == nil {
			var e bytes.Buffer
			json.HTMLEscape(&e, b.Bytes())
			m.ManagedFields = e.Bytes()
		}
	}
	return m
}
