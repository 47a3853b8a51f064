// SPDX-License-Identifier: Apache-2.0

// Package typednil tells a typed nil from a value: what kube and manager
// treat as nil when a caller passes one (a nil *T in an interface, the
// natural result of wiring an optional pointer from a flag).
package typednil

import "reflect"

// Is reports whether v is nil, or holds a nil pointer, map, slice, func
// or interface. It costs one reflect.ValueOf.
func Is(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
