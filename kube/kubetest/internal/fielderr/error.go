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
		s = "Unsupported value: " + formatBadValue(e.Value)
	case "FieldValueTooLong":
		s = "Too long"
	case "FieldValueTooMany":
		s = "Too many: " + formatBadValue(e.Value)
	case "FieldValueDuplicate":
		s = "Duplicate value: " + formatBadValue(e.Value)
	case "FieldValueNotFound":
		s = "Not found: " + formatBadValue(e.Value)
	default: // FieldValueInvalid, FieldValueTypeInvalid
		s = "Invalid value: " + formatBadValue(e.Value)
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
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
