// SPDX-License-Identifier: Apache-2.0

package jsondec

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"errors"
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
	case kAny, kIface:
		if !v.IsNil() { // as encoding/json, decode into a pointer held there
			if e := v.Elem(); e.Kind() == reflect.Pointer && !e.IsNil() && (c != 'n' || e.Elem().Kind() == reflect.Pointer) {
				return s.value(s.d.plan(e.Type().Elem()), e.Elem(), intern)
			}
		}
		if p.kind == kIface {
			break
		}
		a, err := s.anyValue(intern)
		if err != nil {
			return err
		}
		if a == nil {
			v.SetZero()
		} else {
			v.Set(reflect.ValueOf(a))
		}
		return nil
	}
	switch c {
	case 'n':
		if err := s.literal("null"); err != nil {
			return err
		}
		switch p.typ.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map, reflect.Interface:
			v.SetZero()
		}
		return nil
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
		switch p.kind {
		case kString, kNumber:
			str, err := s.str(intern)
			if err != nil {
				return err
			}
			if p.kind == kNumber && !validNumber(str) {
				return s.typeError(p, start, "string that is not a number")
			}
			v.SetString(str)
			return nil
		case kText:
			b, err := s.strBytes()
			if err != nil {
				return err
			}
			if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText(b); err != nil {
				return &Error{Offset: start, Type: p.typ, Err: err}
			}
			return nil
		case kBytes:
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
		case kPointer:
			return s.pointer(p, v, intern)
		}
	case 't', 'f':
		word := "false"
		if c == 't' {
			word = "true"
		}
		if err := s.literal(word); err != nil {
			return err
		}
		switch p.kind {
		case kBool:
			v.SetBool(c == 't')
			return nil
		case kPointer:
			s.off = start
			return s.pointer(p, v, intern)
		}
	default:
		num, err := s.number()
		if err != nil {
			return err
		}
		switch p.kind {
		case kInt:
			n, ok := parseInt(num)
			if !ok || v.OverflowInt(n) {
				return s.typeError(p, start, "number out of range")
			}
			v.SetInt(n)
			return nil
		case kUint:
			n, err := strconv.ParseUint(string(num), 10, 64)
			if err != nil || v.OverflowUint(n) {
				return s.typeError(p, start, "number out of range")
			}
			v.SetUint(n)
			return nil
		case kFloat:
			f, err := strconv.ParseFloat(string(num), p.typ.Bits())
			if err != nil || v.OverflowFloat(f) {
				return s.typeError(p, start, "number out of range")
			}
			v.SetFloat(f)
			return nil
		case kNumber:
			v.SetString(string(num))
			return nil
		case kPointer:
			s.off = start
			return s.pointer(p, v, intern)
		}
	}
	s.off = start
	return s.typeError(p, start, found(c))
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

// lookup finds the field key names: exactly, else as encoding/json folds
// names. hint is where to look first.
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
	var buf [64]byte
	folded := fold(buf[:0], key)
	for i := range fs {
		if fs[i].folded == string(folded) {
			return &fs[i]
		}
	}
	return nil
}

// mapValue decodes an object into the map v, whose keys are strings.
// Each value is decoded into a new element, as encoding/json does.
func (s *state) mapValue(p *plan, v reflect.Value, intern bool) error {
	if err := s.open(); err != nil {
		return err
	}
	if v.IsNil() {
		v.Set(reflect.MakeMap(p.typ))
	}
	switch m := v.Addr().Interface().(type) {
	case *map[string]string:
		return s.stringMap(*m, intern)
	case *map[string]any:
		return s.anyMap(*m, intern)
	}
	var elem reflect.Value
	for n := 0; ; n++ {
		key, more, err := s.member(n)
		if err != nil || !more {
			return err
		}
		kv, name, err := s.mapKey(p, key, intern)
		if err != nil {
			return at(err, "."+string(key))
		}
		if !elem.IsValid() {
			elem = reflect.New(p.elem.typ).Elem()
		} else {
			elem.SetZero()
		}
		if err := s.value(p.elem, elem, intern); err != nil {
			return at(err, "."+name)
		}
		v.SetMapIndex(kv, elem)
	}
}

