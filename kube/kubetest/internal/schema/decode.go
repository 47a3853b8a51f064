// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// This file reports what the real server's decoding of a request body
// into a built-in kind's Go type reports, without Go types: one pass over
// the JSON text, in document order, against the kind's schema, finds the
// first type error (worded as encoding/json words it: "json: cannot
// unmarshal number into Go struct field ConfigMap.data of type string")
// and the strict-decoding errors (unknown and duplicate fields). For a
// custom resource, whose body decodes into a map, it finds duplicates
// only. The body has already been parsed by encoding/json, so it is
// well-formed. Cost: one scan of the body; paths and type names are only
// put together for an error, so a body without errors costs a few
// allocations per object with more than 16 fields, none per value.

// decodeReport is what decoding a body reports.
type decodeReport struct {
	// TypeErr is the first type error ("" when none).
	TypeErr string
	// Strict are the strict-decoding errors, in document order, without
	// repeats, at most 100: `unknown field "spec.foo"`, `duplicate field
	// "data.a"`.
	Strict []string
}

// maxStrictErrors is the real decoder's limit on strict errors kept.
const maxStrictErrors = 100

type bodyScanner struct {
	data []byte
	i    int
	rep  decodeReport
	seen map[string]bool
	// mapsOnly says every object is a map (custom resources): only
	// duplicates are reported.
	mapsOnly bool
	// strictPath is the path of the value being scanned, as strict errors
	// print it (spec.containers[0]).
	strictPath []pathElem
	// goStruct and goFields are encoding/json's error context: the name
	// of the innermost struct whose field is being decoded, and the field
	// names from the root (map keys and indexes excluded, embedded
	// structs included).
	goStruct string
	goFields []pathElem
	// keys holds the keys of the objects being scanned, innermost last,
	// for duplicates (one backing array for the whole body).
	keys [][]byte
}

// pathElem is one step of a path: a key (a slice of the body), a name,
// or an index.
type pathElem struct {
	key   []byte
	name  string
	index int // when key is nil and name empty
}

func (e pathElem) String() string {
	switch {
	case e.key != nil:
		return string(e.key)
	case e.name != "":
		return e.name
	}
	return "[" + strconv.Itoa(e.index) + "]"
}

// joinPath renders elems: keys and names joined by dots, indexes as
// [i] (the strict decoder's form).
func joinPath(elems []pathElem) string {
	var b strings.Builder
	for i, e := range elems {
		if i > 0 && (e.key != nil || e.name != "") {
			b.WriteByte('.')
		}
		b.WriteString(e.String())
	}
	return b.String()
}

// ScanBody scans body against s; with s nil (or mapsOnly) it reports
// duplicate fields only.
func ScanBody(s *Schema, body []byte, mapsOnly bool) decodeReport {
	sc := &bodyScanner{data: body, mapsOnly: mapsOnly || s == nil, keys: make([][]byte, 0, 32),
		strictPath: make([]pathElem, 0, 8), goFields: make([]pathElem, 0, 8)}
	sc.value(s, "")
	return sc.rep
}

func (sc *bodyScanner) ws() {
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

func (sc *bodyScanner) strictError(kind string, key []byte) {
	path := string(key)
	if len(sc.strictPath) > 0 {
		path = joinPath(sc.strictPath) + "." + path
	}
	msg := kind + " " + strconv.Quote(path)
	if sc.seen[msg] || len(sc.rep.Strict) >= maxStrictErrors {
		return
	}
	if sc.seen == nil {
		sc.seen = map[string]bool{}
	}
	sc.seen[msg] = true
	sc.rep.Strict = append(sc.rep.Strict, msg)
}

// typeError records encoding/json's UnmarshalTypeError of the value
// being scanned (of schema s, Go type goType or by default the one its
// schema implies), the first time.
func (sc *bodyScanner) typeError(value string, s *Schema, goType string) {
	if sc.rep.TypeErr != "" {
		return
	}
	if goType == "" {
		goType = GoTypeName(s)
	}
	if sc.goStruct == "" && len(sc.goFields) == 0 {
		sc.rep.TypeErr = "json: cannot unmarshal " + value + " into Go value of type " + goType
		return
	}
	sc.rep.TypeErr = "json: cannot unmarshal " + value + " into Go struct field " + sc.goStruct + "." +
		joinPath(sc.goFields) + " of type " + goType
}

// plainError records an error a type's own decoding returns as it is.
func (sc *bodyScanner) plainError(msg string) {
	if sc.rep.TypeErr == "" {
		sc.rep.TypeErr = msg
	}
}

// value scans one value against s (nil: anything). goType is the Go type
// of the value when the probe knew it ("" for the one its schema
// implies).
func (sc *bodyScanner) value(s *Schema, goType string) {
	sc.ws()
	if sc.i >= len(sc.data) {
		return
	}
	start := sc.i
	if !sc.mapsOnly && IsCustomDecoded(s) {
		kind := map[byte]string{'{': "object", '[': "array", '"': "string", 't': "bool", 'f': "bool", 'n': "null"}[sc.data[sc.i]]
		if kind == "" {
			kind = "number"
		}
		sc.skip()
		if kind != "null" {
			sc.scalar(s, goType, kind, sc.data[start:sc.i])
		}
		return
	}
	switch c := sc.data[sc.i]; {
	case c == '{':
		sc.object(s, goType)
	case c == '[':
		sc.array(s, goType)
	case c == '"':
		sc.skipString()
		sc.scalar(s, goType, "string", sc.data[start:sc.i])
	case c == 't':
		sc.i += 4
		sc.scalar(s, goType, "bool", sc.data[start:sc.i])
	case c == 'f':
		sc.i += 5
		sc.scalar(s, goType, "bool", sc.data[start:sc.i])
	case c == 'n':
		sc.i += 4 // null decodes into anything
	default:
		for sc.i < len(sc.data) && strings.IndexByte("+-0123456789.eE", sc.data[sc.i]) >= 0 {
			sc.i++
		}
		sc.scalar(s, goType, "number", sc.data[start:sc.i])
	}
}

func (sc *bodyScanner) skipString() {
	sc.i++ // opening quote
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case '\\':
			sc.i += 2
		case '"':
			sc.i++
			return
		default:
			sc.i++
		}
	}
}

