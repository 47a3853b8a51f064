// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"reflect"
	"sync"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// Objects come off the wire in two ways. A list's body is a stream that
// [Client.List] and [Client.ListEach] read piece by piece with a
// listReader (listread.go), handing each item's bytes to jsondec. A
// watch event's object and the answer to a read or a write are whole in
// memory. Either way each object is decoded in one pass by
// internal/jsondec, whose plans (one per Go type, built on first use) the
// Client keeps; encoding/json's decoder is not used, and so not linked.
//
// Neither bounds what it reads: a listReader bounds each piece of a list
// (an item, a member of the list), a watch's event is bounded by the line
// the Watcher reads and an answer by readLimited, all at
// [ClientOptions.MaxObjectSize]. Errors quote no value: jsondec's name the
// JSON path and the Go type.
//
// A type the decoder cannot serve (a struct with a ",string" field, a map
// whose key type has its own UnmarshalJSON) is an error naming it: give
// the field a type with its own UnmarshalJSON instead.

// decoders are a Client's two decoders: all keeps every field, lean
// skips metadata.managedFields without building it, for reads that ask
// (ListOptions.SkipManagedFields, a cache's default). Both share the
// strings of metadata that repeat across objects (namespaces, label and
// annotation keys and values, owner apiVersions and kinds, finalizers)
// through the Client's intern table, as they decode them: an object a
// cache keeps then holds no copy of its own.
type decoders struct {
	all, lean *jsondec.Decoder
}

func newDecoders() decoders {
	t := &internTable{strings: map[string]string{}}
	return decoders{
		all: jsondec.New(jsondec.Options{Intern: t.intern, InternField: internedField}),
		lean: jsondec.New(jsondec.Options{Intern: t.intern, InternField: internedField,
			SkipField: func(owner reflect.Type, name string) bool {
				return owner == objectMetaType && name == "managedFields"
			}}),
	}
}

var (
	objectMetaType     = reflect.TypeFor[ObjectMeta]()
	ownerReferenceType = reflect.TypeFor[OwnerReference]()
)

// internedField chooses the fields whose strings repeat across objects.
func internedField(owner reflect.Type, name string) bool {
	switch owner {
	case objectMetaType:
		switch name {
		case "namespace", "generateName", "labels", "annotations", "finalizers":
			return true
		}
	case ownerReferenceType:
		return name == "apiVersion" || name == "kind"
	}
	return false
}

// internTable hands out one copy of each string it is given, so that
// strings that repeat across objects are stored once. It holds at most
// maxInterned strings and forgets them all when full: strings already
// handed out stay shared, and a table filled with one-off values (a label
// holding an index) does not grow without bound. It is safe for
// concurrent use; a lookup takes a read lock.
type internTable struct {
	mu sync.RWMutex
	// strings maps each string to its one copy (itself).
	strings map[string]string
}

// Intern table bounds: the table size, and the longest string worth
// interning (label values are at most 63 bytes; longer strings rarely
// repeat).
const (
	maxInterned     = 4096
	maxInternLength = 64
)

// intern returns the shared copy of the string b holds.
func (t *internTable) intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInternLength {
		return string(b)
	}
	t.mu.RLock()
	s, ok := t.strings[string(b)]
	t.mu.RUnlock()
	if ok {
		return s
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s, ok := t.strings[string(b)]; ok {
		return s
	}
	if len(t.strings) >= maxInterned {
		clear(t.strings)
	}
	s = string(b)
	t.strings[s] = s
	return s
}

// decoder returns the decoder of the objects a read with opts answers.
func (c *Client) decoder(opts ListOptions) *jsondec.Decoder {
	if opts.SkipManagedFields {
		return c.dec.lean
	}
	return c.dec.all
}

// unmarshal decodes raw, which must hold one JSON value and nothing else,
// into obj by jd: keys matched exactly, otherwise json.Unmarshal's result. An *Unstructured is
// decoded member by member, as its UnmarshalJSON would.
func unmarshal(jd *jsondec.Decoder, raw []byte, obj any) error {
	if u, ok := obj.(*Unstructured); ok {
		return u.decode(jd, raw)
	}
	return jd.Unmarshal(raw, obj)
}

// decode is [Unstructured.UnmarshalJSON] in one pass. As there, the last
// of members of one name counts, errors of the ones before it included.
func (u *Unstructured) decode(jd *jsondec.Decoder, raw []byte) error {
	*u = Unstructured{}
	var failed map[string]error // members whose last value failed
	err := jd.Object(raw, func(key []byte, v *jsondec.Value) error {
		var err error
		switch string(key) {
		case "apiVersion":
			u.APIVersion = ""
			err = v.Decode(&u.APIVersion)
		case "kind":
			u.Kind = ""
			err = v.Decode(&u.Kind)
		case "metadata":
			u.ObjectMeta = ObjectMeta{}
			err = v.Decode(&u.ObjectMeta)
		default:
			var val any
			val, err = v.Any()
			if u.Content == nil {
				u.Content = map[string]any{}
			}
			u.Content[string(key)] = val
		}
		if e, ok := err.(*jsondec.Error); ok && e.Type == nil {
			return err // invalid JSON ends the decoding
		}
		if err != nil {
			if failed == nil {
				failed = map[string]error{}
			}
			failed[string(key)] = err
		} else if failed != nil {
			delete(failed, string(key))
		}
		return nil
	})
	for _, e := range failed {
		if err == nil {
			err = e
		}
	}
	return err
}
