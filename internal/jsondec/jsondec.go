// SPDX-License-Identifier: Apache-2.0

// Package jsondec decodes JSON into Go values in one pass over the input,
// with keys matched as Kubernetes matches them (sigs.k8s.io/json, the
// decoder of client-go and the API server) and otherwise the results of
// encoding/json's Unmarshal.
//
// Guarantees:
//   - Keys match exactly: a member lands in a struct field only when its
//     key is the field's name (the json tag's, or the Go name of an
//     untagged field) byte for byte, after unescaping. A key that differs
//     in case or by Unicode folding ("Replicas", "replicaſ", "\u212Aind"
//     with the Kelvin sign) is an unknown key and skipped, where
//     encoding/json would fill the field with it. A key given twice is
//     decoded twice into its field, in order, as sigs.k8s.io/json's
//     non-strict decoding does: the last scalar wins, objects merge into
//     a map or struct already there. (The API server's strict decoding
//     reports duplicates of a write; it never sends one.)
//   - Otherwise the result of json.Unmarshal: for every input and target
//     type, [Decoder.Unmarshal] fails when json.Unmarshal fails, and
//     otherwise leaves the target as json.Unmarshal would given the input
//     without the members of unknown keys (json tags and "-"; embedded
//     structs; invalid UTF-8 replaced; numbers range-checked; an empty
//     interface gets map[string]any, []any, float64, string, bool or nil).
//     A fuzzer holds it to that, with internal/exactjson (encoding/json on
//     the input with those members dropped) as the oracle.
//   - One pass: each byte is scanned once, where encoding/json validates
//     the whole input before decoding it. Unknown fields are validated and
//     skipped without building values; numbers are parsed in place.
//   - A type with its own UnmarshalJSON is handed the bytes of its value
//     alone, not the whole object, and one with UnmarshalText a string's
//     text. The two kinds of types a plan does not serve (a struct with a
//     ",string" field, a map whose key type has an UnmarshalJSON) go to
//     [Options.Fallback], again for their value alone, which matches keys
//     as it does (json.Unmarshal folds case).
//   - Errors ([*Error]) name the JSON path of the value at fault
//     (".metadata.labels.app"), the Go type and the offset, never a value
//     (an error of a type's own UnmarshalJSON is wrapped as it is).
//
// The cost: a plan per Go type, built by reflection on first use and kept
// by the Decoder; one allocation per string, map, slice and pointer made,
// none to match a field. [Options] can intern chosen strings and skip
// chosen fields without building them.
//
// Where it departs from encoding/json, on purpose: keys match exactly, as
// above; decoding stops at the first error (encoding/json goes on after a
// type mismatch), so a target that failed holds part of the input; errors
// are [*Error], not *json.UnmarshalTypeError or *json.SyntaxError; and
// without [Options.Fallback] two rare kinds of types fail instead of going
// to encoding/json. Where it departs from sigs.k8s.io/json: a whole
// number decoded into an empty interface is a float64 (or a json.Number
// with [Options.UseNumber]), as encoding/json gives, not an int64.
//
// Usage:
//  1. Make one [Decoder] with [New] and keep it: it holds the plans.
//  2. Call [Decoder.Unmarshal] (or [Decoder.Object], member by member)
//     from any goroutine.
//  3. In a stream of values (a list's items), find each value's end with
//     [Extent] and decode it in one pass.
package jsondec

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
)

// Options configure a [Decoder].
type Options struct {
	// Intern, when set, makes the strings of the fields InternField
	// chooses: it is given the string's bytes (valid until it returns)
	// and returns the string to store, typically a shared copy.
	Intern func(b []byte) string
	// InternField chooses, when the plan of struct type owner is built,
	// whether the strings of its field named name in JSON are interned:
	// a string field, and the keys and values of the maps, the elements
	// of the slices and the targets of the pointers it holds (not the
	// fields of structs beneath it, which are chosen for themselves).
	InternField func(owner reflect.Type, name string) bool
	// SkipField chooses, when the plan of struct type owner is built,
	// struct fields (by JSON name) whose values are checked and skipped,
	// never built: the field keeps its value, zero in a new object (for
	// example ObjectMeta's managedFields, which a cache does not keep).
	SkipField func(owner reflect.Type, name string) bool
	// Fallback decodes the values of the two kinds of types no plan
	// serves, a struct with a ",string" field and a map whose key type
	// has an UnmarshalJSON: it is handed the value's bytes alone, and
	// matches keys as it does (json.Unmarshal matches them
	// case-insensitively, unlike the plans). Nil makes them an error, and
	// leaves encoding/json's decoder out of the program.
	Fallback func(data []byte, v any) error
	// UseNumber makes a number decoded into an empty interface a
	// json.Number, as json.Decoder.UseNumber does, instead of a float64.
	UseNumber bool
}

// Decoder decodes JSON by plans, one per Go type, built on first use. It
// is safe for concurrent use.
type Decoder struct {
	opts Options
	// plans maps a reflect.Type to its complete *plan.
	plans sync.Map
	// mu serializes the building of plans (a plan may refer to itself).
	mu sync.Mutex
}

// New returns a Decoder with opts.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func New(opts Options) *Decoder {
	return &Decoder{opts: opts}
}

