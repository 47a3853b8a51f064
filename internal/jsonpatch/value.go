// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
)

// DeepCopy returns a copy of v that shares no map or slice with it: every
// map[string]any and []any is copied, recursively. Values of other types
// (strings, numbers, bools, and any non-generic Go value) are returned as
// they are. The cost is O(size of v).
func DeepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		if x == nil {
			return x
		}
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		if x == nil {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = DeepCopy(e)
		}
		return out
	}
	return v
}

// Equal reports whether a and b are the same JSON value: objects with the
// same members (in any order), arrays with the same elements in order,
// equal strings, bools or nulls, and numbers of equal value whatever their
// Go type. A float64 stands for the shortest decimal that reads back as it
// (what encoding/json writes), so float64(0.1) equals json.Number("0.1")
// and json.Number("1e2") equals 100; a json.Number that is not a number in
// JSON syntax, or whose exponent does not fit in 62 bits, compares as text.
// Values of non-generic Go types compare with reflect.DeepEqual. The cost is O(size of a + size of b).
func Equal(a, b any) bool {
	switch x := a.(type) {
	case nil:
		return b == nil
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case string:
		y, ok := b.(string)
		return ok && x == y
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case float64:
		if y, ok := b.(float64); ok {
			return x == y
		}
	case json.Number:
		if y, ok := b.(json.Number); ok && x == y {
			return true
		}
	}
	xs, ok1 := numberText(a)
	ys, ok2 := numberText(b)
	if ok1 && ok2 {
		return sameNumber(xs, ys)
	}
	if ok1 || ok2 {
		return false
	}
	return reflect.DeepEqual(a, b)
}

// numberText returns v as decimal text, if v is a number.
func numberText(v any) (string, bool) {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32), true
	case json.Number:
		return string(x), true
	case int:
		return strconv.FormatInt(int64(x), 10), true
	case int8:
		return strconv.FormatInt(int64(x), 10), true
	case int16:
		return strconv.FormatInt(int64(x), 10), true
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case uint:
		return strconv.FormatUint(uint64(x), 10), true
	case uint8:
		return strconv.FormatUint(uint64(x), 10), true
	case uint16:
		return strconv.FormatUint(uint64(x), 10), true
	case uint32:
		return strconv.FormatUint(uint64(x), 10), true
	case uint64:
		return strconv.FormatUint(x, 10), true
	}
	return "", false
}

// sameNumber compares two decimal texts by value, exactly, without
// arbitrary-precision arithmetic: both are reduced to a sign, significant
// digits and an exponent. Text that is not a decimal number compares as
// text.
func sameNumber(a, b string) bool {
	an, ad, ae, ok1 := decimal(a)
	bn, bd, be, ok2 := decimal(b)
	if !ok1 || !ok2 {
		return a == b
	}
	return an == bn && ad == bd && ae == be
}

// decimal reduces s, a number in JSON syntax (a leading '+' and exponent
// signs are also accepted), to neg, digits and exp such that its value is
// ±0.digits × 10^exp, where digits has no leading or trailing zero. Zero is
// (false, "", 0).
func decimal(s string) (neg bool, digits string, exp int64, ok bool) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	intStart := i
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	intPart := s[intStart:i]
	if intPart == "" {
		return false, "", 0, false
	}
	var frac string
	if i < len(s) && s[i] == '.' {
		i++
		start := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		if frac = s[start:i]; frac == "" {
			return false, "", 0, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		e, err := strconv.ParseInt(s[i+1:], 10, 64)
		if err != nil || e > 1<<62 || e < -(1<<62) {
			return false, "", 0, false
		}
		exp = e
		i = len(s)
	}
	if i != len(s) {
		return false, "", 0, false
	}
	mant := intPart + frac
	exp += int64(len(intPart))
	trimmed := strings.TrimLeft(mant, "0")
	exp -= int64(len(mant) - len(trimmed))
	digits = strings.TrimRight(trimmed, "0")
	if digits == "" {
		return false, "", 0, true
	}
	return neg, digits, exp, true
}

// jsonType names the JSON type of v, for error messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	if _, ok := numberText(v); ok {
		return "a number"
	}
	return fmt.Sprintf("a %T", v)
}

// decode reads exactly one JSON value from b, numbers as json.Number.
func decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no JSON value")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("data after the JSON value at offset %d", dec.InputOffset())
	}
	return v, nil
}

// encode writes v as compact JSON with object keys sorted and without
// escaping <, > and &.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// brief renders v as JSON for an error message, cut to a readable length.
func brief(v any) string {
	b, err := encode(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	const maxBrief = 80
	if len(b) > maxBrief {
		return string(b[:maxBrief]) + "..."
	}
	return string(b)
}
