// SPDX-License-Identifier: Apache-2.0

package deepcopy

import (
	"encoding/json"
	"maps"
	"reflect"
	"sync"
)

// This file holds the deep funcs of each kind of type. Each runs after the
// shallow copy dst.Set(src), so dst starts equal to src and only its
// references need replacing.

func (b *builder) pointerFunc(t reflect.Type) func(dst, src reflect.Value) {
	elem := b.build(t.Elem())
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			return
		}
		n := reflect.New(t.Elem())
		n.Elem().Set(src.Elem())
		if elem.deep != nil {
			(*elem.deep)(n.Elem(), src.Elem())
		}
		dst.Set(n)
	}
}

func (b *builder) sliceFunc(t reflect.Type) func(dst, src reflect.Value) {
	elem := b.build(t.Elem())
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			return
		}
		n := reflect.MakeSlice(t, src.Len(), src.Len())
		reflect.Copy(n, src)
		if elem.deep != nil {
			for i := range src.Len() {
				(*elem.deep)(n.Index(i), src.Index(i))
			}
		}
		dst.Set(n)
	}
}

// mapFunc copies values deeply; keys are shared (they are comparable, in
// practice strings).
func (b *builder) mapFunc(t reflect.Type) func(dst, src reflect.Value) {
	elem := b.build(t.Elem())
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			return
		}
		n := reflect.MakeMapWithSize(t, src.Len())
		it := src.MapRange()
		for it.Next() {
			v := it.Value()
			if elem.deep != nil {
				nv := reflect.New(t.Elem()).Elem()
				nv.Set(v)
				(*elem.deep)(nv, v)
				v = nv
			}
			n.SetMapIndex(it.Key(), v)
		}
		dst.Set(n)
	}
}

// structFunc fixes up the exported fields that hold references; unexported
// fields keep their shallow copy.
func (b *builder) structFunc(t reflect.Type) func(dst, src reflect.Value) {
	type field struct {
		index int
		deep  *func(dst, src reflect.Value)
	}
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		if p := b.build(f.Type); p.deep != nil {
			fields = append(fields, field{index: i, deep: p.deep})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return func(dst, src reflect.Value) {
		for _, f := range fields {
			(*f.deep)(dst.Field(f.index), src.Field(f.index))
		}
	}
}

func (b *builder) arrayFunc(t reflect.Type) func(dst, src reflect.Value) {
	elem := b.build(t.Elem())
	if elem.deep == nil || t.Len() == 0 {
		return nil
	}
	return func(dst, src reflect.Value) {
		for i := range src.Len() {
			(*elem.deep)(dst.Index(i), src.Index(i))
		}
	}
}

// interfaceFunc copies the dynamic value of an interface. Copiers for the
// dynamic types met are built on first use and kept in a map local to the
// copier being built.
func (b *builder) interfaceFunc() func(dst, src reflect.Value) {
	var dynamic sync.Map // reflect.Type -> func(dst, src reflect.Value)
	return func(dst, src reflect.Value) {
		if src.IsNil() {
			return
		}
		c := src.Elem()
		switch c.Kind() {
		case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32,
			reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
			reflect.Uintptr, reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128:
			return // immutable once boxed: the shallow copy shares nothing mutable
		}
		if c.Type() == jsonMapType || c.Type() == jsonSliceType {
			dst.Set(reflect.ValueOf(copyJSONValue(c.Interface())))
			return
		}
		f, ok := dynamic.Load(c.Type())
		if !ok {
			f, _ = dynamic.LoadOrStore(c.Type(), Of(c.Type()))
		}
		n := reflect.New(c.Type()).Elem()
		f.(func(dst, src reflect.Value))(n, c)
		dst.Set(n)
	}
}

func copyStringMap(dst, src reflect.Value) {
	if !src.IsNil() {
		dst.Set(reflect.ValueOf(maps.Clone(src.Interface().(map[string]string))))
	}
}

// copyJSONValue copies a value as encoding/json decodes into any:
// map[string]any, []any, string, float64, bool, json.Number or nil. Other
// types, which a program may have put there, are copied by reflection.
func copyJSONValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return copyJSONMap(v)
	case []any:
		return copyJSONSlice(v)
	case nil, string, float64, bool, json.Number, int, int64:
		return v
	}
	t := reflect.TypeOf(v)
	n := reflect.New(t).Elem()
	Of(t)(n, reflect.ValueOf(v))
	return n.Interface()
}

func copyJSONMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = copyJSONValue(v)
	}
	return out
}

func copyJSONSlice(s []any) []any {
	if s == nil {
		return nil
	}
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = copyJSONValue(v)
	}
	return out
}
