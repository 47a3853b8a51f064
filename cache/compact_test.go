// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest"
)

// sameAsDecoded starts a compact and a plain informer of T side by side
// and fails unless every object reads the same from both.
func sameAsDecoded[T any](t *testing.T, c *kube.Client, opts InformerOptions, keys ...kube.Key) {
	t.Helper()
	plain, err := NewInformer[T](c, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Compact = true
	compact, err := NewInformer[T](c, opts)
	if err != nil {
		t.Fatal(err)
	}
	startInformer(t, plain.ObjectInformer())
	startInformer(t, compact.ObjectInformer())
	waitSynced(t, plain.ObjectInformer())
	waitSynced(t, compact.ObjectInformer())
	for _, key := range keys {
		want, ok1 := plain.Get(key)
		got, ok2 := compact.Get(key)
		if !ok1 || !ok2 || !reflect.DeepEqual(got, want) {
			t.Errorf("%T %s: compact Get = %+v, %v\nplain Get = %+v, %v", got, key, got, ok2, want, ok1)
		}
	}
}

// TestCompactReadsAsDecoded: a compact informer of each kind of stored type
// hands out the same objects as a plain one, kind included.
func TestCompactReadsAsDecoded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		createCM(t, srv, "default", "a", map[string]string{"k": "v", "html": "<&>"})
		createCM(t, srv, "kube-system", "b", nil)
		keys := []kube.Key{{Namespace: "default", Name: "a"}, {Namespace: "kube-system", Name: "b"}}
		sameAsDecoded[kube.ConfigMap](t, c, InformerOptions{}, keys...)
		sameAsDecoded[kube.ConfigMap](t, c, InformerOptions{Transform: DropManagedFields}, keys...)
		sameAsDecoded[kube.Unstructured](t, c, InformerOptions{Kind: cmKind}, keys...)
		sameAsDecoded[kube.PartialObjectMetadata](t, c, InformerOptions{Kind: cmKind}, keys...)
	})
}

// TestCompactReadsAreNew: each read of a compact informer is a new object
// the caller may change without changing the cache; indexes, selectors
// and the byte count work on the packed objects.
func TestCompactReadsAreNew(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, c := newServer(t, kubetest.Options{})
		createCM(t, srv, "default", "a", map[string]string{"owner": "o1"})
		createCM(t, srv, "default", "b", map[string]string{"owner": "o2"})
		inf, err := NewInformer[kube.ConfigMap](c, InformerOptions{Compact: true})
		if err != nil {
			t.Fatal(err)
		}
		if err := inf.AddIndex("owner", func(cm *kube.ConfigMap) []string { return []string{cm.Data["owner"]} }); err != nil {
			t.Fatal(err)
		}
		startInformer(t, inf.ObjectInformer())
		waitSynced(t, inf.ObjectInformer())

		key := kube.Key{Namespace: "default", Name: "a"}
		x, _ := inf.ReadOnly().Get(key)
		y, _ := inf.ReadOnly().Get(key)
		if x == nil || x == y {
			t.Fatalf("ReadOnly().Get twice = %p, %p; want two new objects", x, y)
		}
		x.Data["owner"] = "changed"
		if z, _ := inf.Get(key); z.Data["owner"] != "o1" || z.GroupVersionKind() != cmKind {
			t.Errorf("after changing a read object the cache holds %v (%v), want owner o1 and kind ConfigMap", z.Data, z.GroupVersionKind())
		}

		updateCM(t, srv, "default", "a", map[string]string{"owner": "o2"})
		synctest.Wait()
		got, err := inf.List(kube.ListOptions{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"owner": "o2"})})
		if err != nil || len(got) != 2 {
			t.Errorf("List(owner=o2) = %d objects, %v; want 2 after the update refiled a", len(got), err)
		}
		got, err = inf.List(kube.ListOptions{FieldSelector: kube.FieldSelectorFromSet(map[string]string{"owner": "o1"})})
		if err != nil || len(got) != 0 {
			t.Errorf("List(owner=o1) = %d objects, %v; want none", len(got), err)
		}
		sel, _ := kube.ParseSelector("app=demo")
		if got, err := inf.List(kube.ListOptions{Namespace: "default", LabelSelector: sel, Limit: 1}); err != nil || len(got) != 1 {
			t.Errorf("List(app=demo, limit 1) = %d objects, %v; want 1", len(got), err)
		}

		st := inf.Stats()
		stored, _ := inf.Get(key)
		b, _ := json.Marshal(stored)
		if st.Objects != 2 || st.Bytes < int64(len(b)) || st.Bytes > 3*int64(len(b)) {
			t.Errorf("Stats: %d objects, %d bytes; want 2 objects of about %d bytes of JSON each", st.Objects, st.Bytes, len(b))
		}
	})
}

// TestCodecPack checks what a compact store keeps: the JSON without the
// kind, the key's name cut from it, and the object left as it was.
func TestCodecPack(t *testing.T) {
	c := newCodec(cmKind, func() kube.Object { return new(kube.ConfigMap) })
	obj := &kube.ConfigMap{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: kube.ObjectMeta{Namespace: "ns", Name: "cm"}, Data: map[string]string{"a": "<b>"}}
	v, key, size := c.pack(obj, 999)
	p, ok := v.(*packed)
	if !ok {
		t.Fatalf("pack = %T, want *packed", v)
	}
	if want := `{"metadata":{"name":"cm","namespace":"ns"},"data":{"a":"<b>"}}`; p.json != want || size != int32(len(want)) {
		t.Errorf("pack = %s (%d bytes counted), want %s", p.json, size, want)
	}
	if key != (kube.Key{Namespace: "ns", Name: "cm"}) || obj.Kind != "ConfigMap" {
		t.Errorf("key %v, object kind %q after pack; want ns/cm and the kind kept", key, obj.Kind)
	}
	if got := c.load(v).(*kube.ConfigMap); !reflect.DeepEqual(got, obj) {
		t.Errorf("load(pack(obj)) = %+v, want %+v", got, obj)
	}
	var nilCodec *codec
	if v, _, size := nilCodec.pack(obj, 999); v != kube.Object(obj) || size != 999 {
		t.Errorf("a nil codec packed the object into %T (%d bytes)", v, size)
	}
	// An object whose JSON cannot be made stays decoded.
	odd := &unmarshallable{ObjectMeta: kube.ObjectMeta{Name: "x"}}
	if v, key, size := c.pack(odd, 7); v != kube.Object(odd) || key.Name != "x" || size != 7 {
		t.Errorf("pack of an object JSON cannot encode = %T, %v, %d; want the object itself, its key, 7", v, key, size)
	}
}

// unmarshallable is an object encoding/json refuses to encode.
type unmarshallable struct {
	kube.TypeMeta
	kube.ObjectMeta `json:"metadata"`
	C               chan int `json:"c"`
}

// TestCodecLoadPanicsOnBadJSON: a type whose JSON does not round-trip is
// a bug the panic names.
func TestCodecLoadPanicsOnBadJSON(t *testing.T) {
	c := newCodec(cmKind, func() kube.Object { return new(kube.ConfigMap) })
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "ConfigMap") {
			t.Errorf("panic = %v, want one naming the kind", r)
		}
	}()
	c.load(&packed{json: `{"data":{"a":1}}`})
}
