// SPDX-License-Identifier: Apache-2.0

package strategicmerge

import (
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
)

// This file is what kube-apiserver's Go code does around its strategic
// merge (strategicmerge.go) that clients can see: its errors and the
// status codes they get, Go's formatting of the values it quotes (%s of a
// decoded value, type names), the panics of Go's == and map keys where
// the merge compares objects, and what decoding the result into Go types
// makes of it (settle).

// Go's names of the types of decoded values.
const (
	smpTypeMap  = "map[string]interface {}"
	smpTypeList = "[]interface {}"
)

// Error is a failure of a strategic merge patch, as the real server
// answers it.
type Error struct {
	Code int // 400, 422 or 500
	Msg  string
}

func smpFailed(format string, args ...any) *Error {
	return &Error{Code: http.StatusInternalServerError, Msg: fmt.Sprintf(format, args...)}
}

// smpPanic carries a failure where the real server's merge panics, from
// deep in a comparison up to Merge.
type smpPanic struct{ msg string }

// settle makes o, an object of schema s, what the real server's Go types
// make of the merge's result, which can hold what a patch put there as it
// was (in added items, replaced objects and lists): a null is the zero
// value of its type (a map's value is "", a struct's field is left out),
// and empty lists and maps are left out, as omitempty does; structs stay,
// even empty.
func settle(s *schema.Schema, o obj) {
	isMap := s != nil && len(s.Properties) == 0 && s.Additional != nil
	for k, v := range o {
		f := s.Field(k)
		if v == nil {
			if z, ok := zeroValue(f); ok && isMap {
				o[k] = z
			} else {
				delete(o, k)
			}
			continue
		}
		settleValue(f, v)
		switch t := v.(type) {
		case []any:
			if len(t) == 0 {
				delete(o, k)
			}
		case obj:
			if len(t) == 0 && f != nil && len(f.Properties) == 0 && f.Additional != nil {
				delete(o, k)
			}
		}
	}
}

// settleValue is settle for any value of schema s.
func settleValue(s *schema.Schema, v any) {
	switch t := v.(type) {
	case obj:
		settle(s, t)
	case []any:
		item := s.Items()
		for i, e := range t {
			if e == nil {
				if z, ok := zeroValue(item); ok {
					t[i] = z
				}
				continue
			}
			settleValue(item, e)
		}
	}
}

// zeroValue is the zero value of a field of schema s, when its type says.
func zeroValue(s *schema.Schema) (any, bool) {
	if s == nil || s.IntOrString {
		return nil, false
	}
	switch s.Type {
	case "string":
		return "", true
	case "integer":
		return int64(0), true
	case "number":
		return 0.0, true
	case "boolean":
		return false, true
	case "object":
		return obj{}, true
	}
	return nil, false
}

// unknownDirective is the error for a $patch value a merge does not know.
func unknownDirective(d any, m obj) *Error {
	return smpFailed("unknown patch type: %s in map: %s", goStringVerb(d), schema.GoValueString(m))
}

// noMergeKey is the error for a list item without its merge key.
func noMergeKey(m obj, key string) *Error {
	return smpFailed("map: %s does not contain declared merge key: %s", schema.GoValueString(m), key)
}

// badArgType is the error for a value of the wrong type: want is a Go
// type ("[]interface {}").
func badArgType(want string, got any) *Error {
	return smpFailed("expected a %s, but received a %s", want, goTypeOf(got))
}

// goTypeOf is %s of the Go type of a decoded value, as the real server's
// unstructured form has it.
func goTypeOf(x any) string {
	switch k := schema.UnstructuredKind(x); k {
	case "map":
		return smpTypeMap
	case "slice":
		return smpTypeList
	case "interface":
		return "%!s(<nil>)"
	default:
		return k
	}
}

// goStringVerb formats x as Go's %s formats the real server's decoded
// value: strings as they are, other scalars as "%!s(int64=1)".
func goStringVerb(x any) string {
	if s, ok := schema.GoComposite(x, goStringVerb); ok {
		return s
	}
	switch t := x.(type) {
	case string:
		return t
	case nil:
		return "%!s(<nil>)"
	}
	return "%!s(" + schema.UnstructuredKind(x) + "=" + schema.GoValueString(x) + ")"
}

// hashable returns x for use as a map key, panicking as Go does (and the
// real server with it) for maps and lists.
func hashable(x any) any {
	switch x.(type) {
	case obj:
		panic(smpPanic{"runtime error: hash of unhashable type " + smpTypeMap})
	case []any:
		panic(smpPanic{"runtime error: hash of unhashable type " + smpTypeList})
	}
	return x
}

// same is Go's == on two decoded values, panicking as Go does (and the
// real server with it) when both are maps or both are lists.
func same(a, b any) bool {
	switch a.(type) {
	case obj:
		if _, ok := b.(obj); ok {
			panic(smpPanic{"runtime error: comparing uncomparable type " + smpTypeMap})
		}
		return false
	case []any:
		if _, ok := b.([]any); ok {
			panic(smpPanic{"runtime error: comparing uncomparable type " + smpTypeList})
		}
		return false
	}
	return a == b
}
