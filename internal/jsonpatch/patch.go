// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
)

// The operations of RFC 6902.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
	OpMove    = "move"
	OpCopy    = "copy"
	OpTest    = "test"
)

// Operation is one operation of an RFC 6902 JSON patch, as on the wire.
type Operation struct {
	// Op is one of the Op constants.
	Op string `json:"op"`
	// Path is an RFC 6901 pointer to the target location.
	Path string `json:"path"`
	// From is the source location of move and copy, where "" is the whole
	// document: MarshalJSON always writes it for move and copy, and
	// ParseOperations rejects a move or copy without one.
	From string `json:"from,omitempty"`
	// Value is the JSON value of add, replace and test, kept raw so that
	// an explicit null (the 4 bytes "null") differs from absent (nil).
	Value json.RawMessage `json:"value,omitempty"`
}

// MarshalJSON writes op, path, from (for move and copy always, so that a
// from of "" is not lost; for other operations when it is set) and value
// (when set).
func (o Operation) MarshalJSON() ([]byte, error) {
	type wire struct {
		Op    string          `json:"op"`
		Path  string          `json:"path"`
		From  *string         `json:"from,omitempty"`
		Value json.RawMessage `json:"value,omitempty"`
	}
	w := wire{Op: o.Op, Path: o.Path, Value: o.Value}
	if o.From != "" || o.Op == OpMove || o.Op == OpCopy {
		w.From = &o.From
	}
	return json.Marshal(w)
}

// TestFailedError is returned when a "test" operation does not hold: the
// value at Path is not [Equal] to the operation's value, or there is none.
type TestFailedError struct {
	// Path is the operation's path as written.
	Path string
	// Want is the operation's value; Got the value found at Path.
	Want, Got any
	// Err is non-nil, a *PathError, when Path leads to no value.
	Err error
}

func (e *TestFailedError) Error() string {
	if pe, ok := e.Err.(*PathError); ok {
		return fmt.Sprintf("test %q failed: %s", e.Path, pe.Reason)
	}
	if e.Err != nil {
		return fmt.Sprintf("test %q failed: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("test %q failed: value is %s, want %s", e.Path, brief(e.Got), brief(e.Want))
}

// Unwrap returns Err.
func (e *TestFailedError) Unwrap() error { return e.Err }

// ParseOperations decodes a JSON patch: an array of operation objects. It
// checks what can be checked without a document: op is known, path (and
// from, for move and copy) is present and a valid pointer, value is
// present for add, replace and test, and no operation repeats a member
// name (RFC 6902 A.13). Unknown members are ignored (A.11).
func ParseOperations(patch []byte) ([]Operation, error) {
	trimmed := bytes.TrimLeft(patch, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		return nil, errors.New("parse json patch: a patch must be a JSON array of operations")
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(patch, &raws); err != nil {
		return nil, fmt.Errorf("parse json patch: %w", err)
	}
	ops := make([]Operation, len(raws))
	for i, raw := range raws {
		op, err := parseOperation(raw)
		if err != nil {
			return nil, fmt.Errorf("parse json patch: operation %d: %w", i, err)
		}
		ops[i] = op
	}
	return ops, nil
}

// parseOperation decodes and checks one operation object.
func parseOperation(raw json.RawMessage) (Operation, error) {
	members, err := objectMembers(raw)
	if err != nil {
		return Operation{}, err
	}
	var op Operation
	str := func(name string, dst *string) (bool, error) {
		m, ok := members[name]
		if !ok {
			return false, nil
		}
		if err := json.Unmarshal(m, dst); err != nil {
			return true, fmt.Errorf("member %q must be a string", name)
		}
		return true, nil
	}
	if ok, err := str("op", &op.Op); err != nil || !ok {
		return op, cmp.Or(err, errors.New(`missing member "op"`))
	}
	if ok, err := str("path", &op.Path); err != nil || !ok {
		return op, cmp.Or(err, errors.New(`missing member "path"`))
	}
	if _, err := parsePointer(op.Path); err != nil {
		return op, fmt.Errorf("invalid path %q: %w", op.Path, err)
	}
	switch op.Op {
	case OpAdd, OpReplace, OpTest:
		v, ok := members["value"]
		if !ok {
			return op, fmt.Errorf(`%s needs member "value"`, op.Op)
		}
		op.Value = v
	case OpMove, OpCopy:
		if ok, err := str("from", &op.From); err != nil || !ok {
			return op, cmp.Or(err, fmt.Errorf(`%s needs member "from"`, op.Op))
		}
		if _, err := parsePointer(op.From); err != nil {
			return op, fmt.Errorf("invalid from %q: %w", op.From, err)
		}
	case OpRemove:
	default:
		return op, fmt.Errorf("unknown op %q", op.Op)
	}
	return op, nil
}

// objectMembers splits a JSON object into its raw members, rejecting a
// member name that appears twice.
func objectMembers(raw json.RawMessage) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("an operation must be a JSON object")
	}
	members := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := members[name]; dup {
			return nil, fmt.Errorf("member %q appears twice", name)
		}
		members[name] = v
	}
	return members, nil
}

