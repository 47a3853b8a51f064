// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"fmt"
	"io"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// This file reads a list's answer as it arrives, with no second scan:
// a listReader holds a buffer of its own, finds the end of each piece
// (a member's key or value, an item) with jsondec.Extent, reading more
// as needed, and hands the piece's bytes to jsondec, which decodes them
// in one pass. The list's own members are matched to a List's fields
// exactly, as jsondec matches keys and as the API server and client-go do
// ("Items" is an unknown member, skipped), so that ListEach and List read
// what jsondec would read decoding the whole list.

// errStepTooLarge is a piece larger than the reader's step; an answer
// larger than its total is [ErrListTooLarge].
var errStepTooLarge = errors.New("step too large")

// startLen is how much of an item's start names it in an error.
const startLen = 1 << 10

// listReader reads a list's answer from r. Each piece may be at most
// step bytes, so that its buffer holds one piece and one read beyond it;
// the answer at most total bytes (negative: no bound). It is used by one
// goroutine.
type listReader struct {
	r     io.Reader
	jd    *jsondec.Decoder
	step  int
	total int64 // what is left of the bound (negative: no bound)
	read  int64 // the bytes read of the answer
	buf   []byte
	off   int // the first byte of buf not read yet
	piece int // where the piece being read starts in buf
}

// fill reads more into the buffer, keeping the piece being read and
// what follows it. It returns io.EOF at the end of r.
func (lr *listReader) fill() error {
	if keep := min(lr.piece, lr.off); keep > 0 {
		lr.buf = lr.buf[:copy(lr.buf, lr.buf[keep:])]
		lr.off -= keep
		lr.piece -= keep
	}
	room := lr.step + 1 - (len(lr.buf) - lr.piece) // one byte more than a piece may hold
	switch {
	case room <= 0:
		return errStepTooLarge
	case lr.total == 0:
		return ErrListTooLarge
	}
	if len(lr.buf) == cap(lr.buf) {
		lr.buf = append(lr.buf, make([]byte, min(max(32<<10, cap(lr.buf)), room))...)[:len(lr.buf)]
	}
	p := lr.buf[len(lr.buf):cap(lr.buf)]
	p = p[:min(len(p), room)]
	if lr.total > 0 && int64(len(p)) > lr.total {
		p = p[:lr.total]
	}
	for {
		n, err := lr.r.Read(p)
		lr.buf = lr.buf[:len(lr.buf)+n]
		lr.read += int64(n)
		if lr.total > 0 {
			lr.total -= int64(n)
		}
		switch {
		case n > 0:
			return nil
		case err != nil:
			return err
		}
	}
}

// next returns the next byte that is not white space, without reading
// it; io.EOF at the end of the answer.
func (lr *listReader) next() (byte, error) {
	for {
		for lr.off < len(lr.buf) {
			switch c := lr.buf[lr.off]; c {
			case ' ', '\t', '\n', '\r':
				lr.off++
			default:
				return c, nil
			}
		}
		if err := lr.fill(); err != nil {
			return 0, err
		}
	}
}

// inside is next for a reader inside the list, where the end of the
// answer is io.ErrUnexpectedEOF.
func (lr *listReader) inside() (byte, error) {
	c, err := lr.next()
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return c, err
}

// expect reads c, the next byte that is not white space.
func (lr *listReader) expect(c byte, what string) error {
	got, err := lr.inside()
	switch {
	case err != nil:
		return err
	case got != c:
		return fmt.Errorf("invalid JSON: got %s, want %c (%s)", jsonKind(got), c, what)
	}
	lr.off++
	return nil
}

// value reads the next value whole and returns its bytes (white space
// before it included), valid until the next read.
func (lr *listReader) value() ([]byte, error) {
	lr.piece = lr.off
	for {
		if n, ok := jsondec.Extent(lr.buf[lr.off:]); ok {
			if n > lr.step {
				return nil, errStepTooLarge
			}
			v := lr.buf[lr.off : lr.off+n]
			lr.off += n
			return v, nil
		}
		if err := lr.fill(); err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		} else if err != nil {
			return nil, err
		}
	}
}

