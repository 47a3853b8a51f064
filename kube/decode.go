// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"reflect"

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
// (ListOptions.SkipManagedFields, a cache's default).
type decoders struct {
	all, lean *jsondec.Decoder
}

func newDecoders() decoders {
	return decoders{
		all: jsondec.New(jsondec.Options{}),
		lean: jsondec.New(jsondec.Options{SkipField: func(owner reflect.Type, name string) bool {
			return owner == objectMetaType && name == "managedFields"
		}}),
	}
}

var objectMetaType = reflect.TypeFor[ObjectMeta]()

// decoder returns the decoder of the objects a read with opts answers.
func (c *Client) decoder(opts ListOptions) *jsondec.Decoder {
	if opts.SkipManagedFields {
		return c.dec.lean
	}
	return c.dec.all
}

// unmarshal decodes raw, which must hold one JSON value and nothing else,
// into obj, with json.Unmarshal's result, by jd. An *Unstructured is
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
