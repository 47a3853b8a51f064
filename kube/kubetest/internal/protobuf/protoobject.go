// SPDX-License-Identifier: Apache-2.0

package protobuf

import (
	"cmp"
	_ "embed"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file decodes a protobuf object of a built-in kind into the JSON
// object the real server would decode from the same request: fields as
// encoding/json writes the Go type (omitempty scalars dropped when zero,
// structs kept even when empty, times in RFC 3339, quantities and
// int-or-strings in their JSON forms). The layout comes from
// protobuf.json; decoding costs O(size of the body).

// obj is a decoded JSON object, as package kubetest holds one.
type obj = map[string]any

//go:embed protobuf.json
var protobufJSON []byte

// protoLayout is protobuf.json parsed: the message of each
// "apiVersion/Kind", and each message's fields. It is read-only once
// built.
type protoLayout struct {
	kinds    map[string]string
	messages map[string]*protoMessage
}

// protoMessage is the layout of one message: its fields by number, and in
// the order of their numbers (the order they are encoded in).
type protoMessage struct {
	byNum  map[uint64]*protoFieldLayout
	fields []*protoFieldLayout
	// list is set for a named list type (ExtraValue): a message whose only
	// field, its items, is its whole JSON form.
	list bool
	// oneOf is set for a message whose JSON is one of its fields
	// (JSONSchemaPropsOrBool, OrArray, OrStringArray): see oneOfJSON.
	oneOf bool
}

// protoFieldLayout is one field of a message.
type protoFieldLayout struct {
	num  uint64
	json string
	// kind is a scalar kind, "message", "map", or a type with its own wire
	// form (time, microtime, duration, quantity, intorstring, raw,
	// fieldsv1).
	kind string
	// ref is the message of a message field; for a map, the kinds of its
	// key and value and the value's message.
	ref                        string
	repeated, omitZero, inline bool
}

// layout parses protobuf.json once; it is a constant of the package.
var layout = sync.OnceValue(func() *protoLayout {
	var raw struct {
		Kinds    map[string]string  `json:"kinds"`
		Messages map[string][][]any `json:"messages"`
	}
	if err := json.Unmarshal(protobufJSON, &raw); err != nil {
		panic("kubetest: protobuf.json: " + err.Error())
	}
	l := &protoLayout{kinds: raw.Kinds, messages: map[string]*protoMessage{}}
	for name, fields := range raw.Messages {
		m := &protoMessage{byNum: map[uint64]*protoFieldLayout{}}
		for _, f := range fields {
			flags := f[4].(string)
			fl := &protoFieldLayout{num: uint64(f[0].(float64)), json: f[1].(string), kind: f[2].(string), ref: f[3].(string),
				repeated: strings.Contains(flags, "r"), omitZero: strings.Contains(flags, "z"), inline: strings.Contains(flags, "i")}
			m.byNum[fl.num] = fl
			m.fields = append(m.fields, fl)
			m.list = m.list || strings.Contains(flags, "a")
			m.oneOf = m.oneOf || strings.Contains(flags, "o")
		}
		slices.SortFunc(m.fields, func(a, b *protoFieldLayout) int { return cmp.Compare(a.num, b.num) })
		l.messages[name] = m
	}
	return l
})

// DecodeObject decodes a protobuf body of the kind apiVersion/kind
// expects. ok is false when the kind has no protobuf layout (custom
// resources, CRDs).
func DecodeObject(body []byte) (o obj, ok bool, err error) {
	apiVersion, kind, raw, err := protoEnvelope(body)
	if err != nil {
		return nil, true, err
	}
	l := layout()
	msg, ok := l.kinds[apiVersion+"/"+kind]
	if !ok {
		return nil, false, nil
	}
	if o, err = l.message(msg, raw); err != nil {
		return nil, true, err
	}
	o["apiVersion"], o["kind"] = apiVersion, kind
	return o, true, nil
}

// message decodes the message name from b.
func (l *protoLayout) message(name string, b []byte) (obj, error) {
	fields, err := protoFields(b)
	if err != nil {
		return nil, err
	}
	msg := l.messages[name]
	if msg == nil {
		return nil, fmt.Errorf("no layout for message %s", name)
	}
	out := obj{}
	for _, f := range fields {
		fl := msg.byNum[f.num]
		if fl == nil {
			continue // unknown fields are dropped, as the real decoder drops them
		}
		switch {
		case fl.kind == "map":
			k, v, err := l.mapEntry(fl.ref, f.bytes)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fl.json, err)
			}
			m, _ := out[fl.json].(obj)
			if m == nil {
				m = obj{}
				out[fl.json] = m
			}
			m[k] = v
		case fl.repeated:
			vs, err := l.repeated(fl, f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fl.json, err)
			}
			list, _ := out[fl.json].([]any)
			out[fl.json] = append(list, vs...)
		default:
			v, err := l.value(fl.kind, fl.ref, f)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fl.json, err)
			}
			if inner, isObj := v.(obj); fl.inline && isObj {
				for k, iv := range inner {
					out[k] = iv
				}
				continue
			}
			if fl.omitZero && isZeroScalar(v) {
				delete(out, fl.json)
				continue
			}
			out[fl.json] = v
		}
	}
	return out, nil
}

// repeated decodes one wire field of a repeated field: one value, or for
// a packed scalar field several.
func (l *protoLayout) repeated(fl *protoFieldLayout, f protoField) ([]any, error) {
	if f.wire == 2 && isVarintKind(fl.kind) {
		var out []any
		b := f.bytes
		for len(b) > 0 {
			v, n := binary.Uvarint(b)
			if n <= 0 {
				return nil, fmt.Errorf("bad packed varint")
			}
			b = b[n:]
			x, _ := l.value(fl.kind, "", protoField{wire: 0, value: v})
			out = append(out, x)
		}
		return out, nil
	}
	v, err := l.value(fl.kind, fl.ref, f)
	return []any{v}, err
}