// ApplyValue applies ops in order to a deep copy of doc and returns the
// result, which the caller owns; doc is not modified. It is all or nothing:
// if an operation fails, ApplyValue returns nil and an error that names the
// operation's index and wraps a [*PathError], a [*TestFailedError] or the
// reason the operation is malformed.
//
// Values from the operations are decoded with json.Number for numbers.
// Removing the whole document (path "") is an error; add and replace at ""
// replace it. The cost is O(size of doc) for the copy plus, per operation,
// O(depth of its path + size of its value), and O(length) for an array
// insertion or removal.
func ApplyValue(doc any, ops []Operation) (any, error) {
	return ApplyValueLimit(doc, ops, 0)
}

// ApplyValueLimit is [ApplyValue] with its copy operations bounded: the
// values they copy may add up to maxCopyBytes bytes of JSON (each counted
// as its compact encoding), and the operation that would pass that fails
// with a [*CopyLimitError] before it copies anything. Without a bound, n
// copies can make a document 2^n times its size. maxCopyBytes <= 0 means
// no bound. Counting a copy costs O(its size) up to the bytes left, so a
// patch's copies cost O(maxCopyBytes) in all.
func ApplyValueLimit(doc any, ops []Operation, maxCopyBytes int64) (any, error) {
	doc = DeepCopy(doc)
	budget := &copyBudget{limit: maxCopyBytes}
	for i, op := range ops {
		var err error
		if doc, err = applyOne(doc, op, budget); err != nil {
			return nil, fmt.Errorf("apply json patch: operation %d: %w", i, err)
		}
	}
	return doc, nil
}

// Apply is [ApplyValue] on JSON text: it decodes doc (numbers as
// json.Number), parses patch with [ParseOperations], applies it and
// encodes the result compactly with object members sorted by name.
func Apply(doc, patch []byte) ([]byte, error) {
	d, err := decode(doc)
	if err != nil {
		return nil, fmt.Errorf("decode json patch target: %w", err)
	}
	ops, err := ParseOperations(patch)
	if err != nil {
		return nil, err
	}
	out, err := ApplyValue(d, ops)
	if err != nil {
		return nil, err
	}
	b, err := encode(out)
	if err != nil {
		return nil, fmt.Errorf("encode patched document: %w", err)
	}
	return b, nil
}

// applyOne applies op to doc, which it may modify, and returns the new
// document. A copy is counted against budget.
func applyOne(doc any, op Operation, budget *copyBudget) (any, error) {
	path, err := parsePointer(op.Path)
	if err != nil {
		return nil, &PathError{Op: op.Op, Path: op.Path, Reason: err.Error()}
	}
	var value any
	switch op.Op {
	case OpAdd, OpReplace, OpTest:
		if op.Value == nil {
			return nil, fmt.Errorf("%s %q: missing value", op.Op, op.Path)
		}
		if value, err = decode(op.Value); err != nil {
			return nil, fmt.Errorf("%s %q: decode value: %w", op.Op, op.Path, err)
		}
	}
	d := document{op: op}
	switch op.Op {
	case OpAdd:
		return d.add(doc, path, op.Path, value)
	case OpRemove:
		doc, _, err = d.remove(doc, path, op.Path)
		return doc, err
	case OpReplace:
		return d.replace(doc, path, op.Path, value)
	case OpTest:
		got, err := d.get(doc, path, op.Path)
		if err != nil {
			return nil, &TestFailedError{Path: op.Path, Want: value, Err: err}
		}
		if !Equal(got, value) {
			return nil, &TestFailedError{Path: op.Path, Want: value, Got: got}
		}
		return doc, nil
	case OpMove, OpCopy:
		from, err := parsePointer(op.From)
		if err != nil {
			return nil, &PathError{Op: op.Op, Path: op.From, Reason: err.Error()}
		}
		if op.Op == OpMove {
			if op.From == op.Path {
				_, err := d.get(doc, from, op.From)
				return doc, err
			}
			if isProperPrefix(from, path) {
				return nil, &PathError{Op: op.Op, Path: op.Path, Reason: fmt.Sprintf("cannot move %q into itself", op.From)}
			}
			doc, v, err := d.remove(doc, from, op.From)
			if err != nil {
				return nil, err
			}
			return d.add(doc, path, op.Path, v)
		}
		v, err := d.get(doc, from, op.From)
		if err != nil {
			return nil, err
		}
		if err := budget.take(v); err != nil {
			return nil, fmt.Errorf("copy %q: %w", op.From, err)
		}
		return d.add(doc, path, op.Path, DeepCopy(v))
	}
	return nil, fmt.Errorf("unknown op %q", op.Op)
}
