// SPDX-License-Identifier: Apache-2.0

package jsondec

import (
	"encoding"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
)

// This file decodes objects into maps and any value into an empty
// interface, as encoding/json does.

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
var errNoFallback = errors.New("not supported: a struct with a \",string\" field, or a map whose key type has its own UnmarshalJSON (jsondec without Options.Fallback)")

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
		if s.d != nil && s.d.opts.UseNumber {
			return json.Number(num), nil
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
