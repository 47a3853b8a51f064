// SPDX-License-Identifier: Apache-2.0

package jsondec

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// This file reads the pieces of JSON: white space, strings, numbers,
// literals, the punctuation of objects and arrays, and whole values to
// skip. Every piece is checked against the JSON grammar as it is read.

// space skips JSON white space.
func (s *state) space() {
	for s.off < len(s.data) {
		switch s.data[s.off] {
		case ' ', '\t', '\n', '\r':
			s.off++
		default:
			return
		}
	}
}

// syntax is the error for invalid JSON at the current offset.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (s *state) syntax(what string) error {
	if s.off >= len(s.data) {
		what = "unexpected end of input"
	}
	return &Error{Offset: s.off, JSON: what}
}

// open reads the '{' or '[' at the offset.
func (s *state) open() error {
	s.off++
	s.depth++
	if s.depth > maxDepth {
		return s.syntax("nested too deep")
	}
	return nil
}

// member reads what comes before the value of an object's member n (0
// for the first): the comma, the key and the colon. It returns the key,
// unescaped (valid until the next string is read), or more false after
// the closing brace.
func (s *state) member(n int) (key []byte, more bool, err error) {
	s.space()
	if s.off < len(s.data) && s.data[s.off] == '}' {
		s.off++
		s.depth--
		return nil, false, nil
	}
	if n > 0 {
		if s.off >= len(s.data) || s.data[s.off] != ',' {
			return nil, false, s.syntax("invalid character after object member")
		}
		s.off++
		s.space()
	}
	if s.off >= len(s.data) || s.data[s.off] != '"' {
		return nil, false, s.syntax("invalid character looking for object key")
	}
	key, err = s.strBytes()
	if err != nil {
		return nil, false, err
	}
	s.space()
	if s.off >= len(s.data) || s.data[s.off] != ':' {
		return nil, false, s.syntax("invalid character after object key")
	}
	s.off++
	return key, true, nil
}

// element reads what comes before an array's element i (0 for the
// first): the comma. more is false after the closing bracket.
func (s *state) element(i int) (more bool, err error) {
	s.space()
	if s.off < len(s.data) && s.data[s.off] == ']' {
		s.off++
		s.depth--
		return false, nil
	}
	if i > 0 {
		if s.off >= len(s.data) || s.data[s.off] != ',' {
			return false, s.syntax("invalid character after array element")
		}
		s.off++
	}
	return true, nil
}

// skip reads the next value without keeping it.
func (s *state) skip() error {
	s.space()
	if s.off >= len(s.data) {
		return s.syntax("")
	}
	switch c := s.data[s.off]; c {
	case '{':
		if err := s.open(); err != nil {
			return err
		}
		for n := 0; ; n++ {
			_, more, err := s.member(n)
			if err != nil || !more {
				return err
			}
			if err := s.skip(); err != nil {
				return err
			}
		}
	case '[':
		if err := s.open(); err != nil {
			return err
		}
		for i := 0; ; i++ {
			more, err := s.element(i)
			if err != nil || !more {
				return err
			}
			if err := s.skip(); err != nil {
				return err
			}
		}
	case '"':
		_, _, _, err := s.scanString()
		return err
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, err := s.number()
	return err
}

// literal reads word, one of true, false and null.
func (s *state) literal(word string) error {
	end := s.off + len(word)
	if end > len(s.data) || string(s.data[s.off:end]) != word {
		for i := 0; i < len(word) && s.off < len(s.data) && s.data[s.off] == word[i]; i++ {
			s.off++
		}
		return s.syntax("invalid character in literal")
	}
	s.off = end
	return nil
}

// number reads a number and returns its text.
func (s *state) number() ([]byte, error) {
	d, i := s.data, s.off
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		i = digits(d, i)
	default:
		s.off = i
		return nil, s.syntax("invalid character looking for a value")
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.off = i
			return nil, s.syntax("invalid character after decimal point")
		}
		i = digits(d, i)
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || d[i] < '0' || d[i] > '9' {
			s.off = i
			return nil, s.syntax("invalid character in exponent")
		}
		i = digits(d, i)
	}
	num := d[s.off:i]
	s.off = i
	return num, nil
}