// skip scans past a value without checking it.
func (sc *bodyScanner) skip() {
	sc.ws()
	if sc.i >= len(sc.data) {
		return
	}
	switch sc.data[sc.i] {
	case '"':
		sc.skipString()
		return
	case '{', '[':
	default: // a number or a literal
		for sc.i < len(sc.data) && strings.IndexByte(",}] \t\r\n", sc.data[sc.i]) < 0 {
			sc.i++
		}
		return
	}
	depth := 0
	for sc.i < len(sc.data) {
		switch sc.data[sc.i] {
		case '"':
			sc.skipString()
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				sc.i++
				return
			}
		}
		sc.i++
	}
}

func (sc *bodyScanner) object(s *Schema, goType string) {
	kind := KindOf(s)
	if sc.mapsOnly {
		kind = "map"
	}
	switch kind {
	case "any":
		sc.skip()
		return
	case "list", "scalar":
		sc.typeError("object", s, goType)
		sc.skip()
		return
	}
	sc.i++ // {
	mark := len(sc.keys)
	defer func() { sc.keys = sc.keys[:mark] }()
	var seenSet map[string]bool
	for {
		sc.ws()
		if sc.data[sc.i] == '}' {
			sc.i++
			return
		}
		if sc.data[sc.i] == ',' {
			sc.i++
			sc.ws()
		}
		keyStart := sc.i
		sc.skipString()
		key := sc.data[keyStart+1 : sc.i-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var k string
			_ = json.Unmarshal(sc.data[keyStart:sc.i], &k)
			key = []byte(k)
		}
		sc.ws()
		sc.i++ // :
		dup := false
		if seenSet != nil {
			dup = seenSet[string(key)]
			seenSet[string(key)] = true
		} else {
			for _, x := range sc.keys[mark:] {
				dup = dup || bytes.Equal(x, key)
			}
			sc.keys = append(sc.keys, key)
			if len(sc.keys)-mark > 16 { // many fields: a set
				seenSet = map[string]bool{}
				for _, x := range sc.keys[mark:] {
					seenSet[string(x)] = true
				}
			}
		}
		if dup {
			sc.strictError("duplicate field", key)
		}
		if kind == "map" {
			sc.strictPath = append(sc.strictPath, pathElem{key: key})
			var vs *Schema
			if !sc.mapsOnly {
				vs = s.Additional
			}
			sc.value(vs, strings.TrimPrefix(goType, "map[string]"))
			sc.strictPath = sc.strictPath[:len(sc.strictPath)-1]
			continue
		}
		p := s.Properties[string(key)]
		if p == nil {
			sc.strictError("unknown field", key)
			sc.skip()
			continue
		}
		outerStruct, outerFields := sc.goStruct, len(sc.goFields)
		sc.goStruct = GoStructName(s)
		info := s.goFields[string(key)]
		for _, e := range info.Embedded {
			sc.goFields = append(sc.goFields, pathElem{name: e})
		}
		sc.goFields = append(sc.goFields, pathElem{key: key})
		sc.strictPath = append(sc.strictPath, pathElem{key: key})
		sc.value(p, info.full)
		sc.strictPath = sc.strictPath[:len(sc.strictPath)-1]
		sc.goStruct, sc.goFields = outerStruct, sc.goFields[:outerFields]
	}
}

func (sc *bodyScanner) array(s *Schema, goType string) {
	kind := KindOf(s)
	if sc.mapsOnly {
		kind = "list"
	}
	switch kind {
	case "any":
		sc.skip()
		return
	case "list":
	default:
		sc.typeError("array", s, goType)
		sc.skip()
		return
	}
	var items *Schema
	if s != nil {
		items = s.Elem
	}
	sc.i++ // [
	for n := 0; ; n++ {
		sc.ws()
		if sc.data[sc.i] == ']' {
			sc.i++
			return
		}
		if sc.data[sc.i] == ',' {
			sc.i++
		}
		sc.strictPath = append(sc.strictPath, pathElem{index: n})
		sc.value(items, strings.TrimPrefix(goType, "[]"))
		sc.strictPath = sc.strictPath[:len(sc.strictPath)-1]
	}
}

// StrictDecodingError is runtime.StrictDecodingError's message for the
// strict errors errs (ScanBody's Strict).
func StrictDecodingError(errs []string) string {
	return "strict decoding error: " + strings.Join(errs, ", ")
}

// UnknownFieldErrors are the strict errors of the unknown fields at paths
// (CoerceCustomResource's), as the real decoder words them.
func UnknownFieldErrors(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = "unknown field " + strconv.Quote(p)
	}
	return out
}
