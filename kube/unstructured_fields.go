// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// This file holds the typed reads of decoded JSON objects, such as an
// Unstructured's Content or an element of an array read from it:
//
//	replicas, err := kube.NestedInt64(u.Content, "spec", "replicas")
//
// Each takes a path of map keys, as [Unstructured.Field] does, and returns
// the value or a [*FieldError] that says what was wrong: nothing there (the
// error wraps [ErrFieldNotFound]), or a value of another type, with the
// path and the type found. Errors never quote the value: an object may
// hold a Secret's data.
//
// The reads accept what encoding/json decodes (map[string]any, []any,
// float64 or json.Number for numbers) and the Go values
// [Unstructured.SetField] may have put there ([]string, map[string]string,
// int, ...). They are functions, not methods of Unstructured, so that they
// work on nested objects too and cost nothing in programs that do not call
// them (a method's name stays in the binary of every program that uses the
// type).

// ErrFieldNotFound is wrapped by the errors of [NestedString] and the other
// typed reads when nothing is at the path.
var ErrFieldNotFound = errors.New("field not found")

// FieldError is the error of [NestedString] and the other typed reads.
type FieldError struct {
	// Path is the dotted path read, "spec.replicas".
	Path string
	// At is the dotted path of the value that was wrong: Path itself, a
	// prefix of it that is not an object, or an element of it
	// ("spec.args[2]") for the string slices and maps.
	At string
	// Want is what the read needed: "string", "integer", "object", ...
	Want string
	// Got is the JSON type found ("number", "array", "null", ...; the Go
	// type for other Go values), or "" when nothing is there.
	Got string
}

// Error returns, for example, `spec.replicas: not found` or
// `spec.replicas: is a string, want an integer`.
func (e *FieldError) Error() string {
	if e == nil {
		return "<nil *kube.FieldError>"
	}
	if e.Got == "" {
		if e.At != e.Path {
			return fmt.Sprintf("%s: %s not found", e.Path, e.At)
		}
		return e.Path + ": not found"
	}
	if e.At != e.Path {
		return fmt.Sprintf("%s: %s is %s, want %s", e.Path, e.At, withArticle(e.Got), withArticle(e.Want))
	}
	return fmt.Sprintf("%s: is %s, want %s", e.Path, withArticle(e.Got), withArticle(e.Want))
}

// Is makes errors.Is(err, ErrFieldNotFound) hold when nothing was there.
func (e *FieldError) Is(target error) bool { return target == ErrFieldNotFound && e.Got == "" }

func withArticle(what string) string {
	switch {
	case what == "null", strings.HasPrefix(what, "[]"), strings.HasPrefix(what, "map["):
		return what
	case strings.HasPrefix(what, "non-"):
		return "a " + what
	case strings.IndexByte("aeiou", what[0]) >= 0:
		return "an " + what
	}
	return "a " + what
}

// jsonType names the JSON type of a decoded value, or the Go type of
// another value.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case float64, float32, json.Number, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		return "number"
	}
	return fmt.Sprintf("%T", v)
}

// lookup walks path and returns the value there, or the error of a read
// that wanted want.
func lookup(obj map[string]any, want string, path []string) (any, *FieldError) {
	var cur any = obj
	for i, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, &FieldError{Path: dotted(path), At: dotted(path[:i]), Want: "object", Got: jsonType(cur)}
		}
		if cur, ok = m[p]; !ok {
			return nil, &FieldError{Path: dotted(path), At: dotted(path[:i+1]), Want: want}
		}
	}
	return cur, nil
}

func dotted(path []string) string { return strings.Join(path, ".") }

// NestedString returns the string at path in obj.
func NestedString(obj map[string]any, path ...string) (string, error) {
	v, ferr := lookup(obj, "string", path)
	if ferr != nil {
		return "", ferr
	}
	s, ok := v.(string)
	if !ok {
		return "", wrongType(path, "string", v)
	}
	return s, nil
}

// NestedBool returns the boolean at path.
func NestedBool(obj map[string]any, path ...string) (bool, error) {
	v, ferr := lookup(obj, "boolean", path)
	if ferr != nil {
		return false, ferr
	}
	b, ok := v.(bool)
	if !ok {
		return false, wrongType(path, "boolean", v)
	}
	return b, nil
}

// NestedInt64 returns the integer at path. A JSON number decodes as
// float64 (or json.Number): it is taken when it is a whole number within
// int64, and refused otherwise ("is a non-integral number").
func NestedInt64(obj map[string]any, path ...string) (int64, error) {
	v, ferr := lookup(obj, "integer", path)
	if ferr != nil {
		return 0, ferr
	}
	i, why := toInt64(v)
	if why != "" {
		return 0, &FieldError{Path: dotted(path), At: dotted(path), Want: "integer", Got: why}
	}
	return i, nil
}

