// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// jsonReader builds a Node tree from a JSON document piece by piece, so
// that nodes keep their positions and nesting stays within MaxDepth.
// Strings are unquoted, and scalars checked, by internal/jsondec, as
// encoding/json reads them.
type jsonReader struct {
	data   []byte
	off    int   // the next byte to read
	starts []int // offsets at which lines start
}

// parseJSON reads one JSON value; anything but white space after it is an
// error. Numbers and booleans become unquoted scalars, strings quoted ones.
func parseJSON(data []byte) (*Node, error) {
	r := &jsonReader{data: data, starts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			r.starts = append(r.starts, i+1)
		}
	}
	n, err := r.value(0)
	if err != nil {
		return nil, err
	}
	if r.space(); r.off < len(data) {
		return nil, r.errAt(r.off, "unexpected content after the JSON document")
	}
	return n, nil
}

// value reads the next value.
func (r *jsonReader) value(depth int) (*Node, error) {
	r.space()
	off := r.off
	if depth > MaxDepth {
		return nil, r.errAt(off, "nesting deeper than %d levels is not supported", MaxDepth)
	}
	if off >= len(r.data) {
		return nil, r.errAt(off, "invalid JSON: unexpected end of input")
	}
	line, col := r.position(off)
	n := &Node{Line: line, Column: col}
	switch c := r.data[off]; c {
	case '{':
		n.Kind = Mapping
		seen := make(map[string]bool)
		r.off++
		for i := 0; r.next('}'); i++ {
			if err := r.sep(i, '}'); err != nil {
				return nil, err
			}
			koff := r.off
			if koff < len(r.data) && r.data[koff] != '"' {
				return nil, r.errAt(koff, "invalid JSON: an object's key is not a string")
			}
			key, err := r.str()
			if err != nil {
				return nil, err
			}
			if seen[key] {
				return nil, r.errAt(koff, "duplicate key %q", key)
			}
			seen[key] = true
			if r.space(); r.off >= len(r.data) || r.data[r.off] != ':' {
				return nil, r.unexpected("a colon after an object's key")
			}
			r.off++
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			kl, kc := r.position(koff)
			n.Entries = append(n.Entries, Entry{Key: key, Line: kl, Column: kc, Value: v})
		}
	case '[':
		n.Kind = Sequence
		r.off++
		for i := 0; r.next(']'); i++ {
			if err := r.sep(i, ']'); err != nil {
				return nil, err
			}
			v, err := r.value(depth + 1)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, v)
		}
	case '"':
		text, err := r.str()
		if err != nil {
			return nil, err
		}
		n.Kind, n.Text, n.Quoted = Scalar, text, true
	default: // a number or a literal, up to the next delimiter
		end, _ := jsondec.Extent(r.data[off:])
		tok := r.data[off : off+end]
		if err := jsondec.Valid(tok); err != nil || end == 0 {
			return nil, r.errAt(off, "invalid JSON: %s is not a value", jsonQuote(tok))
		}
		r.off += end
		n.Kind, n.Text = Scalar, string(tok)
		if c == 'n' {
			n.Kind, n.Text = Null, ""
		}
	}
	return n, nil
}

// next reports whether another element of an object or array comes,
// false after its closing delimiter end, which it reads.
func (r *jsonReader) next(end byte) bool {
	r.space()
	if r.off < len(r.data) && r.data[r.off] == end {
		r.off++
		return false
	}
	return true // what else comes, the end of input included, is sep's to judge
}

// sep reads the comma before element i (none before the first).
func (r *jsonReader) sep(i int, end byte) error {
	if i == 0 {
		if r.off >= len(r.data) {
			return r.unexpected("")
		}
		return nil
	}
	if r.off >= len(r.data) || r.data[r.off] != ',' {
		return r.unexpected(fmt.Sprintf("a comma or '%c'", end))
	}
	r.off++
	r.space()
	return nil
}

// str reads the string at the offset.
func (r *jsonReader) str() (string, error) {
	n, ok := jsondec.Extent(r.data[r.off:])
	if !ok {
		return "", r.errAt(len(r.data), "invalid JSON: unexpected end of input")
	}
	s, err := jsondec.Unquote(r.data[r.off : r.off+n])
	if je, isJSON := err.(*jsondec.Error); isJSON {
		return "", r.errAt(r.off+je.Offset, "invalid JSON: %s", je.JSON)
	}
	r.off += n
	return s, err
}

// space skips white space.
func (r *jsonReader) space() {
	for r.off < len(r.data) && strings.IndexByte(" \t\r\n", r.data[r.off]) >= 0 {
		r.off++
	}
}

// unexpected is the error for what is at the offset where want belongs.
func (r *jsonReader) unexpected(want string) error {
	if r.off >= len(r.data) {
		return r.errAt(len(r.data), "invalid JSON: unexpected end of input")
	}
	return r.errAt(r.off, "invalid JSON: %s where %s belongs", jsonQuote(r.data[r.off:r.off+1]), want)
}

// jsonQuote quotes a piece of a document, cut at 20 bytes.
func jsonQuote(b []byte) string {
	if len(b) > 20 {
		return strconv.Quote(string(b[:20])) + "..."
	}
	return strconv.Quote(string(b))
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