// start is the start of the piece being read, which names an item in
// an error.
func (lr *listReader) start() []byte {
	return lr.buf[lr.piece:min(len(lr.buf), lr.piece+startLen)]
}

// list reads the answer as d says. It returns the index of the item it
// was reading when it failed, -1 when it was not in an item. Its errors
// quote no value; those of d.item pass as they are.
func (lr *listReader) list(d listDecoding) (item int, err error) {
	if err := lr.expect('{', "a list"); err != nil {
		return -1, err
	}
	sawItems := false
	for n := 0; ; n++ {
		c, err := lr.inside()
		if err != nil {
			return -1, err
		}
		if c == '}' {
			lr.off++
			break
		}
		if n > 0 {
			if err := lr.expect(',', "after a member"); err != nil {
				return -1, err
			}
		}
		raw, err := lr.value()
		if err != nil {
			return -1, err
		}
		name, err := jsondec.Unquote(raw)
		if err != nil {
			return -1, fmt.Errorf("member %d: the key is not a string: %w", n, err)
		}
		if err := lr.expect(':', "after a key"); err != nil {
			return -1, fmt.Errorf("field %s: %w", name, err)
		}
		if name == "items" {
			// A second items array cannot be read as json.Unmarshal
			// reads it (the last one wins): it is refused.
			if sawItems {
				return -1, fmt.Errorf("field %s: items given twice", name)
			}
			sawItems = true
			if i, err := lr.items(d); err != nil {
				return i, err
			}
			continue
		}
		if raw, err = lr.value(); err != nil {
			return -1, err
		}
		switch {
		case name == "metadata":
			err = lr.jd.Unmarshal(raw, d.meta)
		case d.typeMeta != nil && name == "apiVersion":
			err = lr.jd.Unmarshal(raw, &d.typeMeta.APIVersion)
		case d.typeMeta != nil && name == "kind":
			err = lr.jd.Unmarshal(raw, &d.typeMeta.Kind)
		default: // apiVersion and kind for ListEach, whatever their type
			err = jsondec.Valid(raw)
		}
		if err != nil {
			return -1, fmt.Errorf("field %s: %w", name, err)
		}
	}
	switch c, err := lr.next(); {
	case err == io.EOF:
		return -1, nil
	case err != nil:
		return -1, err
	default:
		return -1, fmt.Errorf("%s after the list", jsonKind(c))
	}
}

// items reads the items array (or null), handing each item's bytes to
// d.item.
func (lr *listReader) items(d listDecoding) (int, error) {
	c, err := lr.inside()
	if err != nil {
		return -1, err
	}
	if c != '[' {
		raw, err := lr.value()
		if err == nil && c == 'n' {
			err = jsondec.Valid(raw)
		} else if err == nil {
			err = fmt.Errorf("items is %s, not an array", jsonKind(c))
		}
		return -1, err
	}
	lr.off++
	if d.items != nil {
		d.items()
	}
	for n := 0; ; n++ {
		c, err := lr.inside()
		if err != nil {
			return -1, err
		}
		if c == ']' {
			lr.off++
			return -1, nil
		}
		if c == ',' && n == 0 {
			return -1, errors.New("invalid JSON between the items: no item")
		}
		if n > 0 {
			if c != ',' {
				return -1, errors.New("invalid JSON between the items: no comma")
			}
			lr.off++
			if c, err = lr.next(); err == nil && (c == ']' || c == ',') {
				return -1, errors.New("invalid JSON between the items: no item")
			}
		}
		raw, err := lr.value()
		if err != nil {
			return n, err
		}
		if err := d.item(raw); err != nil {
			return n, err
		}
	}
}
