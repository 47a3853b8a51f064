// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// This file encodes a JSON object of a built-in kind (as kubetest holds
// and writes it) into the protobuf body kube-apiserver answers with: the
// magic, then a runtime.Unknown holding the type and the object's message,
// laid out by protobuf.json. Fields are written in the order of their
// numbers; fields the JSON lacks are left out, which a decoder reads as
// the Go zero value, as the JSON decoder does. JSON keys the layout does
// not know are dropped, as a typed server drops them. Encoding costs
// O(size of the object).

// EncodeObject encodes o, whose apiVersion and kind say its type (a list
// kind "XList" too), as a Kubernetes protobuf body. ok is false when the
// kind has no protobuf form (custom resources, Tables): the caller answers
// in JSON.
func EncodeObject(o obj) (body []byte, ok bool, err error) {
	apiVersion, _ := o["apiVersion"].(string)
	kind, _ := o["kind"].(string)
	l := layout()
	msg, ok := l.kinds[apiVersion+"/"+kind]
	if !ok {
		return nil, false, nil
	}
	raw, err := l.encodeMessage(nil, msg, o)
	if err != nil {
		return nil, true, fmt.Errorf("encode %s %s: %w", apiVersion, kind, err)
	}
	return envelope(apiVersion, kind, raw), true, nil
}

// Known reports whether apiVersion/kind has a protobuf form.
func Known(apiVersion, kind string) bool {
	_, ok := layout().kinds[apiVersion+"/"+kind]
	return ok
}

// envelope wraps an object's message in the magic and a runtime.Unknown.
func envelope(apiVersion, kind string, raw []byte) []byte {
	tm := appendBytes(nil, 1, []byte(apiVersion))
	tm = appendBytes(tm, 2, []byte(kind))
	out := append([]byte(nil), protoMagic...)
	out = appendBytes(out, 1, tm)
	out = appendBytes(out, 2, raw)
	out = appendBytes(out, 3, nil) // contentEncoding, written empty as the server writes it
	return appendBytes(out, 4, nil)
}

// encodeMessage appends the fields of message name, read from o, to b.
func (l *protoLayout) encodeMessage(b []byte, name string, o obj) ([]byte, error) {
	msg := l.messages[name]
	if msg == nil {
		return nil, fmt.Errorf("no layout for message %s", name)
	}
	for _, fl := range msg.fields {
		if fl.inline {
			sub, err := l.encodeMessage(nil, fl.ref, o)
			if err != nil {
				return nil, err
			}
			if len(sub) > 0 {
				b = appendBytes(b, fl.num, sub)
			}
			continue
		}
		v, present := o[fl.json]
		if !present || v == nil {
			continue
		}
		var err error
		if b, err = l.encodeField(b, fl, v); err != nil {
			return nil, fmt.Errorf("%s: %w", fl.json, err)
		}
	}
	return b, nil
}

// encodeField appends field fl holding the JSON value v.
func (l *protoLayout) encodeField(b []byte, fl *protoFieldLayout, v any) ([]byte, error) {
	switch {
	case fl.kind == "map":
		m, ok := v.(obj)
		if !ok {
			return nil, fmt.Errorf("want an object, got %T", v)
		}
		return l.encodeMap(b, fl, m)
	case fl.repeated:
		items, ok := v.([]any)
		if !ok {
			return nil, fmt.Errorf("want a list, got %T", v)
		}
		for _, item := range items {
			var err error
			if b, err = l.encodeValue(b, fl.num, fl.kind, fl.ref, item); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return l.encodeValue(b, fl.num, fl.kind, fl.ref, v)
}

// encodeMap appends a map's entries (key 1, value 2), sorted by key as
// the server writes them.
func (l *protoLayout) encodeMap(b []byte, fl *protoFieldLayout, m obj) ([]byte, error) {
	kinds := strings.Fields(fl.ref)
	if len(kinds) < 2 {
		return nil, fmt.Errorf("bad map layout %q", fl.ref)
	}
	valueRef := ""
	if len(kinds) > 2 {
		valueRef = kinds[2]
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		entry := appendBytes(nil, 1, []byte(k))
		var err error
		if m[k] != nil {
			if entry, err = l.encodeValue(entry, 2, kinds[1], valueRef, m[k]); err != nil {
				return nil, fmt.Errorf("key %q: %w", k, err)
			}
		}
		b = appendBytes(b, fl.num, entry)
	}
	return b, nil
}

// encodeValue appends one value of kind as field num.
func (l *protoLayout) encodeValue(b []byte, num uint64, kind, ref string, v any) ([]byte, error) {
	switch kind {
	case "string":
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want a string, got %T", v)
		}
		return appendBytes(b, num, []byte(s)), nil
	case "bytes":
		s, _ := v.(string)
		raw, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("bytes: %w", err)
		}
		return appendBytes(b, num, raw), nil
	case "bool":
		t, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("want a bool, got %T", v)
		}
		return appendVarint(b, num, boolVarint(t)), nil
	case "int32", "int64", "uint32", "uint64":
		n, err := integer(v)
		if err != nil {
			return nil, err
		}
		return appendVarint(b, num, uint64(n)), nil
	case "double":
		f, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("want a number, got %T", v)
		}
		b = binary.AppendUvarint(b, num<<3|1)
		return binary.LittleEndian.AppendUint64(b, math.Float64bits(f)), nil
	case "message":
		return l.encodeSubMessage(b, num, ref, v)
	}
	sub, err := encodeSpecial(kind, v)
	if err != nil {
		return nil, err
	}
	return appendBytes(b, num, sub), nil
}