func digits(d []byte, i int) int {
	for i < len(d) && d[i] >= '0' && d[i] <= '9' {
		i++
	}
	return i
}

// Classes of bytes in a string.
const (
	plain     = iota
	quote     // the end of the string
	backslash // an escape
	control   // not allowed unescaped
	high      // part of a multi-byte rune, or invalid UTF-8
)

var class = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c == '"':
			t[c] = quote
		case c == '\\':
			t[c] = backslash
		case c < 0x20:
			t[c] = control
		case c >= utf8.RuneSelf:
			t[c] = high
		}
	}
	return t
}()

// scanString reads the string at the offset and returns its content,
// still escaped, whether it holds escapes and whether it holds bytes
// beyond ASCII.
func (s *state) scanString() (content []byte, escaped, nonASCII bool, err error) {
	d := s.data
	start := s.off + 1
	for i := start; ; {
		for i < len(d) && class[d[i]] == plain {
			i++
		}
		if i >= len(d) {
			s.off = i
			return nil, false, false, s.syntax("")
		}
		switch class[d[i]] {
		case quote:
			s.off = i + 1
			return d[start:i], escaped, nonASCII, nil
		case control:
			s.off = i
			return nil, false, false, s.syntax("invalid character in string")
		case high:
			nonASCII = true
			i++
		case backslash:
			escaped = true
			i++
			if i >= len(d) {
				s.off = i
				return nil, false, false, s.syntax("")
			}
			switch d[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				i++
				for range 4 {
					if i >= len(d) || hex(d[i]) < 0 {
						s.off = i
						return nil, false, false, s.syntax("invalid character in \\u escape")
					}
					i++
				}
			default:
				s.off = i
				return nil, false, false, s.syntax("invalid escape in string")
			}
		}
	}
}

// strBytes reads a string and returns it unescaped, invalid UTF-8
// replaced: a part of the input, or of s.buf until the next call.
func (s *state) strBytes() ([]byte, error) {
	content, escaped, nonASCII, err := s.scanString()
	if err != nil || !escaped && (!nonASCII || utf8.Valid(content)) {
		return content, err
	}
	s.buf = unescape(s.buf[:0], content)
	return s.buf, nil
}

// str reads a string.
func (s *state) str(intern bool) (string, error) {
	b, err := s.strBytes()
	if err != nil {
		return "", err
	}
	return s.makeString(b, intern), nil
}

// makeString returns b as a string, interned when intern says so.
func (s *state) makeString(b []byte, intern bool) string {
	if intern && s.intern != nil {
		return s.intern(b)
	}
	return string(b)
}

// unescape appends the text of a string's content, checked by
// scanString, as encoding/json reads it: escapes undone, a \u escape of
// half a surrogate pair and each byte of invalid UTF-8 replaced by
// U+FFFD.
func unescape(out, in []byte) []byte {
	for i := 0; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			e := in[i+1]
			i += 2
			switch e {
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r := u4(in[i:])
				i += 4
				if utf16.IsSurrogate(r) {
					r2 := rune(-1)
					if i+6 <= len(in) && in[i] == '\\' && in[i+1] == 'u' {
						r2 = u4(in[i+2:])
					}
					if dec := utf16.DecodeRune(r, r2); dec != unicode.ReplacementChar {
						r = dec
						i += 6
					} else {
						r = unicode.ReplacementChar
					}
				}
				out = utf8.AppendRune(out, r)
			default: // '"', '\\', '/'
				out = append(out, e)
			}
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n == 1 {
				out = utf8.AppendRune(out, r)
			} else {
				out = append(out, in[i:i+n]...)
			}
			i += n
		}
	}
	return out
}

// u4 reads the four hex digits of a \u escape.
func u4(b []byte) rune {
	var r rune
	for _, c := range b[:4] {
		r = r<<4 | rune(hex(c))
	}
	return r
}

// hex is the value of the hex digit c, -1 when it is none.
func hex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return int(c - 'A' + 10)
	}
	return -1
}
