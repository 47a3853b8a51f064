// SPDX-License-Identifier: Apache-2.0

package cache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/kubeloop/kubeloop/internal/jsondec"
	"github.com/kubeloop/kubeloop/kube"
)

// A compact informer (InformerOptions.Compact) stores each object as the
// JSON of its Go value, after the transform and without its kind, instead
// of the Go value itself. A Go object pays for its struct, every map (a
// ConfigMap's Data map of one entry takes 336 bytes before its strings),
// every string header and slice, and the allocator's size classes; its
// JSON is one allocation the garbage collector never scans. For 1 KiB
// ConfigMaps: 1,360 bytes an object instead of 1,792.
//
// What it costs: every read decodes, about 12 µs for a 1 KiB ConfigMap
// against 0.6 µs for a deep copy and 35 ns for a zero-copy read (`go test
// -run '^$' -bench Read ./cache/`), so [ReadOnly] saves nothing; an update
// event decodes the version it replaces, to tell the handlers; and the
// objects the store hands to handlers (a list's, a late handler's adds,
// the resyncs) are decoded by each handler's delivery.

// packed is an object stored by a compact informer: its JSON.
type packed struct{ json string }

// codec packs objects and unpacks them again, for a compact informer. A
// nil *codec is the codec of a store that keeps objects decoded: pack and
// load then hand objects through.
type codec struct {
	kind   kube.GroupVersionKind
	newObj func() kube.Object
	// dec decodes what the store keeps, in one pass, keys matched
	// exactly as the client's decoder matches them; it holds the plan of
	// the kind's Go type.
	dec *jsondec.Decoder
}

func newCodec(kind kube.GroupVersionKind, newObj func() kube.Object) *codec {
	return &codec{kind: kind, newObj: newObj, dec: jsondec.New(jsondec.Options{})}
}

// pack returns what the store keeps of obj: obj itself, or a *packed, and
// the key to file it under and the bytes to count for it. In a packed
// object's key the name is part of the JSON (a substring, no copy). An
// object whose JSON cannot be marshalled is kept decoded (reads that copy
// still copy it: a compact read costs a decode and a deep copy, the copy
// a few percent of the decode).
func (c *codec) pack(obj kube.Object, size int32) (v any, key kube.Key, _ int32) {
	key = obj.GetObjectMeta().Key()
	if c == nil {
		return obj, key, size
	}
	// The kind is left out (load stamps it again): 37 bytes for a
	// ConfigMap, which can be the difference of a size class.
	if t, ok := obj.(interface{ SetGroupVersionKind(kube.GroupVersionKind) }); ok {
		gvk := obj.GroupVersionKind()
		t.SetGroupVersionKind(kube.GroupVersionKind{})
		defer t.SetGroupVersionKind(gvk)
	}
	e := encoders.Get().(*encoder)
	defer func() {
		if e.buf.Cap() <= maxPooledBuffer {
			encoders.Put(e)
		}
	}()
	e.buf.Reset()
	if err := e.enc.Encode(obj); err != nil {
		return obj, key, size
	}
	s := string(bytes.TrimSuffix(e.buf.Bytes(), []byte("\n"))) // the one copy kept
	if at := strings.Index(s, key.Name); at >= 0 && key.Name != "" {
		key.Name = s[at : at+len(key.Name)] // the same bytes, kept by the JSON anyway
	}
	return &packed{json: s}, key, clampSize(len(s))
}

// encoder is a buffer and a json.Encoder writing into it (leaving <, >
// and & as they are).
type encoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// encoders are what pack encodes with, reused so that the only allocation
// of a packed object's JSON is the copy the store keeps: a sync of many
// objects makes little garbage in the size class of what it keeps. An
// encoder whose buffer grew past maxPooledBuffer is dropped.
var encoders = sync.Pool{New: func() any {
	e := new(encoder)
	e.enc = json.NewEncoder(&e.buf)
	e.enc.SetEscapeHTML(false)
	return e
}}

const maxPooledBuffer = 1 << 20

// load returns the object v holds: v itself when it is a kube.Object, else
// a new object decoded from v's JSON, with the codec's kind stamped on it.
//
// It panics when the JSON does not decode: the store made it with
// json.Marshal from an object of the same type, so only a type whose JSON
// methods do not round-trip can fail here, a bug in that type.
func (c *codec) load(v any) kube.Object {
	p, ok := v.(*packed)
	if !ok {
		return v.(kube.Object)
	}
	obj := c.newObj()
	if err := c.dec.Unmarshal([]byte(p.json), obj); err != nil {
		panic(fmt.Sprintf("cache: a stored %s does not decode into %T (its JSON methods do not round-trip): %v", c.kind.Kind, obj, err))
	}
	if s, ok := obj.(interface{ SetGroupVersionKind(kube.GroupVersionKind) }); ok {
		s.SetGroupVersionKind(c.kind)
	}
	return obj
}

// samePacked reports whether a and b are packed objects with the same
// JSON: the same object at the same version, which a relist need not
// decode to compare.
func samePacked(a, b any) bool {
	pa, ok := a.(*packed)
	if !ok {
		return false
	}
	pb, ok := b.(*packed)
	return ok && pa.json == pb.json
}