// mapKey makes the key of a map's entry from the member's key, and
// returns it as a string too, for errors.
func (s *state) mapKey(p *plan, key []byte, intern bool) (reflect.Value, string, error) {
	kt := p.typ.Key()
	name := s.makeString(key, intern && p.key == keyString)
	if kt == stringType {
		return reflect.ValueOf(name), name, nil
	}
	kv := reflect.New(kt)
	var err error
	switch p.key {
	case keyString:
		kv.Elem().SetString(name)
	case keyText:
		err = kv.Interface().(encoding.TextUnmarshaler).UnmarshalText(key)
	case keyInt:
		n, perr := strconv.ParseInt(name, 10, 64)
		if perr != nil || kv.Elem().OverflowInt(n) {
			return kv, name, &Error{Offset: s.off, Type: kt, JSON: "key out of range"}
		}
		kv.Elem().SetInt(n)
	case keyUint:
		n, perr := strconv.ParseUint(name, 10, 64)
		if perr != nil || kv.Elem().OverflowUint(n) {
			return kv, name, &Error{Offset: s.off, Type: kt, JSON: "key out of range"}
		}
		kv.Elem().SetUint(n)
	}
	if err != nil {
		return kv, name, &Error{Offset: s.off, Type: kt, Err: err}
	}
	return kv.Elem(), name, nil
}

var stringType = reflect.TypeFor[string]()

// errNoFallback is the error for a value of a type no plan serves, when
// there is no Options.Fallback.
var errNoFallback = errors.New("jsondec: no Options.Fallback to decode this type (a struct with a \",string\" field, or a map whose key type has an UnmarshalJSON)")

// validNumber reports whether s is a JSON number.
func validNumber(str string) bool {
	t := state{data: []byte(str)}
	_, err := t.number()
	return err == nil && t.off == len(str)
}

// stringMap decodes an object's members into m, the common labels and
// annotations, without reflection.
func (s *state) stringMap(m map[string]string, intern bool) error {
	for n := 0; ; n++ {
		key, more, err := s.member(n)
		if err != nil || !more {
			return err
		}
		k := s.makeString(key, intern)
		s.space()
		if s.off < len(s.data) && s.data[s.off] != '"' {
			if s.data[s.off] == 'n' {
				if err := s.literal("null"); err != nil {
					return err
				}
				m[k] = ""
				continue
			}
			return at(&Error{Offset: s.off, Type: reflect.TypeFor[string](), JSON: found(s.data[s.off])}, "."+k)
		}
		val, err := s.str(intern)
		if err != nil {
			return at(err, "."+k)
		}
		m[k] = val
	}
}

// anyMap decodes an object's members into m without reflection.
func (s *state) anyMap(m map[string]any, intern bool) error {
	for n := 0; ; n++ {
		key, more, err := s.member(n)
		if err != nil || !more {
			return err
		}
		k := s.makeString(key, intern)
		val, err := s.anyValue(intern)
		if err != nil {
			return at(err, "."+k)
		}
		m[k] = val
	}
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

// anyValue decodes the next value as encoding/json decodes into an empty
// interface.
func (s *state) anyValue(intern bool) (any, error) {
	s.space()
	if s.off >= len(s.data) {
		return nil, s.syntax("unexpected end of input")
	}
	start := s.off
	switch c := s.data[s.off]; c {
	case '{':
		if err := s.open(); err != nil {
			return nil, err
		}
		m := map[string]any{}
		for n := 0; ; n++ {
			key, more, err := s.member(n)
			if err != nil || !more {
				return m, err
			}
			k := s.makeString(key, intern)
			val, err := s.anyValue(intern)
			if err != nil {
				return nil, at(err, "."+k)
			}
			m[k] = val
		}
	case '[':
		if err := s.open(); err != nil {
			return nil, err
		}
		a := []any{}
		for i := 0; ; i++ {
			more, err := s.element(i)
			if err != nil || !more {
				return a, err
			}
			val, err := s.anyValue(intern)
			if err != nil {
				return nil, at(err, "["+strconv.Itoa(i)+"]")
			}
			a = append(a, val)
		}
	case '"':
		return s.str(intern)
	case 't':
		return true, s.literal("true")
	case 'f':
		return false, s.literal("false")
	case 'n':
		return nil, s.literal("null")
	default:
		num, err := s.number()
		if err != nil {
			return nil, err
		}
		if n, ok := parseInt(num); ok && n > -1<<53 && n < 1<<53 && (n != 0 || num[0] != '-') {
			return float64(n), nil
		}
		f, err := strconv.ParseFloat(string(num), 64)
		if err != nil {
			return nil, &Error{Offset: start, Type: reflect.TypeFor[float64](), JSON: "number out of range"}
		}
		return f, nil
	}
}

// typeError is the error for a value of the wrong kind, or out of range,
// at offset start.
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
