// SPDX-License-Identifier: Apache-2.0

package jsondec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"strconv"
)

// state is one decoding: the input and the position in it.
type state struct {
	d      *Decoder
	data   []byte
	off    int // the next byte to read
	depth  int // arrays and objects open, bounded as encoding/json bounds them
	intern func([]byte) string
	// buf holds a string being unescaped.
	buf []byte
	// key holds the key of the member of Decoder.Object being read.
	key []byte
}

// maxDepth is encoding/json's bound on nesting.
const maxDepth = 10000

// value decodes the next value into v (settable) by p; intern says
// whether its strings are interned.
func (s *state) value(p *plan, v reflect.Value, intern bool) error {
	s.space()
	if s.off >= len(s.data) {
		return s.syntax("unexpected end of input")
	}
	start := s.off
	c := s.data[start]
	switch p.kind {
	case kUnmarshaler, kFallback:
		return s.rawValue(p, v, start)
	case kAny, kIface:
		if done, err := s.interfaceValue(p, v, c, intern); done {
			return err
		}
	}
	var took bool
	var err error
	switch c {
	case 'n':
		return s.null(p, v)
	case '{':
		switch p.kind {
		case kStruct:
			return s.object(p, v)
		case kMap:
			return s.mapValue(p, v, intern)
		case kPointer:
			return s.pointer(p, v, intern)
		}
	case '[':
		switch p.kind {
		case kSlice, kBytes, kArray:
			return s.array(p, v, intern)
		case kPointer:
			return s.pointer(p, v, intern)
		}
	case '"':
		took, err = s.stringInto(p, v, start, intern)
	case 't', 'f':
		took, err = s.boolInto(p, v, c, start, intern)
	default:
		took, err = s.numberInto(p, v, start, intern)
	}
	if took || err != nil {
		return err
	}
	s.off = start
	return s.typeError(p, start, found(c))
}

// The xxxInto functions below decode the JSON value at s.off, whose first
// byte names its JSON type, into v of plan p. Each reports took false,
// with a nil error, when p's kind does not take that JSON type: value then
// rewinds to the value's start and reports the mismatch.

// rawValue hands the JSON value at start, whole, to v's UnmarshalJSON
// (kUnmarshaler) or to the decoder's Fallback (kFallback).
func (s *state) rawValue(p *plan, v reflect.Value, start int) error {
	if err := s.skip(); err != nil {
		return err
	}
	var err error
	switch fallback := s.d.opts.Fallback; {
	case p.kind == kUnmarshaler:
		err = v.Addr().Interface().(json.Unmarshaler).UnmarshalJSON(s.data[start:s.off])
	case fallback == nil:
		err = errNoFallback
	default:
		err = fallback(s.data[start:s.off], v.Addr().Interface())
	}
	if err != nil {
		return &Error{Offset: start, Type: p.typ, Err: err}
	}
	return nil
}

// interfaceValue decodes into an interface v (kAny, kIface): into the
// pointer v holds, as encoding/json does, or, for kAny, a value of
// anyValue. It reports done false for a kIface without such a pointer,
// which only null can then fill.
func (s *state) interfaceValue(p *plan, v reflect.Value, c byte, intern bool) (done bool, err error) {
	if !v.IsNil() { // as encoding/json, decode into a pointer held there
		if e := v.Elem(); e.Kind() == reflect.Pointer && !e.IsNil() && (c != 'n' || e.Elem().Kind() == reflect.Pointer) {
			return true, s.value(s.d.plan(e.Type().Elem()), e.Elem(), intern)
		}
	}
	if p.kind == kIface {
		return false, nil
	}
	a, err := s.anyValue(intern)
	if err != nil {
		return true, err
	}
	if a == nil {
		v.SetZero()
	} else {
		v.Set(reflect.ValueOf(a))
	}
	return true, nil
}

// null decodes null: it zeroes a pointer, slice, map or interface and
// leaves other kinds as they are.
func (s *state) null(p *plan, v reflect.Value) error {
	if err := s.literal("null"); err != nil {
		return err
	}
	switch p.typ.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
		v.SetZero()
	}
	return nil
}

