// SPDX-License-Identifier: Apache-2.0

// Package deepcopy copies plain Go values (the structs objects decode into)
// so that the copy shares nothing mutable with the original.
//
// Guarantees:
//   - After copy(dst, src), changing dst through any exported field, map,
//     slice, pointer or interface never changes src, and the other way round.
//   - Strings are shared, not copied: they are immutable.
//   - Unexported fields are copied as they are (shallowly): reflection cannot
//     reach into them, and the ones objects carry (time.Time's *Location) are
//     immutable anyway.
//   - A type's own DeepCopyInto method (the controller-gen convention) is
//     not called: finding and calling a method by reflection links
//     reflect's function-type machinery, 0.10 MB in every program that
//     has a cache. A type whose unexported fields hold mutable state
//     (apimachinery's resource.Quantity keeps a pointer to an inf.Dec)
//     shares that state between copies.
//   - Funcs, channels and unsafe pointers are shared.
//   - Nil maps, slices and pointers stay nil; empty ones stay empty, not nil.
//   - Cycles through pointers are not detected: copying a cyclic value does
//     not end. Decoded JSON has no cycles.
//
// The cost of building a copier is one walk over the type, done once; the
// cost of a copy is one allocation per non-nil map, slice and pointer plus
// the work of filling them, with fast paths for map[string]string,
// map[string]any trees (as encoding/json decodes them), []string and
// []byte.
//
// Usage:
//  1. Build a copier once per type with [For] (or [Of] for a reflect.Type).
//  2. Call it for every copy.
package deepcopy

import (
	"reflect"
)

// For returns a function that deep-copies *src into *dst. dst and src must
// not be nil. The function is safe for concurrent use.
func For[T any]() func(dst, src *T) {
	f := Of(reflect.TypeFor[T]())
	return func(dst, src *T) {
		f(reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem())
	}
}

// Of returns a function that deep-copies src into dst, two values of type
// t; dst must be settable (for example reflect.ValueOf(&x).Elem()). The
// function is safe for concurrent use.
func Of(t reflect.Type) func(dst, src reflect.Value) {
	b := builder{plans: map[reflect.Type]*plan{}}
	p := b.build(t)
	if p.deep == nil {
		return func(dst, src reflect.Value) { dst.Set(src) }
	}
	deep := p.deep
	return func(dst, src reflect.Value) {
		dst.Set(src)
		(*deep)(dst, src)
	}
}

// plan says how to copy values of one type. The shallow copy (dst.Set(src))
// is always done by the caller; deep, when not nil, then replaces every
// reference in dst with a copy of what src refers to.
type plan struct {
	// deep is nil for types that hold no references worth copying
	// (numbers, strings, bools, and structs and arrays of them). It is a
	// pointer so that recursive types can refer to a plan still being
	// built.
	deep *func(dst, src reflect.Value)
}

// builder builds plans. plans holds every plan started, including those
// still being built (for recursive types).
type builder struct {
	plans map[reflect.Type]*plan
}

func (b *builder) build(t reflect.Type) *plan {
	if p, ok := b.plans[t]; ok {
		return p
	}
	// Start with a placeholder so that recursive references find a plan;
	// a type that refers to itself does so through a pointer, slice or
	// map, so it always holds references and needs a deep func.
	p := &plan{deep: new(func(dst, src reflect.Value))}
	b.plans[t] = p
	if f := b.deepFunc(t); f != nil {
		*p.deep = f
	} else {
		p.deep = nil
	}
	return p
}

var (
	stringMapType = reflect.TypeFor[map[string]string]()
	jsonMapType   = reflect.TypeFor[map[string]any]()
	jsonSliceType = reflect.TypeFor[[]any]()
	anyType       = reflect.TypeFor[any]()
)

// deepFunc returns the function that fixes up the references of a value of
// type t after a shallow copy, or nil if there are none.
func (b *builder) deepFunc(t reflect.Type) func(dst, src reflect.Value) {
	switch t {
	case stringMapType:
		return copyStringMap
	case jsonMapType:
		return func(dst, src reflect.Value) {
			if !src.IsNil() {
				dst.Set(reflect.ValueOf(copyJSONMap(src.Interface().(map[string]any))))
			}
		}
	case jsonSliceType:
		return func(dst, src reflect.Value) {
			if !src.IsNil() {
				dst.Set(reflect.ValueOf(copyJSONSlice(src.Interface().([]any))))
			}
		}
	case anyType:
		return b.interfaceFunc()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return b.pointerFunc(t)
	case reflect.Slice:
		return b.sliceFunc(t)
	case reflect.Map:
		return b.mapFunc(t)
	case reflect.Struct:
		return b.structFunc(t)
	case reflect.Array:
		return b.arrayFunc(t)
	case reflect.Interface:
		return b.interfaceFunc()
	}
	return nil // scalars, strings, funcs, channels, unsafe pointers
}
