// SPDX-License-Identifier: Apache-2.0

package jsondec

import "bytes"

// Extent returns the length of the JSON value at the start of data, white
// space before it included, found by a fast scan that follows strings and
// nesting but does not check the grammar: decoding the bytes does. It is
// how a reader of a stream (a list's items) finds where a value ends
// before decoding it in one pass; complete is false when data ends before
// the value does, and a scalar at the end of data is not complete either
// (a number may go on). Cost: a byte-by-byte walk outside strings and an
// IndexByte jump through each string.
func Extent(data []byte) (n int, complete bool) {
	depth := 0
	for i := 0; i < len(data); {
		switch c := data[i]; {
		case c == '"':
			end, ok := stringEnd(data, i+1)
			if !ok {
				return 0, false
			}
			i = end
			if depth == 0 {
				return i, true
			}
		case c == '{' || c == '[':
			depth++
			i++
		case c == '}' || c == ']':
			depth--
			i++
			if depth <= 0 {
				return i, true
			}
		case depth == 0 && (c == ' ' || c == '\t' || c == '\n' || c == '\r'):
			i++
		case depth == 0: // a literal or a number: up to the next delimiter
			for i < len(data) && !delimiter(data[i]) {
				i++
			}
			return i, i < len(data)
		default:
			i++
		}
	}
	return 0, false
}

// stringEnd returns the offset after the quote that closes the string
// whose content starts at i.
func stringEnd(data []byte, i int) (int, bool) {
	for {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return 0, false
		}
		i += q
		backslashes := 0
		for j := i - 1; j >= 0 && data[j] == '\\'; j-- {
			backslashes++
		}
		i++
		if backslashes%2 == 0 {
			return i, true
		}
	}
}

func delimiter(c byte) bool {
	return c == ',' || c == ']' || c == '}' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '{' || c == '['
}
