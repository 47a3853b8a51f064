// SPDX-License-Identifier: Apache-2.0

// Package exactjson is the oracle the decoding fuzzers hold kubeloop to:
// json.Unmarshal with keys matched to struct fields exactly, as
// Kubernetes matches them (sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts, but for numbers in an empty
// interface, which stay float64 as in encoding/json).
//
// Guarantees:
//   - [Unmarshal] leaves v as json.Unmarshal leaves it given the same
//     document with the members dropped that would land in a struct and
//     whose key is not, exactly, the name of a field of that struct (the
//     json tag's name, or the Go name of an untagged field, own or
//     promoted). A key that differs from a name only in case, or by
//     Unicode folding (ſ for s, the Kelvin sign for k), is such a member.
//   - Everything else is encoding/json's: the order of members, duplicate
//     members (each decoded in turn into the same field: the last scalar
//     wins, maps and structs merge), errors, numbers and strings as they
//     are written.
//
// It is built for tests: it re-reads the document with encoding/json
// before decoding it, about three times the cost of json.Unmarshal. No
// package but tests imports it.
package exactjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"unicode"
)

// Unmarshal decodes data into v, a pointer, as the package doc says.
func Unmarshal(data []byte, v any) error {
	if rv := reflect.ValueOf(v); json.Valid(data) && rv.Kind() == reflect.Pointer && !rv.IsNil() {
		data = filter(bytes.TrimSpace(data), rv.Type().Elem())
	}
	return json.Unmarshal(data, v)
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// filter returns raw, a valid JSON value bound for a value of type t, with
// the members dropped that land in a struct and name none of its fields.
func filter(raw []byte, t reflect.Type) []byte {
	for {
		if decodesItself(t) {
			return raw // its own method sees every member
		}
		if t.Kind() != reflect.Pointer {
			break
		}
		t = t.Elem()
	}
	switch {
	case raw[0] == '{' && t.Kind() == reflect.Struct:
		names := fieldNames(t)
		return filterObject(raw, func(key string) (reflect.Type, bool) {
			ft, ok := names[key]
			return ft, ok
		})
	case raw[0] == '{' && t.Kind() == reflect.Map:
		return filterObject(raw, func(string) (reflect.Type, bool) { return t.Elem(), true })
	case raw[0] == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		return filterArray(raw, t.Elem())
	}
	return raw
}

// decodesItself reports whether encoding/json hands t's JSON to a method
// of t, which the oracle leaves alone.
func decodesItself(t reflect.Type) bool {
	return t.Kind() != reflect.Pointer &&
		(reflect.PointerTo(t).Implements(unmarshalerType) || reflect.PointerTo(t).Implements(textUnmarshalerType))
}

// filterObject rewrites the object raw, keeping in order (duplicates too)
// the members keep accepts, each filtered by the type keep gives (nil:
// left as it is).
func filterObject(raw []byte, keep func(key string) (reflect.Type, bool)) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // {
	out := []byte{'{'}
	for dec.More() {
		tok, _ := dec.Token()
		key := tok.(string)
		var value json.RawMessage
		dec.Decode(&value)
		t, ok := keep(key)
		if !ok {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(out, k...), ':')
		if t != nil {
			value = filter(value, t)
		}
		out = append(out, value...)
	}
	return append(out, '}')
}

// filterArray rewrites the array raw, each element filtered by elem.
func filterArray(raw []byte, elem reflect.Type) []byte {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.Token() // [
	out := []byte{'['}
	for dec.More() {
		var value json.RawMessage
		dec.Decode(&value)
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, filter(value, elem)...)
	}
	return append(out, ']')
}

// fieldNames returns the names that a struct type's fields answer to in
// JSON, own or promoted from embedded structs, with the field's type: nil
// when fields of several types share the name, whose members are then
// kept as they are. A name that encoding/json finds ambiguous is among
// them: json.Unmarshal drops its members itself.
func fieldNames(t reflect.Type) map[string]reflect.Type {
	names := map[string]reflect.Type{}
	var walk func(t reflect.Type, seen map[reflect.Type]bool)
	walk = func(t reflect.Type, seen map[reflect.Type]bool) {
		if seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			if tag == "-" {
				continue
			}
			name, _, _ := strings.Cut(tag, ",")
			if !validTagName(name) {
				name = ""
			}
			ft := sf.Type
			if ft.Kind() == reflect.Pointer && ft.Name() == "" {
				ft = ft.Elem()
			}
			if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct {
				walk(ft, seen)
				continue
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			if prev, ok := names[name]; ok && prev != sf.Type {
				names[name] = nil
				continue
			}
			names[name] = sf.Type
		}
	}
	walk(t, map[reflect.Type]bool{})
	return names
}

// validTagName reports whether encoding/json takes name, from a json tag,
// as the field's name (else it uses the Go name).
func validTagName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if !strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c) && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
			return false
		}
	}
	return true
}
