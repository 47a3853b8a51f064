// SPDX-License-Identifier: Apache-2.0

package unstructured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// This file holds numbers as the real server's unstructured form does: a
// JSON number that is an integer in int64's range is an int64, kept
// exactly (an int64 field holds 9007199254740993, which a float64 would
// round); any other number ("1.5", "1.0", "1e3", 2^63) is a float64. The
// encoder writes an int64 as its digits and a float64 as encoding/json
// does, so "1.0" is served as 1, as by the real server.

// DecodeExact decodes raw as one JSON value with exact integers. Its
// errors are encoding/json's for the same input. A document whose numbers
// are all integers of at most 15 digits (most objects: float64 holds
// them exactly) costs json.Unmarshal, one scan of raw and a walk that
// makes them int64; any other costs, over that, a copy of raw and one
// string per number.
func DecodeExact(raw []byte, v *any) error {
	switch plainNumbers(raw) {
	case noNumbers:
		return json.Unmarshal(raw, v)
	case smallIntegers:
		if err := json.Unmarshal(raw, v); err != nil {
			return err
		}
		*v = floatsToInts(*v)
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	err := dec.Decode(v)
	if err == nil && len(bytes.TrimLeft(raw[dec.InputOffset():], " \t\r\n")) > 0 {
		err = json.Unmarshal(raw, new(any)) // its error for what follows the value
	}
	if err == nil {
		if *v, err = ExactNumbers(*v); err != nil {
			return err
		}
	}
	if err != nil {
		// encoding/json's wording: Unmarshal checks the whole input
		// first, and an empty one is not io.EOF there.
		var probe any
		if uerr := json.Unmarshal(raw, &probe); uerr != nil {
			return uerr
		}
		return err
	}
	return nil
}

// ExactNumbers replaces the json.Numbers in v, in place, by int64 or
// float64 (see the file comment) and returns v. A number out of float64's
// range is an error, as for encoding/json.
func ExactNumbers(v any) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			switch x.(type) {
			case map[string]any, []any, json.Number:
				n, err := ExactNumbers(x)
				if err != nil {
					return nil, err
				}
				t[k] = n
			}
		}
	case []any:
		for i, x := range t {
			n, err := ExactNumbers(x)
			if err != nil {
				return nil, err
			}
			t[i] = n
		}
	case json.Number:
		return parseNumber(string(t))
	}
	return v, nil
}

// parseNumber reads a JSON number literal as the real server does.
func parseNumber(s string) (any, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return nil, NumberError("json: cannot unmarshal number " + s + " into Go value of type float64")
	}
	return f, nil
}

// NumberError is a well-formed number out of float64's range, which the
// real server refuses as a body it cannot decode into the kind (not as
// bad JSON), in encoding/json's words.
type NumberError string

func (e NumberError) Error() string { return string(e) }

// NumberValue returns a decoded number as a float64 (an int64 rounded to
// the nearest), ok false for anything else.
func NumberValue(v any) (float64, bool) {
	switch t := v.(type) {
	case int64:
		return float64(t), true
	case float64:
		return t, true
	}
	return 0, false
}

// IntegerValue returns a decoded number without a fraction as an int64,
// ok false for anything else (a fraction, out of int64's range).
func IntegerValue(v any) (int64, bool) {
	switch t := v.(type) {
	case int64:
		return t, true
	case float64:
		if t == math.Trunc(t) && t >= -(1<<63) && t < 1<<63 {
			return int64(t), true
		}
	}
	return 0, false
}

// DecodeObjectOrNull decodes an object (a request's, a merge or strategic
// merge patch), nil for null, with exact integers.
func DecodeObjectOrNull(body []byte) (map[string]any, error) {
	var v any
	if err := DecodeExact(body, &v); err != nil {
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	o, ok := v.(map[string]any)
	if !ok {
		return nil, json.Unmarshal(body, new(map[string]any)) // encoding/json's error for it
	}
	return o, nil
}

// What plainNumbers finds in a document.
const (
	noNumbers     = iota // no number literal
	smallIntegers        // integer literals of at most 15 digits alone
	otherNumbers         // a fraction, an exponent or a longer integer
)

// plainNumbers scans raw's number literals (outside strings). Invalid
// JSON may give any answer: the decoding reports it.
func plainNumbers(raw []byte) int {
	found := noNumbers
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; {
		case c == '"':
			for i++; i < len(raw) && raw[i] != '"'; i++ {
				if raw[i] == '\\' {
					i++
				}
			}
		case c == '-' || c >= '0' && c <= '9':
			digits := 0
			for ; i < len(raw); i++ {
				c := raw[i]
				if c >= '0' && c <= '9' {
					digits++
				} else if c != '-' {
					break
				}
			}
			if digits > 15 || i < len(raw) && (raw[i] == '.' || raw[i] == 'e' || raw[i] == 'E') {
				return otherNumbers
			}
			found = smallIntegers
			i--
		}
	}
	return found
}

// floatsToInts makes the float64s of v (integers of at most 15 digits,
// as plainNumbers found) int64s, in place, and returns v.
func floatsToInts(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			switch x.(type) {
			case map[string]any, []any, float64:
				t[k] = floatsToInts(x)
			}
		}
	case []any:
		for i, x := range t {
			t[i] = floatsToInts(x)
		}
	case float64:
		return int64(t)
	}
	return v
}

// FromValue turns raw JSON ([]byte, json.RawMessage) or any value that
// encodes to a JSON object (a map, a kube type) into a fresh map.
func FromValue(object any) (map[string]any, error) {
	var raw []byte
	switch v := object.(type) {
	case []byte:
		raw = v
	case json.RawMessage:
		raw = v
	case string:
		raw = []byte(v)
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("encode the object: %w", err)
		}
	}
	o, err := DecodeObjectOrNull(raw)
	if err == nil && o == nil {
		err = fmt.Errorf("the body is not a JSON object")
	}
	if err != nil {
		return nil, fmt.Errorf("decode the object: %w", err)
	}
	return o, nil
}
