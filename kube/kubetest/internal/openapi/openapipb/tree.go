// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
)

// This file holds the two ends of the encoder: the JSON document read as
// a tree that keeps the order of object keys (the order in which
// kube-openapi, through gnostic, writes named entries and YAML mappings),
// and the protobuf wire format written by hand.

// node is one JSON value. Numbers keep their literal text, as YAML does.
type node struct {
	kind  nodeKind
	text  string   // a string's value; a number's, bool's or null's literal
	keys  []string // an object's keys, in document order
	elems []*node  // an object's values (parallel to keys) or an array's items
}

type nodeKind uint8

const (
	nullNode nodeKind = iota
	boolNode
	numberNode
	stringNode
	arrayNode
	objectNode
)

// get returns the value of key in an object, or nil.
func (n *node) get(key string) *node {
	for i, k := range n.keys {
		if k == key {
			return n.elems[i]
		}
	}
	return nil
}

// str returns a string value's text, and "" for anything else.
func (n *node) str() string {
	if n == nil || n.kind != stringNode {
		return ""
	}
	return n.text
}

// parse reads a JSON document into a tree. Cost: O(size of data).
func parse(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	n, err := parseValue(dec)
	if err != nil {
		return nil, fmt.Errorf("parse OpenAPI document: %w", err)
	}
	return n, nil
}

func parseValue(dec *json.Decoder) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: nullNode, text: "null"}, nil
	case bool:
		return &node{kind: boolNode, text: fmt.Sprint(t)}, nil
	case json.Number:
		return &node{kind: numberNode, text: t.String()}, nil
	case string:
		return &node{kind: stringNode, text: t}, nil
	case json.Delim:
		n := &node{kind: arrayNode}
		if t == '{' {
			n.kind = objectNode
		}
		for dec.More() {
			if n.kind == objectNode {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, k.(string))
			}
			v, err := parseValue(dec)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	}
	return nil, fmt.Errorf("unexpected token %v", tok)
}

// Protobuf wire format: a field is its number and wire type in a varint
// tag, then a varint (0), 8 bytes (1) or a length and bytes (2).

func appendTag(b []byte, num, wire int) []byte {
	return binary.AppendUvarint(b, uint64(num)<<3|uint64(wire))
}

// appendLen appends a length-delimited field; written even when empty
// (a message that is set).
func appendLen(b []byte, num int, v []byte) []byte {
	b = appendTag(b, num, 2)
	b = binary.AppendUvarint(b, uint64(len(v)))
	return append(b, v...)
}

// appendString appends a string field unless it is empty (proto3).
func appendString(b []byte, num int, s string) []byte {
	if s == "" {
		return b
	}
	return appendLen(b, num, []byte(s))
}

// appendVarint appends a varint field unless it is zero (proto3).
func appendVarint(b []byte, num int, v uint64) []byte {
	if v == 0 {
		return b
	}
	return binary.AppendUvarint(appendTag(b, num, 0), v)
}

// appendDouble appends a double field unless it is zero (proto3).
func appendDouble(b []byte, num int, f float64) []byte {
	if f == 0 && !math.Signbit(f) {
		return b
	}
	return binary.LittleEndian.AppendUint64(appendTag(b, num, 1), math.Float64bits(f))
}
