// SPDX-License-Identifier: Apache-2.0

package fielderr

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Error is one validation failure, as field.Error.
type Error struct {
	Type   string // "FieldValueInvalid", "FieldValueRequired", "FieldValueForbidden", "FieldValueNotSupported"
	Field  string
	Value  any // for Invalid and NotSupported
	Detail string
	// GoSyntax prints Value as 1.33 prints it: what is not a string,
	// number or bool in Go syntax (%#v, a fmt.GoStringer's GoString), a
	// nil as "null"; see InGoSyntax.
	GoSyntax bool
}

// InGoSyntax returns errs with GoSyntax set when on (a server acting as
// 1.33), else errs.
func InGoSyntax(errs []Error, on bool) []Error {
	if !on {
		return errs
	}
	out := slices.Clone(errs)
	for i := range out {
		out[i].GoSyntax = true
	}
	return out
}

// Body renders the error without its field, as field.Error.ErrorBody.
func (e Error) Body() string {
	var s string
	switch e.Type {
	case "FieldValueRequired":
		s = "Required value"
	case "FieldValueForbidden":
		s = "Forbidden"
	case "FieldValueNotSupported":
		s = "Unsupported value: " + e.badValue()
	case "FieldValueTooLong":
		s = "Too long"
	case "FieldValueTooMany":
		s = "Too many: " + e.badValue()
	case "FieldValueDuplicate":
		s = "Duplicate value: " + e.badValue()
	case "FieldValueNotFound":
		s = "Not found: " + e.badValue()
	default: // FieldValueInvalid, FieldValueTypeInvalid
		s = "Invalid value: " + e.badValue()
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// badValue formats the error's value as its GoSyntax says.
func (e Error) badValue() string {
	if e.GoSyntax {
		return goSyntaxBadValue(e.Value)
	}
	return formatBadValue(e.Value)
}

// goSyntaxBadValue formats a bad value as 1.33's field.Error does:
// nil (or a nil pointer) as "null", a pointer as what it points to,
// strings quoted, simple numbers and bools plain, a fmt.Stringer by its
// String, anything else in Go syntax.
func goSyntaxBadValue(v any) string {
	if rv := reflect.ValueOf(v); v == nil || rv.Kind() == reflect.Pointer && rv.IsNil() {
		return `"null"`
	} else if rv.Kind() == reflect.Pointer {
		v = rv.Elem().Interface()
	}
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case int64, int32, float64, float32, bool:
		return fmt.Sprint(t)
	case fmt.Stringer:
		return t.String()
	}
	return fmt.Sprintf("%#v", v)
}

// formatBadValue formats a bad value as field.Error does: strings quoted,
// simple numbers and bools plain, anything else as JSON.
func formatBadValue(v any) string {
	if v == nil || (reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil()) {
		return "null"
	}
	switch t := v.(type) {
	case string:
		return strconv.Quote(t)
	case int64, int32, float64, float32, bool:
		return fmt.Sprint(t)
	}
	if raw, err := json.Marshal(v); err == nil {
		return string(raw)
	}
	return fmt.Sprintf("%#v", v)
}

// NotSupportedDetail is the detail field.NotSupported writes.
func NotSupportedDetail(values ...string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	return "supported values: " + strings.Join(q, ", ")
}

// Aggregate is the message of the 422 Invalid Status of the object name
// of the qualified kind ("ConfigMap", "Deployment.apps") that errs
// refuse: each different error once, as the real aggregate lists them.
func Aggregate(qualifiedKind, name string, errs []Error) string {
	msgs := make([]string, 0, len(errs))
	for _, e := range errs {
		if msg := e.Field + ": " + e.Body(); !slices.Contains(msgs, msg) {
			msgs = append(msgs, msg)
		}
	}
	agg := strings.Join(msgs, ", ")
	if len(msgs) > 1 {
		agg = "[" + agg + "]"
	}
	return fmt.Sprintf("%s %q is invalid: %s", qualifiedKind, name, agg)
}
