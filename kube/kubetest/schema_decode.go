// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
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
// well-formed. Cost: one scan of the body, no allocation per value.

// decodeReport is what decoding a body reports.
type decodeReport struct {
	// typeErr is the first type error ("" when none).
	typeErr string
	// strict are the strict-decoding errors, in document order, without
	// repeats, at most 100: `unknown field "spec.foo"`, `duplicate field
	// "data.a"`.
	strict []string
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
	// print it ("spec", ".", "containers", "[0]").
	strictPath []string
	// goStruct and goFields are encoding/json's error context: the name
	// of the innermost struct whose field is being decoded, and the field
	// names from the root (map keys and indexes excluded).
	goStruct string
	goFields []string
}

// scanBody scans body against s; with s nil (or mapsOnly) it reports
// duplicate fields only.
func scanBody(s *schema, body []byte, mapsOnly bool) decodeReport {
	sc := &bodyScanner{data: body, mapsOnly: mapsOnly || s == nil}
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

func (sc *bodyScanner) strictError(kind, key string) {
	path := key
	if len(sc.strictPath) > 0 {
		path = strings.Join(sc.strictPath, "") + "." + key
	}
	msg := kind + " " + strconv.Quote(path)
	if sc.seen[msg] || len(sc.rep.strict) >= maxStrictErrors {
		return
	}
	if sc.seen == nil {
		sc.seen = map[string]bool{}
	}
	sc.seen[msg] = true
	sc.rep.strict = append(sc.rep.strict, msg)
}

// typeError records encoding/json's UnmarshalTypeError of the value
// being scanned, the first time.
func (sc *bodyScanner) typeError(value, goType string) {
	if sc.rep.typeErr != "" {
		return
	}
	if sc.goStruct == "" && len(sc.goFields) == 0 {
		sc.rep.typeErr = "json: cannot unmarshal " + value + " into Go value of type " + goType
		return
	}
	sc.rep.typeErr = "json: cannot unmarshal " + value + " into Go struct field " + sc.goStruct + "." +
		strings.Join(sc.goFields, ".") + " of type " + goType
}

// plainError records an error a type's own decoding returns as it is.
func (sc *bodyScanner) plainError(msg string) {
	if sc.rep.typeErr == "" {
		sc.rep.typeErr = msg
	}
}

// value scans one value against s (nil: anything). goType is the Go type
// of the value ("" for the one its schema implies).
func (sc *bodyScanner) value(s *schema, goType string) {
	if goType == "" {
		goType = goTypeName(s)
	}
	sc.ws()
	if sc.i >= len(sc.data) {
		return
	}
	start := sc.i
	if !sc.mapsOnly && isCustomDecoded(s) {
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

func (sc *bodyScanner) object(s *schema, goType string) {
	kind := kindOf(s)
	if sc.mapsOnly {
		kind = "map"
	}
	switch kind {
	case "any":
		sc.skip()
		return
	case "list", "scalar":
		sc.typeError("object", goType)
		sc.skip()
		return
	}
	sc.i++ // {
	var seen []string
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
		var k string
		if strings.IndexByte(string(key), '\\') >= 0 {
			_ = json.Unmarshal(sc.data[keyStart:sc.i], &k)
		} else {
			k = string(key)
		}
		sc.ws()
		sc.i++ // :
		dup := false
		if seenSet != nil {
			dup = seenSet[k]
			seenSet[k] = true
		} else {
			for _, x := range seen {
				dup = dup || x == k
			}
			seen = append(seen, k)
			if len(seen) > 16 {
				seenSet = map[string]bool{}
				for _, x := range seen {
					seenSet[x] = true
				}
			}
		}
		if dup {
			sc.strictError("duplicate field", k)
		}
		if kind == "map" {
			sc.pushStrict(k)
			var vs *schema
			if !sc.mapsOnly {
				vs = s.Additional
			}
			sc.value(vs, strings.TrimPrefix(goType, "map[string]"))
			sc.popStrict()
			continue
		}
		p := s.Properties[k]
		if p == nil {
			sc.strictError("unknown field", k)
			sc.skip()
			continue
		}
		outerStruct, outerFields := sc.goStruct, len(sc.goFields)
		sc.goStruct = goStructName(s)
		info := goFieldOf(s, k)
		sc.goFields = append(append(sc.goFields, info.Embedded...), k)
		sc.pushStrict(k)
		sc.value(p, info.goType(p))
		sc.popStrict()
		sc.goStruct, sc.goFields = outerStruct, sc.goFields[:outerFields]
	}
}

func (sc *bodyScanner) pushStrict(key string) {
	if len(sc.strictPath) > 0 {
		sc.strictPath = append(sc.strictPath, ".")
	}
	sc.strictPath = append(sc.strictPath, key)
}

func (sc *bodyScanner) popStrict() {
	n := len(sc.strictPath) - 1
	if n > 0 {
		n--
	}
	sc.strictPath = sc.strictPath[:n]
}

func (sc *bodyScanner) array(s *schema, goType string) {
	kind := kindOf(s)
	if sc.mapsOnly {
		kind = "list"
	}
	switch kind {
	case "any":
		sc.skip()
		return
	case "list":
	default:
		sc.typeError("array", goType)
		sc.skip()
		return
	}
	var items *schema
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
		sc.strictPath = append(sc.strictPath, "["+strconv.Itoa(n)+"]")
		sc.value(items, strings.TrimPrefix(goType, "[]"))
		sc.strictPath = sc.strictPath[:len(sc.strictPath)-1]
	}
}
