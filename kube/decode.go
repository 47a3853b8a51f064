// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"io"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// Objects come off the wire in two ways. A list's body is a stream that
// [Client.List] and [Client.ListEach] read item by item with an
// objectDecoder (encoding/json's Decoder, whose buffer and scanner state
// are reused from item to item). A watch event's object and the answer
// to a read or a write are whole in memory: unmarshal decodes them in one
// pass with internal/jsondec, whose plans (one per Go type, built on
// first use) the Client keeps.
//
// Neither bounds what it reads: a list's body reaches the stream decoder
// through a stepReader, which bounds each item, a watch's event is
// bounded by the line the Watcher reads and an answer by readLimited, all
// at [ClientOptions.MaxObjectSize]. Errors quote no value: jsonError
// rewrites encoding/json's; jsondec's name the JSON path and the Go type.

// objectDecoder decodes the objects of a list's body, one after another.
// It is used by one goroutine at a time.
type objectDecoder struct {
	dec *json.Decoder
}

// newStreamDecoder returns a decoder of the JSON values read from r.
func newStreamDecoder(r io.Reader) *objectDecoder {
	return &objectDecoder{dec: json.NewDecoder(r)}
}

// object decodes the next value of the decoder's input into obj and
// returns the size of its JSON.
func (d *objectDecoder) object(obj any) (int, error) {
	start := d.dec.InputOffset()
	err := d.dec.Decode(obj)
	return int(d.dec.InputOffset() - start), err
}

// newJSONDecoder returns the decoder of a Client's answers and watch
// events.
func newJSONDecoder() *jsondec.Decoder {
	return jsondec.New(jsondec.Options{Fallback: json.Unmarshal})
}

// unmarshal decodes raw, which must hold one JSON value and nothing else,
// into obj, with json.Unmarshal's result, by jd (nil: by json.Unmarshal).
// An *Unstructured is decoded member by member, as its UnmarshalJSON
// would.
func unmarshal(jd *jsondec.Decoder, raw []byte, obj any) error {
	if jd == nil {
		return json.Unmarshal(raw, obj)
	}
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
