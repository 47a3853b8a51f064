// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// CopyLimitError is returned by [ApplyValueLimit] when the values that a
// patch's copy operations copy add up to more than Limit bytes of JSON.
type CopyLimitError struct {
	// Limit is the bound in bytes.
	Limit int64
}

func (e *CopyLimitError) Error() string {
	return fmt.Sprintf("copied values exceed the limit of %d bytes", e.Limit)
}

// copyBudget is what copy operations may still add, in bytes of JSON.
type copyBudget struct {
	limit int64 // <= 0: no limit
	used  int64
}

// take counts v against the budget, and fails when it is spent. The cost
// is O(size of v) up to the point the budget runs out, whatever v's size.
func (b *copyBudget) take(v any) error {
	if b.limit <= 0 {
		return nil
	}
	sz := sizer{left: b.limit - b.used}
	sz.add(v)
	if sz.left < 0 {
		return &CopyLimitError{Limit: b.limit}
	}
	b.used = b.limit - sz.left
	return nil
}

// sizer counts the bytes of a value's compact JSON encoding (as
// encoding/json writes it, without HTML escaping) down from left, and
// stops counting once left is negative.
type sizer struct{ left int64 }

func (s *sizer) add(v any) {
	if s.left < 0 {
		return
	}
	switch x := v.(type) {
	case nil:
		s.left -= 4
	case bool:
		s.left -= 5
		if x {
			s.left++
		}
	case string:
		s.str(x)
	case map[string]any:
		if x == nil {
			s.left -= 4
			return
		}
		s.left -= 2 + max(int64(len(x))-1, 0) // braces, commas
		for k, e := range x {
			s.str(k)
			s.left-- // colon
			s.add(e)
			if s.left < 0 {
				return
			}
		}
	case []any:
		if x == nil {
			s.left -= 4
			return
		}
		s.left -= 2 + max(int64(len(x))-1, 0)
		for _, e := range x {
			s.add(e)
			if s.left < 0 {
				return
			}
		}
	case float64:
		s.left -= floatSize(x)
	default:
		if t, ok := numberText(v); ok {
			s.left -= int64(len(t))
			return
		}
		b, err := json.Marshal(v)
		if err != nil {
			return // cannot be encoded: adds nothing to an encoding
		}
		s.left -= int64(len(b))
	}
}

// floatSize is the length of f as encoding/json writes it: %f
// notation, or %e (with a 1-digit exponent where it fits) for magnitudes
// below 1e-6 or from 1e21. NaN and infinities, which it refuses, count 0.
func floatSize(f float64) int64 {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	var buf [32]byte
	b := strconv.AppendFloat(buf[:0], f, format, -1, 64)
	n := int64(len(b))
	if format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		n-- // e-07 is written e-7
	}
	return n
}

// str counts a JSON string: quotes, and escapes as encoding/json writes
// them (\" \\ \b \f \n \r \t, \u00XX for other control characters,
// \ufffd for invalid UTF-8, \u2028 and \u2029).
func (s *sizer) str(x string) {
	n := int64(2)
	for i := 0; i < len(x); {
		c := x[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(x[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			n += 6
		} else {
			n += int64(size)
		}
		i += size
	}
	s.left -= n
}
