// SPDX-License-Identifier: Apache-2.0

package yaml

import (
	"bytes"
	"fmt"
)

// MaxDepth is the deepest nesting of collections [Parse] accepts. Kubeconfig
// files nest six levels deep; the bound keeps hostile input from exhausting
// the stack.
const MaxDepth = 100

// Kind is the kind of a [Node].
type Kind uint8

// The kinds of nodes.
const (
	Null Kind = iota
	Scalar
	Mapping
	Sequence
)

// String returns "null", "scalar", "mapping" or "sequence".
func (k Kind) String() string {
	switch k {
	case Null:
		return "null"
	case Scalar:
		return "scalar"
	case Mapping:
		return "mapping"
	case Sequence:
		return "sequence"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Node is one value of a parsed document. Only the fields of its Kind are
// set. A Node and everything it points to belong to the caller.
type Node struct {
	Kind Kind
	// Line and Column locate the first byte of the node, counting from 1;
	// Column counts bytes. Zero means unknown.
	Line, Column int
	// Text is a scalar's value, after unquoting and folding.
	Text string
	// Quoted is true when a scalar was written in quotes (or was a JSON
	// string).
	Quoted bool
	// Entries are a mapping's key/value pairs in document order; keys are
	// unique.
	Entries []Entry
	// Items are a sequence's values in document order; never nil elements.
	Items []*Node
}

// Entry is one key/value pair of a mapping.
type Entry struct {
	Key string
	// Line and Column locate the key.
	Line, Column int
	// Value is never nil; a missing value is a Null node.
	Value *Node
}

// Get returns the value of key in mapping n, or nil when n is nil, is not a
// mapping, or has no such key. It costs O(len(n.Entries)).
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Mapping {
		return nil
	}
	for i := range n.Entries {
		if n.Entries[i].Key == key {
			return n.Entries[i].Value
		}
	}
	return nil
}

// Value converts the tree to plain Go values: map[string]any for a mapping,
// []any for a sequence, string for a scalar and nil for null.
func (n *Node) Value() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Scalar:
		return n.Text
	case Mapping:
		m := make(map[string]any, len(n.Entries))
		for _, e := range n.Entries {
			m[e.Key] = e.Value.Value()
		}
		return m
	case Sequence:
		s := make([]any, len(n.Items))
		for i, it := range n.Items {
			s[i] = it.Value()
		}
		return s
	}
	return nil
}

// SyntaxError says where and why a document could not be read.
type SyntaxError struct {
	// Line and Column count from 1; Column is 0 when unknown.
	Line, Column int
	// Msg says what was expected or what is not supported.
	Msg string
}

// Error returns "line N, column C: msg" (or "line N: msg").
func (e *SyntaxError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
}

// Parse reads one YAML (or JSON) document and returns it as plain Go values:
// map[string]any, []any, string or nil. An empty document is nil. Errors are
// [*SyntaxError].
func Parse(data []byte) (any, error) {
	n, err := ParseNode(data)
	if err != nil {
		return nil, err
	}
	return n.Value(), nil
}

// ParseNode reads one YAML (or JSON) document and returns its tree. An empty
// document is a Null node. Errors are [*SyntaxError].
func ParseNode(data []byte) (*Node, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') {
		n, err := parseJSON(data)
		if err == nil {
			return n, nil
		}
		// Not JSON: it may still be a one-line YAML flow collection
		// ("{a: b}"). When it is not that either, the JSON error says more.
		if yn, yerr := parseYAML(data); yerr == nil {
			return yn, nil
		}
		return nil, err
	}
	return parseYAML(data)
}

// parseYAML reads a block-style YAML document.
func parseYAML(data []byte) (*Node, error) {
	lines, err := splitLines(data)
	if err != nil {
		return nil, err
	}
	p := &parser{lines: lines}
	first, ok, err := p.peek()
	if err != nil {
		return nil, err
	}
	if !ok {
		return &Node{Kind: Null, Line: 1, Column: 1}, nil
	}
	n, err := p.parseBlock(first.indent, -1, 0)
	if err != nil {
		return nil, err
	}
	if rest, ok, err := p.peek(); err != nil {
		return nil, err
	} else if ok {
		return nil, errAt(rest, rest.indent, "unexpected content at indentation %d: expected the end of the document (check the indentation)", rest.indent)
	}
	return n, nil
}
