// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/internal/deepcopy"
	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// Object is what the client reads and writes. A type satisfies it by
// embedding [ObjectMeta] and [TypeMeta] and declaring its identity once:
//
//	type Widget struct {
//		kube.TypeMeta
//		kube.ObjectMeta `json:"metadata"`
//		Spec WidgetSpec `json:"spec"`
//	}
//
//	func (*Widget) GroupVersionKind() kube.GroupVersionKind {
//		return kube.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
//	}
//
// [Unstructured] and [PartialObjectMetadata] take their identity from
// apiVersion and kind instead.
type Object interface {
	GetObjectMeta() *ObjectMeta
	GroupVersionKind() GroupVersionKind
}

// ObjectList is a list the client can fill: in practice a [List].
type ObjectList interface {
	GetListMeta() *ListMeta
	// ItemGroupVersionKind is the kind of the items, which decides the
	// request path.
	ItemGroupVersionKind() GroupVersionKind
	// Len and Item give access to the items as [Object]s.
	Len() int
	Item(i int) Object
}

// List is a list of objects of one kind, as the server returns it.
//
// For typed items the kind comes from T. For [Unstructured] and
// [PartialObjectMetadata] items, set the list's apiVersion and kind before
// listing, with the kind of the items plus "List":
//
//	list := kube.List[kube.Unstructured]{TypeMeta: kube.TypeMeta{APIVersion: "apps/v1", Kind: "DeploymentList"}}
type List[T any] struct {
	TypeMeta
	ListMeta `json:"metadata"`
	Items    []T `json:"items"`
}

// ItemGroupVersionKind implements [ObjectList].
func (l *List[T]) ItemGroupVersionKind() GroupVersionKind {
	var zero T
	if o, ok := any(&zero).(Object); ok {
		if gvk := o.GroupVersionKind(); gvk.Kind != "" {
			return gvk
		}
	}
	if l == nil {
		return GroupVersionKind{}
	}
	gvk := l.TypeMeta.GroupVersionKind()
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return gvk
}

// Len implements [ObjectList].
func (l *List[T]) Len() int {
	if l == nil {
		return 0
	}
	return len(l.Items)
}

// Item implements [ObjectList]. It returns a pointer into Items.
func (l *List[T]) Item(i int) Object {
	o, ok := any(&l.Items[i]).(Object)
	if !ok {
		panic(fmt.Sprintf("kube: *%T does not implement kube.Object", l.Items[i]))
	}
	return o
}

// streamedList is a list that decodes item by item: a *[List].
type streamedList interface {
	decoding(jd *jsondec.Decoder) listDecoding
}

// decoding decodes each item into its place in Items.
func (l *List[T]) decoding(jd *jsondec.Decoder) listDecoding {
	return listDecoding{
		typeMeta: &l.TypeMeta,
		meta:     &l.ListMeta,
		items:    func() { l.Items = []T{} },
		item: func(raw []byte) error {
			var zero T
			l.Items = append(l.Items, zero)
			return unmarshal(jd, raw, &l.Items[len(l.Items)-1])
		},
	}
}

// stampKinds writes the kind of the items into the list and every item, so
// that lists read through the metadata projection or without per-item kinds
// say what they hold.
func (l *List[T]) stampKinds(item GroupVersionKind) {
	l.SetGroupVersionKind(GroupVersionKind{Group: item.Group, Version: item.Version, Kind: item.Kind + "List"})
	for i := range l.Items {
		if s, ok := any(&l.Items[i]).(interface{ SetGroupVersionKind(GroupVersionKind) }); ok {
			s.SetGroupVersionKind(item)
		}
	}
}

// PartialObjectMetadata is an object of any kind with its metadata only, as
// served by the server-side projection
// (Accept: application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1).
// Set apiVersion and kind to the kind you read; the client keeps them.
type PartialObjectMetadata struct {
	TypeMeta
	ObjectMeta `json:"metadata"`
}

// Unstructured is an object of any kind: typed metadata, everything else in
// a map as encoding/json decodes it (map[string]any, []any, string, float64,
// bool, nil).
type Unstructured struct {
	TypeMeta
	ObjectMeta
	// Content holds every top-level field except apiVersion, kind and
	// metadata, for example "spec", "status" or "data". Those three live
	// in TypeMeta and ObjectMeta only: MarshalJSON ignores them here.
	Content map[string]any
}

// isTypedField reports whether a top-level field lives in TypeMeta or
// ObjectMeta rather than in Content.
func isTypedField(name string) bool {
	return name == "apiVersion" || name == "kind" || name == "metadata"
}

// MarshalJSON implements [json.Marshaler].
func (u Unstructured) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(u.Content)+3)
	for k, v := range u.Content {
		if !isTypedField(k) {
			m[k] = v
		}
	}
	if u.APIVersion != "" {
		m["apiVersion"] = u.APIVersion
	}
	if u.Kind != "" {
		m["kind"] = u.Kind
	}
	m["metadata"] = &u.ObjectMeta
	return json.Marshal(m)
}

// UnmarshalJSON implements [json.Unmarshaler]. It decodes b in one pass,
// as a Client does.
func (u *Unstructured) UnmarshalJSON(b []byte) error {
	return u.decode(unstructuredDecoder(), b)
}

// unstructuredDecoder serves [Unstructured.UnmarshalJSON], which
// json.Unmarshal calls with nothing but the bytes. It is built once for
// the program and keeps one plan per Go type it meets (ObjectMeta's and
// those beneath it), immutable once built, as encoding/json keeps its own
// for the process: no state a caller can see or change. Building the
// plans each time would cost about 100µs a call.
var unstructuredDecoder = sync.OnceValue(func() *jsondec.Decoder { return jsondec.New(jsondec.Options{}) })

// Field returns the value at a path of map keys in Content, for example
// u.Field("spec", "replicas"). apiVersion, kind and metadata are not in
// Content: read TypeMeta and ObjectMeta.
func (u *Unstructured) Field(path ...string) (any, bool) {
	if u == nil {
		return nil, false
	}
	var cur any = u.Content
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// SetField sets the value at a path of map keys in Content, making maps
// on the way. It overwrites a non-map value in the way. It panics when the
// path starts at apiVersion, kind or metadata, which would be lost when
// the object is encoded: set TypeMeta and ObjectMeta instead.
func (u *Unstructured) SetField(value any, path ...string) {
	if len(path) == 0 {
		return
	}
	if isTypedField(path[0]) {
		panic(fmt.Sprintf("kube: Unstructured.SetField(%q): %s is not in Content; set the TypeMeta or ObjectMeta field", path, path[0]))
	}
	if u.Content == nil {
		u.Content = map[string]any{}
	}
	m := u.Content
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = value
}

// DeepCopy returns a copy of u that shares nothing with it.
func (u *Unstructured) DeepCopy() *Unstructured {
	if u == nil {
		return nil
	}
	out := new(Unstructured)
	copyUnstructured(out, u)
	return out
}

// copyUnstructured is built once: a reflection plan for the type.
var copyUnstructured = deepcopy.For[Unstructured]()