// mapEntry decodes a map entry (key 1, value 2) of a map described by ref.
func (l *protoLayout) mapEntry(ref string, b []byte) (string, any, error) {
	kinds := strings.Fields(ref)
	if len(kinds) < 2 {
		return "", nil, fmt.Errorf("bad map layout %q", ref)
	}
	valueRef := ""
	if len(kinds) > 2 {
		valueRef = kinds[2]
	}
	fields, err := protoFields(b)
	if err != nil {
		return "", nil, err
	}
	var key string
	var value any
	if value, err = l.value(kinds[1], valueRef, protoField{wire: 2}); err != nil {
		return "", nil, err
	}
	for _, f := range fields {
		switch f.num {
		case 1:
			key = string(f.bytes)
		case 2:
			if value, err = l.value(kinds[1], valueRef, f); err != nil {
				return "", nil, err
			}
		}
	}
	return key, value, nil
}

// value converts one wire field to its JSON value.
func (l *protoLayout) value(kind, ref string, f protoField) (any, error) {
	switch kind {
	case "string":
		return string(f.bytes), nil
	case "bytes":
		return base64.StdEncoding.EncodeToString(f.bytes), nil
	case "bool":
		return f.value != 0, nil
	case "int32":
		return int64(int32(f.value)), nil
	case "int64":
		return int64(f.value), nil
	case "uint32", "uint64":
		if f.value > math.MaxInt64 {
			return float64(f.value), nil
		}
		return int64(f.value), nil
	case "double":
		return math.Float64frombits(f.value), nil
	case "message":
		o, err := l.message(ref, f.bytes)
		switch {
		case err != nil:
			return nil, err
		case l.messages[ref].oneOf:
			return l.messages[ref].oneOfJSON(o), nil
		case !l.messages[ref].list:
			return o, nil
		}
		items, _ := o["items"].([]any)
		if items == nil {
			items = []any{}
		}
		return items, nil
	}
	sub, err := protoFields(f.bytes)
	if err != nil {
		return nil, err
	}
	var ints [4]uint64
	var strs [4][]byte
	for _, s := range sub {
		if s.num < 4 {
			ints[s.num], strs[s.num] = s.value, s.bytes
		}
	}
	switch kind {
	case "time", "microtime":
		if ints[1] == 0 && ints[2] == 0 {
			return nil, nil // the zero time is null in JSON
		}
		t := time.Unix(int64(ints[1]), int64(int32(ints[2]))).UTC()
		if kind == "time" {
			return t.Format(time.RFC3339), nil
		}
		return t.Format("2006-01-02T15:04:05.000000Z07:00"), nil
	case "duration":
		return time.Duration(int64(ints[1])).String(), nil
	case "quantity":
		return string(strs[1]), nil
	case "intorstring":
		if ints[1] == 1 {
			return string(strs[3]), nil
		}
		return int64(int32(ints[2])), nil
	case "raw", "fieldsv1":
		if len(strs[1]) == 0 {
			return nil, nil
		}
		var v any
		if err := unstructured.DecodeExact(strs[1], &v); err != nil {
			return nil, fmt.Errorf("embedded JSON: %w", err)
		}
		return v, nil
	}
	return nil, fmt.Errorf("unknown kind %q in protobuf.json", kind)
}

func isVarintKind(kind string) bool {
	switch kind {
	case "bool", "int32", "int64", "uint32", "uint64":
		return true
	}
	return false
}

// isZeroScalar reports whether v is the zero value of a scalar, which an
// omitempty field leaves out of the JSON.
func isZeroScalar(v any) bool {
	switch t := v.(type) {
	case string:
		return t == ""
	case bool:
		return !t
	case float64:
		return t == 0
	case int64:
		return t == 0
	}
	return false
}

// oneOfJSON is the JSON form of a oneOf message decoded as o (its fields
// by their protobuf names), as its Go MarshalJSON writes it: the list
// field when it has items, else the message field when set, else the
// bool (false when unset), else null.
func (m *protoMessage) oneOfJSON(o obj) any {
	for _, f := range m.fields {
		if items, _ := o[f.json].([]any); f.repeated && len(items) > 0 {
			return items
		}
	}
	var flag any
	for _, f := range m.fields {
		switch {
		case f.repeated:
		case f.kind == "message" && o[f.json] != nil:
			return o[f.json]
		case f.kind == "bool":
			flag, _ = o[f.json].(bool)
		}
	}
	return flag
}

// oneOfFields is the inverse of oneOfJSON: the fields, by their protobuf
// names, that hold the JSON value v.
func (m *protoMessage) oneOfFields(v any) obj {
	out := obj{}
	for _, f := range m.fields {
		switch v.(type) {
		case []any:
			if f.repeated {
				out[f.json] = v
			}
		case obj:
			if f.kind == "message" && !f.repeated {
				out[f.json] = v
			}
			if f.kind == "bool" {
				out[f.json] = true // an object allows, as UnmarshalJSON sets it
			}
		case bool:
			if f.kind == "bool" {
				out[f.json] = v
			}
		}
	}
	return out
}

// ToJSON decodes a protobuf body of a kind with a protobuf form into its
// JSON, for readers of a JSON body (an Eviction's).
func ToJSON(body []byte) ([]byte, error) {
	o, ok, err := DecodeObject(body)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("no protobuf form for the kind of the body")
	}
	return json.Marshal(o)
}