// Unmarshal decodes data, which must hold one JSON value and nothing else
// but white space, into v, a non-nil pointer, as json.Unmarshal does but
// for keys, matched exactly (see the package doc).
func (d *Decoder) Unmarshal(data []byte, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(v)}
	}
	s := state{d: d, data: data, intern: d.opts.Intern}
	err := s.value(d.plan(rv.Type().Elem()), rv.Elem(), false)
	if s.space(); err == nil && s.off < len(s.data) {
		err = s.syntax("data after the value")
	}
	return err
}

// Error is an error of decoding. It quotes no part of the input.
type Error struct {
	// Offset is where the value (or the syntax error) starts in the input.
	Offset int
	// Type is the Go type the value was to be decoded into; nil for a
	// syntax error.
	Type reflect.Type
	// JSON says what was found ("string", "number", "object", "array",
	// "bool", "null") or what is wrong with it ("number out of range");
	// for a syntax error, what breaks the grammar ("unexpected end of
	// input").
	JSON string
	// Err is the error of the type's own decoding (UnmarshalJSON,
	// base64), or nil.
	Err error

	// rev holds the path's elements, innermost first (see Path).
	rev []string
}

// Path is where in the JSON the value at fault is, as
// ".metadata.labels.app" or ".items[3]"; "" is the whole value.
func (e *Error) Path() string {
	var b strings.Builder
	for i := len(e.rev) - 1; i >= 0; i-- {
		b.WriteString(e.rev[i])
	}
	return b.String()
}

func (e *Error) Error() string {
	at := "at offset " + fmt.Sprint(e.Offset)
	if p := e.Path(); p != "" {
		at = "at " + p + " (offset " + fmt.Sprint(e.Offset) + ")"
	}
	switch {
	case e.Type == nil:
		return "invalid JSON " + at + ": " + e.JSON
	case e.Err != nil:
		return fmt.Sprintf("decode %v %s: %v", e.Type, at, errText(e.Err))
	case strings.HasSuffix(e.JSON, " out of range"):
		return fmt.Sprintf("decode %v %s: a JSON %s", e.Type, at, e.JSON)
	}
	return fmt.Sprintf("cannot decode a JSON %s %s into %v", e.JSON, at, e.Type)
}

func (e *Error) Unwrap() error { return e.Err }

// errText is err's text, but an error of encoding/json about a type
// mismatch, which quotes numbers, says only the kinds.
func errText(err error) string {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		kind, _, _ := strings.Cut(te.Value, " ")
		return fmt.Sprintf("cannot decode a JSON %s into %v", kind, te.Type)
	}
	return err.Error()
}

// Object decodes data, which must hold one JSON object (or null, which
// calls member for nothing) and nothing else but white space, member by
// member: member is called with each key, unescaped and valid during the
// call, in the order of the input, and with the value, which it may read
// once; a value it leaves unread is skipped. An error of member ends the
// decoding and is returned as it is.
func (d *Decoder) Object(data []byte, member func(key []byte, v *Value) error) error {
	s := &state{d: d, data: data, intern: d.opts.Intern}
	err := s.members(d, member)
	if s.space(); err == nil && s.off < len(s.data) {
		err = s.syntax("data after the value")
	}
	return err
}

// Value is the value of an object's member, handed to the member
// function of [Decoder.Object]. Read it at most once, during the call.
type Value struct {
	d     *Decoder
	s     *state
	key   []byte
	start int // where the value starts
	depth int // s.depth at start
	read  bool
}

// Decode decodes the value into target, a non-nil pointer, as
// [Decoder.Unmarshal] does. After an error that is not a syntax error
// the value is skipped, so that the object's decoding may go on.
func (v *Value) Decode(target any) error {
	rv := reflect.ValueOf(target)
	if rv.Kind() != reflect.Pointer || rv.IsNil() {
		return &json.InvalidUnmarshalError{Type: reflect.TypeOf(target)}
	}
	return v.read1(func() error { return v.s.value(v.d.plan(rv.Type().Elem()), rv.Elem(), false) })
}

// Any returns the value as json.Unmarshal decodes it into an empty
// interface.
func (v *Value) Any() (any, error) {
	var a any
	err := v.read1(func() (err error) { a, err = v.s.anyValue(false); return err })
	return a, err
}

func (v *Value) read1(read func() error) error {
	if v.read {
		return errors.New("jsondec: a member's value read twice")
	}
	v.read = true
	err := read()
	if e, ok := err.(*Error); ok && e.Type != nil {
		v.s.off, v.s.depth = v.start, v.depth
		if serr := v.s.skip(); serr != nil {
			err = serr
		}
	}
	return at(err, "."+string(v.key))
}

// members reads an object, or null, calling member for each member.
func (s *state) members(d *Decoder, member func([]byte, *Value) error) error {
	s.space()
	if s.off < len(s.data) && s.data[s.off] == 'n' {
		return s.literal("null")
	}
	if start := s.off; start >= len(s.data) || s.data[start] != '{' {
		if err := s.skip(); err != nil {
			return err
		}
		return &Error{Offset: start, Type: reflect.TypeFor[map[string]any](), JSON: found(s.data[start])}
	}
	if err := s.open(); err != nil {
		return err
	}
	for n := 0; ; n++ {
		key, more, err := s.member(n)
		if err != nil || !more {
			return err
		}
		key = append(s.key[:0], key...) // s.buf is reused for the value's strings
		s.key = key
		s.space()
		v := Value{d: d, s: s, key: key, start: s.off, depth: s.depth}
		if err := member(key, &v); err != nil {
			return err
		}
		if !v.read {
			if err := s.skip(); err != nil {
				return err
			}
		}
	}
}