func (s *state) stringInto(p *plan, v reflect.Value, start int, intern bool) (took bool, err error) {
	switch p.kind {
	case kString, kNumber:
		str, err := s.str(intern)
		if err != nil {
			return true, err
		}
		if p.kind == kNumber && !validNumber(str) {
			return true, s.typeError(p, start, "string that is not a number")
		}
		v.SetString(str)
		return true, nil
	case kText:
		b, err := s.strBytes()
		if err != nil {
			return true, err
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(b); err != nil {
			return true, &Error{Offset: start, Type: p.typ, Err: err}
		}
		return true, nil
	case kBytes:
		return true, s.base64Value(p, v, start)
	case kPointer:
		return true, s.pointer(p, v, intern)
	}
	return false, nil
}

// base64Value decodes a JSON string holding base64 into a []byte v.
func (s *state) base64Value(p *plan, v reflect.Value, start int) error {
	b, err := s.strBytes()
	if err != nil {
		return err
	}
	out := make([]byte, base64.StdEncoding.DecodedLen(len(b)))
	n, err := base64.StdEncoding.Decode(out, b)
	if err != nil {
		return &Error{Offset: start, Type: p.typ, Err: err}
	}
	v.SetBytes(out[:n])
	return nil
}

func (s *state) boolInto(p *plan, v reflect.Value, c byte, start int, intern bool) (took bool, err error) {
	word := "false"
	if c == 't' {
		word = "true"
	}
	if err := s.literal(word); err != nil {
		return true, err
	}
	switch p.kind {
	case kBool:
		v.SetBool(c == 't')
		return true, nil
	case kPointer:
		s.off = start
		return true, s.pointer(p, v, intern)
	}
	return false, nil
}

func (s *state) numberInto(p *plan, v reflect.Value, start int, intern bool) (took bool, err error) {
	num, err := s.number()
	if err != nil {
		return true, err
	}
	switch p.kind {
	case kInt:
		n, ok := parseInt(num)
		if !ok || v.OverflowInt(n) {
			return true, s.typeError(p, start, "number out of range")
		}
		v.SetInt(n)
	case kUint:
		n, err := strconv.ParseUint(string(num), 10, 64)
		if err != nil || v.OverflowUint(n) {
			return true, s.typeError(p, start, "number out of range")
		}
		v.SetUint(n)
	case kFloat:
		f, err := strconv.ParseFloat(string(num), p.typ.Bits())
		if err != nil || v.OverflowFloat(f) {
			return true, s.typeError(p, start, "number out of range")
		}
		v.SetFloat(f)
	case kNumber:
		v.SetString(string(num))
	case kPointer:
		s.off = start
		return true, s.pointer(p, v, intern)
	default:
		return false, nil
	}
	return true, nil
}

// pointer decodes a value that is not null into what v points at, making
// it when v is nil.
func (s *state) pointer(p *plan, v reflect.Value, intern bool) error {
	if v.IsNil() {
		v.Set(reflect.New(p.typ.Elem()))
	}
	return s.value(p.elem, v.Elem(), intern)
}

// object decodes an object into the struct v.
func (s *state) object(p *plan, v reflect.Value) error {
	if err := s.open(); err != nil {
		return err
	}
	hint := 0 // the field after the last one met: objects keep their order
	for n := 0; ; n++ {
		key, more, err := s.member(n)
		if err != nil || !more {
			return err
		}
		f := p.lookup(key, &hint)
		if f == nil || f.skip {
			if err := s.skip(); err != nil {
				return err
			}
			continue
		}
		fv := v
		for i, x := range f.index {
			if i > 0 && fv.Kind() == reflect.Pointer {
				if fv.IsNil() {
					if !fv.CanSet() {
						return s.typeError(p, s.off, "object for an unexported embedded pointer")
					}
					fv.Set(reflect.New(fv.Type().Elem()))
				}
				fv = fv.Elem()
			}
			fv = fv.Field(x)
		}
		if err := s.value(f.plan, fv, f.intern); err != nil {
			return at(err, "."+f.name)
		}
	}
}

// lookup finds the field key names exactly, as Kubernetes matches keys
// (sigs.k8s.io/json): a key that differs from every name, if only in
// case, names none. hint is where to look first.
func (p *plan) lookup(key []byte, hint *int) *field {
	fs := p.fields
	if h := *hint; h < len(fs) && fs[h].name == string(key) {
		*hint = h + 1
		return &fs[h]
	}
	for i := range fs {
		if fs[i].name == string(key) {
			*hint = i + 1
			return &fs[i]
		}
	}
	return nil
}

// array decodes an array into the slice or array v, element by element
// into its place, as encoding/json does.
func (s *state) array(p *plan, v reflect.Value, intern bool) error {
	if err := s.open(); err != nil {
		return err
	}
	slice := p.kind != kArray
	i := 0
	for ; ; i++ {
		more, err := s.element(i)
		if err != nil {
			return err
		}
		if !more {
			break
		}
		if slice {
			if i >= v.Cap() {
				v.Grow(1)
			}
			if i >= v.Len() {
				v.SetLen(i + 1)
			}
		}
		if i < v.Len() {
			err = s.value(p.elem, v.Index(i), intern)
		} else {
			err = s.skip()
		}
		if err != nil {
			return at(err, "["+strconv.Itoa(i)+"]")
		}
	}
	switch {
	case !slice:
		for j := i; j < v.Len(); j++ {
			v.Index(j).SetZero()
		}
	case i == 0:
		v.Set(reflect.MakeSlice(p.typ, 0, 0))
	case i < v.Len():
		v.SetLen(i)
	}
	return nil
}

// typeError is the error for a value of the wrong kind, or out of range,
// at offset start.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func (s *state) typeError(p *plan, start int, what string) error {
	return &Error{Offset: start, Type: p.typ, JSON: what}
}

// found names the kind of JSON value that starts with c.
func found(c byte) string {
	switch c {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

// at adds elem to the path of err, an error coming out of a value.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func at(err error, elem string) error {
	if e, ok := err.(*Error); ok {
		e.rev = append(e.rev, elem)
	}
	return err
}

// parseInt parses num, a JSON number, as an int64; ok is false when it has
// a fraction or an exponent, or is out of range.
func parseInt(num []byte) (int64, bool) {
	if len(num) < 19 {
		neg := num[0] == '-'
		digits := num
		if neg {
			digits = num[1:]
		}
		var n int64
		for _, c := range digits {
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n, true
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	return n, err == nil
}