// encodeSubMessage appends a message field; a named list type's JSON is
// its items.
func (l *protoLayout) encodeSubMessage(b []byte, num uint64, ref string, v any) ([]byte, error) {
	msg := l.messages[ref]
	if msg == nil {
		return nil, fmt.Errorf("no layout for message %s", ref)
	}
	if msg.list {
		v = obj{"items": v}
	}
	if msg.oneOf {
		v = msg.oneOfFields(v)
	}
	o, ok := v.(obj)
	if !ok {
		return nil, fmt.Errorf("want an object, got %T", v)
	}
	sub, err := l.encodeMessage(nil, ref, o)
	if err != nil {
		return nil, err
	}
	return appendBytes(b, num, sub), nil
}

// encodeSpecial encodes the message of a type with its own wire form
// (protodesc's special types) from its JSON form.
func encodeSpecial(kind string, v any) ([]byte, error) {
	switch kind {
	case "time", "microtime":
		s, _ := v.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, fmt.Errorf("time: %w", err)
		}
		var b []byte
		if sec := t.Unix(); sec != 0 {
			b = appendVarint(b, 1, uint64(sec))
		}
		if ns := t.Nanosecond(); ns != 0 {
			b = appendVarint(b, 2, uint64(ns))
		}
		return b, nil
	case "duration":
		s, _ := v.(string)
		d, err := time.ParseDuration(s)
		if err != nil {
			return nil, fmt.Errorf("duration: %w", err)
		}
		return appendVarint(nil, 1, uint64(d)), nil
	case "quantity":
		switch q := v.(type) {
		case string:
			return appendBytes(nil, 1, []byte(q)), nil
		case int64:
			return appendBytes(nil, 1, []byte(strconv.FormatInt(q, 10))), nil
		case float64:
			return appendBytes(nil, 1, []byte(strconv.FormatFloat(q, 'f', -1, 64))), nil
		}
		return nil, fmt.Errorf("quantity: want a string, got %T", v)
	case "intorstring":
		if s, ok := v.(string); ok {
			return appendBytes(appendVarint(appendVarint(nil, 1, 1), 2, 0), 3, []byte(s)), nil
		}
		n, err := integer(v)
		if err != nil {
			return nil, err
		}
		return appendBytes(appendVarint(appendVarint(nil, 1, 0), 2, uint64(n)), 3, nil), nil
	case "raw", "fieldsv1":
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return appendBytes(nil, 1, raw), nil
	}
	return nil, fmt.Errorf("unknown kind %q in protobuf.json", kind)
}

// integer reads a JSON integer (an int64, or a whole float64).
func integer(v any) (int64, error) {
	switch n := v.(type) {
	case int64:
		return n, nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<63 {
			return int64(n), nil
		}
	}
	return 0, fmt.Errorf("want an integer, got %v", v)
}

// number reads a JSON number.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func boolVarint(t bool) uint64 {
	if t {
		return 1
	}
	return 0
}

// appendVarint appends field num as a varint (wire type 0).
func appendVarint(b []byte, num, v uint64) []byte {
	b = binary.AppendUvarint(b, num<<3)
	return binary.AppendUvarint(b, v)
}

// appendBytes appends field num as length-delimited bytes (wire type 2).
func appendBytes(b []byte, num uint64, v []byte) []byte {
	b = binary.AppendUvarint(b, num<<3|2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}
