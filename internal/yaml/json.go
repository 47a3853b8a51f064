// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// jsonReader builds a Node tree from a JSON document token by token, so
// that nodes keep their positions and nesting stays within MaxDepth.
type jsonReader struct {
	data   []byte
	dec    *json.Decoder
	starts []int // offsets at which lines start
}

// parseJSON reads one JSON value; anything but white space after it is an
// error. Numbers and booleans become unquoted scalars, strings quoted ones.
func parseJSON(data []byte) (*Node, error) {
	r := &jsonReader{data: data, dec: json.NewDecoder(bytes.NewReader(data)), starts: []int{0}}
	r.dec.UseNumber()
	for i, c := range data {
		if c == '\n' {
			r.starts = append(r.starts, i+1)
		}
	}
	n, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if off := r.tokenStart(); off < len(data) {
		return nil, r.errAt(off, "unexpected content after the JSON document")
	}
	return n, nil
}

// value reads the next value.
func (r *jsonReader) value(depth int) (*Node, error) {
	off := r.tokenStart()
	line, col := r.position(off)
	if depth > MaxDepth {
		return nil, r.errAt(off, "nesting deeper than %d levels is not supported", MaxDepth)
	}
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.wrap(err)
	}
	n := &Node{Line: line, Column: col}
	switch t := tok.(type) {
	case nil:
		n.Kind = Null
	case bool:
		n.Kind, n.Text = Scalar, "false"
		if t {
			n.Text = "true"
		}
	case json.Number:
		n.Kind, n.Text = Scalar, t.String()
	case string:
		n.Kind, n.Text, n.Quoted = Scalar, t, true
	case json.Delim:
		switch t {
		case '{':
			n.Kind = Mapping
			seen := make(map[string]bool)
			for r.dec.More() {
				koff := r.tokenStart()
				ktok, err := r.dec.Token()
				if err != nil {
					return nil, r.wrap(err)
				}
				key, _ := ktok.(string) // the decoder allows only strings here
				if seen[key] {
					return nil, r.errAt(koff, "duplicate key %q", key)
				}
				seen[key] = true
				v, err := r.value(depth + 1)
				if err != nil {
					return nil, err
				}
				kl, kc := r.position(koff)
				n.Entries = append(n.Entries, Entry{Key: key, Line: kl, Column: kc, Value: v})
			}
		case '[':
			n.Kind = Sequence
			for r.dec.More() {
				v, err := r.value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, v)
			}
		}
		if _, err := r.dec.Token(); err != nil { // the closing delimiter
			return nil, r.wrap(err)
		}
	}
	return n, nil
}

// tokenStart returns the offset of the next token: past the last one read,
// white space and separators.
func (r *jsonReader) tokenStart() int {
	off := int(r.dec.InputOffset())
	for off < len(r.data) && strings.IndexByte(" \t\r\n,:", r.data[off]) >= 0 {
		off++
	}
	return off
}

// position converts a byte offset to a line and a column, counting from 1.
func (r *jsonReader) position(off int) (line, col int) {
	i := sort.Search(len(r.starts), func(i int) bool { return r.starts[i] > off }) - 1
	return i + 1, off - r.starts[i] + 1
}

// errAt returns a *SyntaxError at byte offset off.
func (r *jsonReader) errAt(off int, format string, args ...any) error {
	l, c := r.position(off)
	return &SyntaxError{Line: l, Column: c, Msg: fmt.Sprintf(format, args...)}
}

// wrap turns a decoder error into a *SyntaxError.
func (r *jsonReader) wrap(err error) error {
	se, isSyntax := errs.As[*json.SyntaxError](err)
	switch {
	case isSyntax:
		return r.errAt(max(int(se.Offset)-1, 0), "invalid JSON: %s", se.Error())
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return r.errAt(len(r.data), "invalid JSON: unexpected end of input")
	}
	return r.errAt(int(r.dec.InputOffset()), "invalid JSON: %s", err.Error())
}
