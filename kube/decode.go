// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"errors"
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
	// jd decodes the items, when items reads them.
	jd *jsondec.Decoder
	// items reads a list's items while its array is read.
	items *itemReader
}

// newStreamDecoder returns a decoder of the JSON values read from r,
// whose list items jd decodes.
func newStreamDecoder(r io.Reader, jd *jsondec.Decoder) *objectDecoder {
	return &objectDecoder{dec: json.NewDecoder(r), jd: jd}
}

// object decodes the next value of the decoder's input into obj and
// returns the size of its JSON.
func (d *objectDecoder) object(obj any) (int, error) {
	if d.items != nil {
		return d.items.next(obj)
	}
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

// itemReader reads the items of a list's array from r: it finds each
// item's end with jsondec.Extent in its buffer, reading more as needed,
// and decodes the item in one pass. Its buffer holds the item being read
// and what was read after it.
type itemReader struct {
	r   io.Reader
	jd  *jsondec.Decoder
	buf []byte
	off int // the first byte of buf not read yet
}

// more skips what comes before item n (0 for the first): white space
// and, after an item, a comma. It reports false after the closing
// bracket.
func (ir *itemReader) more(n int) (bool, error) {
	needValue := false // after a comma
	for {
		for ir.off < len(ir.buf) && isJSONSpace(ir.buf[ir.off]) {
			ir.off++
		}
		if ir.off == len(ir.buf) {
			if err := ir.fill(); err != nil {
				return false, err
			}
			continue
		}
		switch c := ir.buf[ir.off]; {
		case needValue || n == 0 && c != ']':
			if c == ']' || c == ',' {
				return false, errors.New("invalid JSON between the items: no item")
			}
			return true, nil
		case c == ']':
			ir.off++
			return false, nil
		case c == ',':
			ir.off++
			needValue = true
		default:
			return false, errors.New("invalid JSON between the items: no comma")
		}
	}
}

// next decodes the next item into obj and returns the size of its JSON.
func (ir *itemReader) next(obj any) (int, error) {
	for {
		n, ok := jsondec.Extent(ir.buf[ir.off:])
		if ok {
			raw := ir.buf[ir.off : ir.off+n]
			ir.off += n
			return n, unmarshal(ir.jd, raw, obj)
		}
		if err := ir.fill(); err != nil {
			return 0, err
		}
	}
}

// fill reads more into the buffer, moving what is unread to its start.
// The end of r before the list's end is io.ErrUnexpectedEOF.
func (ir *itemReader) fill() error {
	if ir.off > 0 {
		ir.buf = ir.buf[:copy(ir.buf, ir.buf[ir.off:])]
		ir.off = 0
	}
	if len(ir.buf) == cap(ir.buf) {
		ir.buf = append(ir.buf, make([]byte, max(32<<10, cap(ir.buf)))...)[:len(ir.buf)]
	}
	for {
		n, err := ir.r.Read(ir.buf[len(ir.buf):cap(ir.buf)])
		ir.buf = ir.buf[:len(ir.buf)+n]
		switch {
		case n > 0:
			return nil
		case err == io.EOF:
			return io.ErrUnexpectedEOF
		case err != nil:
			return err
		}
	}
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