// toInt64 converts a number that is a whole int64, or names what v is.
func toInt64(v any) (int64, string) {
	var f float64
	switch n := v.(type) {
	case int:
		return int64(n), ""
	case int8:
		return int64(n), ""
	case int16:
		return int64(n), ""
	case int32:
		return int64(n), ""
	case int64:
		return n, ""
	case uint8:
		return int64(n), ""
	case uint16:
		return int64(n), ""
	case uint32:
		return int64(n), ""
	case uint:
		if uint64(n) > math.MaxInt64 {
			return 0, "number beyond int64"
		}
		return int64(n), ""
	case uint64:
		if n > math.MaxInt64 {
			return 0, "number beyond int64"
		}
		return int64(n), ""
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, ""
		}
		var err error
		if f, err = n.Float64(); err != nil {
			return 0, "number beyond int64"
		}
	case float64:
		f = n
	case float32:
		f = float64(n)
	default:
		return 0, jsonType(v)
	}
	switch {
	case f != math.Trunc(f) || math.IsNaN(f):
		return 0, "non-integral number"
	case f < math.MinInt64 || f >= math.MaxInt64: // 2^63 is the first float64 beyond
		return 0, "number beyond int64"
	}
	return int64(f), ""
}

// NestedFloat64 returns the number at path, whatever its form.
func NestedFloat64(obj map[string]any, path ...string) (float64, error) {
	v, ferr := lookup(obj, "number", path)
	if ferr != nil {
		return 0, ferr
	}
	switch n := v.(type) {
	case float64:
		return n, nil
	case float32:
		return float64(n), nil
	case json.Number:
		f, err := n.Float64()
		if err != nil {
			return 0, &FieldError{Path: dotted(path), At: dotted(path), Want: "number", Got: "number beyond float64"}
		}
		return f, nil
	}
	if i, why := toInt64(v); why == "" {
		return float64(i), nil
	}
	if n, ok := v.(uint64); ok {
		return float64(n), nil
	}
	return 0, wrongType(path, "number", v)
}

// NestedMap returns the object at path. A map[string]any there is
// returned as held (changes to it change obj); another map with string keys
// is copied into a new map[string]any.
func NestedMap(obj map[string]any, path ...string) (map[string]any, error) {
	v, ferr := lookup(obj, "object", path)
	if ferr != nil {
		return nil, ferr
	}
	if m, ok := v.(map[string]any); ok {
		return m, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Map || rv.Type().Key().Kind() != reflect.String {
		return nil, wrongType(path, "object", v)
	}
	out := make(map[string]any, rv.Len())
	for it := rv.MapRange(); it.Next(); {
		out[it.Key().String()] = it.Value().Interface()
	}
	return out, nil
}

// NestedSlice returns the array at path. A []any there is returned as held
// (changes to its elements change obj); another slice is copied into a new
// []any.
func NestedSlice(obj map[string]any, path ...string) ([]any, error) {
	v, ferr := lookup(obj, "array", path)
	if ferr != nil {
		return nil, ferr
	}
	if s, ok := v.([]any); ok {
		return s, nil
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil, wrongType(path, "array", v)
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, nil
}

// NestedStringSlice returns a copy of the array of strings at path. An
// element that is not a string is an error naming it ("spec.args[2]").
func NestedStringSlice(obj map[string]any, path ...string) ([]string, error) {
	v, ferr := lookup(obj, "array", path)
	if ferr != nil {
		return nil, ferr
	}
	switch s := v.(type) {
	case []string:
		return append([]string(nil), s...), nil
	case []any:
		out := make([]string, len(s))
		for i, e := range s {
			str, ok := e.(string)
			if !ok {
				return nil, &FieldError{Path: dotted(path), At: fmt.Sprintf("%s[%d]", dotted(path), i), Want: "string", Got: jsonType(e)}
			}
			out[i] = str
		}
		return out, nil
	}
	return nil, wrongType(path, "array", v)
}

// NestedStringMap returns a copy of the object of strings at path, as
// labels and annotations are. A value that is not a string is an error
// naming its key ("spec.selector.app").
func NestedStringMap(obj map[string]any, path ...string) (map[string]string, error) {
	v, ferr := lookup(obj, "object", path)
	if ferr != nil {
		return nil, ferr
	}
	switch m := v.(type) {
	case map[string]string:
		out := make(map[string]string, len(m))
		for k, e := range m {
			out[k] = e
		}
		return out, nil
	case map[string]any:
		out := make(map[string]string, len(m))
		for k, e := range m {
			str, ok := e.(string)
			if !ok {
				return nil, &FieldError{Path: dotted(path), At: dotted(append(path[:len(path):len(path)], k)), Want: "string", Got: jsonType(e)}
			}
			out[k] = str
		}
		return out, nil
	}
	return nil, wrongType(path, "object", v)
}

func wrongType(path []string, want string, v any) *FieldError {
	return &FieldError{Path: dotted(path), At: dotted(path), Want: want, Got: jsonType(v)}
}

// RemoveNestedField deletes the value at a path of map keys and reports whether
// there was one. Maps on the way are left in place, even when they end up
// empty.
func RemoveNestedField(obj map[string]any, path ...string) bool {
	if len(path) == 0 {
		return false
	}
	m := obj
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return false
		}
		m = next
	}
	last := path[len(path)-1]
	if _, ok := m[last]; !ok {
		return false
	}
	delete(m, last)
	return true
}
