// SPDX-License-Identifier: Apache-2.0

package jsondec

import "reflect"

// This file reads pieces of JSON that a caller holds alone, without a
// Decoder (no plans are needed): a value to check, a string to unquote.
// They are what a reader of a stream (a list's members, a document's
// tokens) uses between the values it decodes.

// Valid checks that data holds one JSON value and nothing else but white
// space, as json.Valid does, and returns an *Error saying where it does
// not. Cost: one pass, nothing built.
func Valid(data []byte) error {
	s := state{data: data}
	err := s.skip()
	if s.space(); err == nil && s.off < len(s.data) {
		err = s.syntax("data after the value")
	}
	return err
}

// Unquote returns the text of the JSON string data holds (white space
// around it allowed) as json.Unmarshal decodes it into a string: escapes
// undone, invalid UTF-8 replaced by U+FFFD. Anything else, null included,
// is an *Error.
func Unquote(data []byte) (string, error) {
	s := state{data: data}
	s.space()
	if s.off >= len(s.data) || s.data[s.off] != '"' {
		start := s.off
		if err := s.skip(); err != nil {
			return "", err
		}
		return "", &Error{Offset: start, Type: reflect.TypeFor[string](), JSON: found(s.data[start])}
	}
	str, err := s.str(false)
	if s.space(); err == nil && s.off < len(s.data) {
		err = s.syntax("data after the value")
	}
	return str, err
}
