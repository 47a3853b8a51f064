// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"regexp"
	"strconv"
	"strings"
)

// This file is the encoder's machinery: a message is a list of fields,
// each a JSON key, a field number and how its value is written; keys
// starting "x-" are the message's vendor extensions (NamedAny, the value
// as YAML). Fields are written in the order of their numbers, named
// entries and extensions in the document's order, which is how gnostic
// builds the message from the JSON and protobuf-go writes it.

// message describes one gnostic message. ext is the field number of its
// vendor extensions (0: none).
type message struct {
	fields []field
	ext    int
}

type field struct {
	key string
	num int
	put putFunc
}

// putFunc appends field num holding the JSON value v (at path) to b.
type putFunc func(e *encoder, b []byte, num int, path string, v *node) []byte

// encoder collects, while it encodes, the JSON paths of what it could
// not encode: keys no message knows and values of the wrong type.
type encoder struct {
	problems []string
}

func (e *encoder) problem(path, what string) {
	e.problems = append(e.problems, path+": "+what)
}

// encodeMessage returns the body of message m read from the object v.
func (e *encoder) encodeMessage(m *message, path string, v *node) []byte {
	if v.kind != objectNode {
		e.problem(path, "want an object")
		return nil
	}
	var b []byte
	extDone := m.ext == 0
	for _, f := range m.fields {
		if !extDone && f.num > m.ext {
			b, extDone = appendExtensions(b, m.ext, v), true
		}
		if fv := v.get(f.key); fv != nil {
			b = f.put(e, b, f.num, child(path, f.key), fv)
		}
	}
	if !extDone {
		b = appendExtensions(b, m.ext, v)
	}
	for _, k := range v.keys {
		if !m.has(k) && (m.ext == 0 || !strings.HasPrefix(k, "x-")) {
			e.problem(child(path, k), "key not encoded")
		}
	}
	return b
}

// appendExtensions appends the x- keys of the object v as field num.
func appendExtensions(b []byte, num int, v *node) []byte {
	for i, k := range v.keys {
		if strings.HasPrefix(k, "x-") {
			b = appendLen(b, num, namedAny(k, v.elems[i]))
		}
	}
	return b
}

func (m *message) has(key string) bool {
	for _, f := range m.fields {
		if f.key == key {
			return true
		}
	}
	return false
}

// namedAny is a NamedAny: the name, and the value as an Any's YAML.
func namedAny(name string, v *node) []byte {
	return appendLen(appendString(nil, 1, name), 2, anyBody(v))
}

func anyBody(v *node) []byte { return appendString(nil, 2, yamlText(v)) }

// The field kinds.

func str(e *encoder, b []byte, num int, path string, v *node) []byte {
	if v.kind != stringNode && v.kind != numberNode {
		e.problem(path, "want a string")
		return b
	}
	return appendString(b, num, v.text)
}

func strs(e *encoder, b []byte, num int, path string, v *node) []byte {
	return each(e, b, path, v, func(b []byte, item *node) []byte {
		if item.kind != stringNode {
			e.problem(path, "want strings")
			return b
		}
		return appendLen(b, num, []byte(item.text))
	})
}

func boolean(e *encoder, b []byte, num int, path string, v *node) []byte {
	if v.kind != boolNode {
		e.problem(path, "want a bool")
		return b
	}
	if v.text == "true" {
		return appendVarint(b, num, 1)
	}
	return b
}

func integer(e *encoder, b []byte, num int, path string, v *node) []byte {
	i, err := strconv.ParseInt(v.text, 10, 64)
	if v.kind != numberNode || err != nil {
		e.problem(path, "want an integer")
		return b
	}
	return appendVarint(b, num, uint64(i))
}

func double(e *encoder, b []byte, num int, path string, v *node) []byte {
	f, err := strconv.ParseFloat(v.text, 64)
	if v.kind != numberNode || err != nil {
		e.problem(path, "want a number")
		return b
	}
	return appendDouble(b, num, f)
}

func anyValue(_ *encoder, b []byte, num int, _ string, v *node) []byte {
	return appendLen(b, num, anyBody(v))
}

func anyValues(e *encoder, b []byte, num int, path string, v *node) []byte {
	return each(e, b, path, v, func(b []byte, item *node) []byte { return appendLen(b, num, anyBody(item)) })
}

// msg writes the object v as message m.
func msg(m *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		return appendLen(b, num, e.encodeMessage(m, path, v))
	}
}

// msgs writes each object of the array v as message m.
func msgs(m *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		return each(e, b, path, v, func(b []byte, item *node) []byte { return appendLen(b, num, e.encodeMessage(m, path, item)) })
	}
}

// named writes the object v as a message of repeated Named entries
// (field 1), each the key (1) and the value written by put as field 2.
func named(put putFunc) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		return appendLen(b, num, namedEntries(e, 1, path, v, put))
	}
}

func namedEntries(e *encoder, num int, path string, v *node, put putFunc) []byte {
	if v.kind != objectNode {
		e.problem(path, "want an object")
		return nil
	}
	var b []byte
	for i, k := range v.keys {
		b = appendLen(b, num, put(e, appendString(nil, 1, k), 2, child(path, k), v.elems[i]))
	}
	return b
}

// each calls put for every item of the array v.
func each(e *encoder, b []byte, path string, v *node, put func([]byte, *node) []byte) []byte {
	if v.kind != arrayNode {
		e.problem(path, "want an array")
		return b
	}
	for _, item := range v.elems {
		b = put(b, item)
	}
	return b
}

// patterned writes a message whose keys are its entries: vendor
// extensions (field ext) and keys matching entry (field num, a Named
// entry of the value written by put), in field-number order.
func patterned(ext, num int, entry *regexp.Regexp, put putFunc) putFunc {
	return func(e *encoder, b []byte, n int, path string, v *node) []byte {
		if v.kind != objectNode {
			e.problem(path, "want an object")
			return b
		}
		parts := map[int][]byte{}
		for i, k := range v.keys {
			switch {
			case strings.HasPrefix(k, "x-"):
				parts[ext] = appendLen(parts[ext], ext, namedAny(k, v.elems[i]))
			case entry.MatchString(k):
				parts[num] = appendLen(parts[num], num, put(e, appendString(nil, 1, k), 2, child(path, k), v.elems[i]))
			default:
				e.problem(child(path, k), "key not encoded")
			}
		}
		body := append(parts[min(ext, num)], parts[max(ext, num)]...)
		return appendLen(b, n, body)
	}
}

// child is the JSON Pointer of key in the object at path.
func child(path, key string) string {
	if strings.ContainsAny(key, "~/") {
		key = strings.ReplaceAll(strings.ReplaceAll(key, "~", "~0"), "/", "~1")
	}
	return path + "/" + key
}
