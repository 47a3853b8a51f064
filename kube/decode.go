// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"errors"
	"io"
	"sync/atomic"
)

// objectDecoder is where objects come off the wire: it decodes the objects
// of one answer of the server, one after another, with one json.Decoder
// whose buffer and scanner state are reused from object to object.
// (json.Unmarshal makes both anew for every object: garbage that, during
// the sync of many objects, raises the peak of the heap.)
//
// Its input is either a stream, a list's body that [Client.List] and
// [Client.ListEach] read item by item (object), or the objects of a
// watch's events, which a [Watcher] hands it one at a time (decode,
// through [WatchEvent.Decode]). It does not bound what it reads: a list's
// body reaches it through a stepReader, which bounds each item, and a
// watch's event is bounded by the line the Watcher reads, both at
// [ClientOptions.MaxObjectSize]. Its errors are encoding/json's; the
// callers rewrite them with jsonError, which quotes no value.
//
// It is used by one goroutine at a time. decode is safe to call from
// several (events are values, and may be decoded anywhere): a call that
// finds the decoder busy uses json.Unmarshal instead.
type objectDecoder struct {
	// busy is set while a decode uses dec.
	busy atomic.Bool
	dec  *json.Decoder
	// in is what dec reads in decode's mode; nil for a stream.
	in *feed
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

// decode decodes raw, which must hold one JSON value and nothing else,
// into obj, as json.Unmarshal does (and with its errors). A nil
// *objectDecoder uses json.Unmarshal.
func (d *objectDecoder) decode(raw []byte, obj any) error {
	if d == nil || !d.busy.CompareAndSwap(false, true) {
		return json.Unmarshal(raw, obj)
	}
	defer d.busy.Store(false)
	if d.dec == nil {
		d.in = &feed{}
		d.dec = json.NewDecoder(d.in)
	}
	d.in.next = raw
	_, err := d.object(obj)
	leftover := err == nil && (len(d.in.next) > 0 || d.dec.InputOffset() != d.in.fed)
	if leftover {
		// Bytes after the value: JSON whitespace is fine; anything
		// else (a vertical tab too, which bytes.TrimSpace would take
		// for space) fails, as with json.Unmarshal.
		rest, _ := io.ReadAll(d.dec.Buffered())
		if !onlyJSONSpace(rest) || !onlyJSONSpace(d.in.next) {
			err = errors.New("invalid data after the object")
		}
	}
	if err != nil || leftover {
		d.dec = nil // start afresh: a json.Decoder that failed keeps failing
	}
	d.in.next = nil
	return err
}

// onlyJSONSpace reports whether b holds JSON whitespace alone: space,
// tab, newline and carriage return.
func onlyJSONSpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// feed is the input of a decoder in decode's mode: the object being
// decoded.
type feed struct {
	// next is what the decoder reads next.
	next []byte
	// fed counts the bytes handed to the decoder.
	fed int64
}

func (f *feed) Read(p []byte) (int, error) {
	if len(f.next) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	f.fed += int64(n)
	return n, nil
}
