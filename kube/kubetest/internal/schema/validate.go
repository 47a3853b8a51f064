// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file validates a custom resource against its CRD's structural
// schema with the rules and words of the real server's OpenAPI validator
// (k8s.io/kube-openapi/pkg/validation/validate, as the apiextensions
// server turns its results into field errors), including ratcheting: on
// an update, a value equal to the old one at the same place is not
// validated again. Unlike the real server, properties are visited in name
// order, so that several errors always come in the same order (the real
// server's order is Go's map order).

// schemaValidator collects the field errors of one object.
type schemaValidator struct {
	errs []fielderr.Error
	// root is the field the validated value is at ("" for a whole
	// object, "status" for a status update): error fields are below it,
	// while messages name paths from the value, as the real server's do.
	root string
}

// validateSchema validates o (or, for ratcheting, o against old; old nil
// on create) against s and returns the field errors.
func validateSchema(s *Schema, o, old obj) []fielderr.Error {
	v := &schemaValidator{}
	var oldV any
	if old != nil {
		oldV = old
	}
	v.value(s, o, make(vpath, 0, 16), oldV, old != nil)
	return v.errs
}

func (v *schemaValidator) add(typ, path string, value any, detail string) {
	field := path
	switch {
	case path == "<nil>" && v.root != "": // errors without a field are at the root
		field = v.root
	case path == "<nil>":
	case v.root != "" && path == "":
		field = v.root
	case v.root != "" && path[0] == '[':
		field = v.root + path
	case v.root != "":
		field = v.root + "." + path
	}
	v.errs = append(v.errs, fielderr.Error{Type: typ, Field: field, Value: value, Detail: detail})
}

// vpath is the path of the value being validated, as segments ("spec",
// "tags", "[0]"); it is rendered only for an error, so a valid object
// costs no path strings. Children share the backing array of their parent
// (siblings are validated one after the other).
type vpath []string

// indexSegments are the first list index segments, made once.
var indexSegments = func() []string {
	out := make([]string, 64)
	for i := range out {
		out[i] = "[" + strconv.Itoa(i) + "]"
	}
	return out
}()

func (p vpath) child(name string) vpath { return append(p, name) }

func (p vpath) index(i int) vpath {
	if i < len(indexSegments) {
		return append(p, indexSegments[i])
	}
	return append(p, "["+strconv.Itoa(i)+"]")
}

// String renders the path as the real validator prints it:
// "spec.tags[0]".
func (p vpath) String() string {
	var b strings.Builder
	for i, seg := range p {
		if i > 0 && seg[0] != '[' {
			b.WriteByte('.')
		}
		b.WriteString(seg)
	}
	return b.String()
}

// child is the path of a field: "spec", "spec.size".
func child(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// value validates x at path. correlated says old is the value at the same
// place before an update: when x equals it nothing is validated.
func (v *schemaValidator) value(s *Schema, x any, path vpath, old any, correlated bool) {
	if s == nil {
		return
	}
	if correlated && jsonpatch.Equal(x, old) {
		return
	}
	if x == nil {
		if types := s.types(); len(types) > 0 && !s.Nullable {
			v.typeError(path.String(), strings.Join(types, ","), "null")
		}
		v.enum(s, x, path)
		return
	}
	v.typeCheck(s, x, path)
	v.combinators(s, x, path)
	switch t := x.(type) {
	case string:
		v.stringValue(s, t, path)
	case float64:
		v.number(s, t, t == math.Trunc(t) && math.Abs(t) < 1<<63, t, path)
	case int64:
		v.integer(s, t, path)
	case []any:
		v.list(s, t, path, old, correlated)
	}
	v.enum(s, x, path)
	if m, ok := x.(obj); ok {
		v.object(s, m, path, old, correlated)
	}
}

// types are the JSON types s allows; int-or-string allows two.
func (s *Schema) types() []string {
	if s.IntOrString {
		return []string{"integer", "string"}
	}
	if s.Type == "" {
		return nil
	}
	return []string{s.Type}
}

// jsonType is the type the validator sees a decoded value as: a number
// without a fraction is an integer.
func jsonType(x any) string {
	switch t := x.(type) {
	case string:
		return "string"
	case bool:
		return "boolean"
	case int64:
		return "integer"
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<63 { // an int64 in the real validator
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case obj:
		return "object"
	}
	return ""
}

func (v *schemaValidator) typeError(path, want, got string) {
	v.add("FieldValueTypeInvalid", path, got, fmt.Sprintf("%s in body must be of type %s: %q", path, want, got))
}

func (v *schemaValidator) typeCheck(s *Schema, x any, path vpath) {
	types := s.types()
	if len(types) == 0 {
		return
	}
	got := jsonType(x)
	_, isString := x.(string)
	_, isList := x.([]any)
	numeric := slices.Contains(types, "integer") || slices.Contains(types, "number")
	if s.Format != "" && !numeric && (isString || isList) {
		return // strings with a format are the format validator's
	}
	if slices.Contains(types, got) || (got == "integer" && slices.Contains(types, "number")) {
		return
	}
	if s.Format != "" && !isString && !isList {
		// The real validator names the format, and the value's format.
		gotFormat := ""
		if got == "integer" {
			gotFormat = "int64"
		} else if got == "number" {
			gotFormat = "float64"
		}
		v.typeError(path.String(), s.Format, gotFormat)
		return
	}
	v.typeError(path.String(), strings.Join(types, ","), got)
}

func (v *schemaValidator) stringValue(s *Schema, x string, vp vpath) {
	path := vp.String // rendered for errors only
	n := int64(utf8.RuneCountInString(x))
	switch {
	case s.MaxLength != nil && n > *s.MaxLength:
		unit := "bytes"
		if *s.MaxLength == 1 {
			unit = "byte"
		}
		v.add("FieldValueTooLong", path(), "<value omitted>", fmt.Sprintf("may not be more than %d %s", *s.MaxLength, unit))
	case s.MinLength != nil && n < *s.MinLength:
		v.add("FieldValueInvalid", path(), x, fmt.Sprintf("%s in body should be at least %d chars long", path(), *s.MinLength))
	case s.Pattern != "" && (s.pattern == nil || !s.pattern.MatchString(x)):
		v.add("FieldValueInvalid", path(), x, fmt.Sprintf("%s in body should match '%s'", path(), s.Pattern))
	}
	if s.Format != "" && !validFormat(s.Format, x) {
		v.add("FieldValueTypeInvalid", path(), x, fmt.Sprintf("%s in body must be of type %s: %q", path(), s.Format, x))
	}
}

// integer checks an int64 as the real validator does: against int32's
// range exactly, against bounds and factors as number does (in float64),
// naming the value exactly.
func (v *schemaValidator) integer(s *Schema, x int64, vp vpath) {
	if s.Type == "integer" && !s.IntOrString && s.Format == "int32" && (x < math.MinInt32 || x > math.MaxInt32) {
		v.add("FieldValueInvalid", "<nil>", "", fmt.Sprintf("Checked value must be of type integer with format int32 in %s", vp.String()))
	}
	if s.MultipleOf != nil || s.Minimum != nil || s.Maximum != nil {
		v.number(&Schema{MultipleOf: s.MultipleOf, Minimum: s.Minimum, Maximum: s.Maximum,
			ExclusiveMinimum: s.ExclusiveMinimum, ExclusiveMaximum: s.ExclusiveMaximum}, float64(x), true, x, vp)
	}
}

// number checks a number as the real validator does. A number without a
// fraction is an int64 there (isInt), and bounds and factors are then
// truncated to integers too (so that an integer checked against multipleOf
// 0.25 fails with "factor ... must be positive: 0", as in the real server).
func (v *schemaValidator) number(s *Schema, x float64, isInt bool, value any, vp vpath) {
	path := vp.String // rendered for errors only
	if s.Type == "integer" && !s.IntOrString {
		fits := isInt
		if fits && s.Format == "int32" {
			fits = x >= math.MinInt32 && x <= math.MaxInt32
		}
		if !fits {
			format := "(default format)"
			if s.Format == "int32" || s.Format == "int64" {
				format = "with format " + s.Format
			}
			v.add("FieldValueInvalid", "<nil>", "", fmt.Sprintf("Checked value must be of type integer %s in %s", format, path()))
		}
	}
	if s.MultipleOf != nil {
		factor := *s.MultipleOf
		if isInt {
			factor = math.Trunc(factor)
		}
		switch {
		case factor <= 0:
			v.add("FieldValueInvalid", path(), factor, fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", path(), factor))
		case isInt && math.Mod(x, factor) != 0:
			v.add("FieldValueInvalid", path(), value, fmt.Sprintf("%s in body should be a multiple of %v", path(), factor))
		case !isInt && !isJSONInteger(multipleRatio(x, factor)):
			v.add("FieldValueInvalid", path(), value, fmt.Sprintf("%s in body should be a multiple of %v", path(), factor))
		}
	}
	bound := func(b float64) float64 {
		if isInt {
			return math.Trunc(b)
		}
		return b
	}
	if s.Minimum != nil {
		m := bound(*s.Minimum)
		if x < m || s.ExclusiveMinimum && x == m {
			word := "greater than or equal to"
			if s.ExclusiveMinimum {
				word = "greater than"
			}
			v.add("FieldValueInvalid", path(), value, fmt.Sprintf("%s in body should be %s %v", path(), word, m))
		}
	}
	if s.Maximum != nil {
		m := bound(*s.Maximum)
		if x > m || s.ExclusiveMaximum && x == m {
			word := "less than or equal to"
			if s.ExclusiveMaximum {
				word = "less than"
			}
			v.add("FieldValueInvalid", path(), value, fmt.Sprintf("%s in body should be %s %v", path(), word, m))
		}
	}
}

// multipleRatio is how the real validator tests a float for a multiple.
func multipleRatio(x, factor float64) float64 {
	if factor < 1 {
		return 1 / factor * x
	}
	return x / factor
}

// isJSONInteger reports whether f has no fraction (within a small
// epsilon, as go-openapi's swag.IsFloat64AJSONInteger).
func isJSONInteger(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	diff := math.Abs(f - math.Round(f))
	return diff == 0 || diff < 1e-9*math.Max(1, math.Abs(f))
}

func (v *schemaValidator) list(s *Schema, x []any, vp vpath, old any, correlated bool) {
	path := vp.String // rendered for errors only
	for i, item := range x {
		oldItem, ok := correlateItem(s, item, old, correlated)
		v.value(s.Elem, item, vp.index(i), oldItem, ok)
	}
	n := int64(len(x))
	if s.MinItems != nil && n < *s.MinItems {
		v.add("FieldValueInvalid", path(), n, fmt.Sprintf("%s in body should have at least %d items", path(), *s.MinItems))
	}
	if s.MaxItems != nil && n > *s.MaxItems {
		unit := "items"
		if *s.MaxItems == 1 {
			unit = "item"
		}
		v.add("FieldValueTooMany", path(), int(n), fmt.Sprintf("must have at most %d %s", *s.MaxItems, unit))
	}
	if s.UniqueItems {
		for i := range x {
			if slices.ContainsFunc(x[:i], func(y any) bool { return jsonpatch.Equal(x[i], y) }) {
				v.add("FieldValueInvalid", path(), "", path()+" in body shouldn't contain duplicates")
				break
			}
		}
	}
}

// correlateItem finds the old element an element of a list replaces: the
// one with the same keys in a map list. Elements of sets and atomic lists
// correlate with nothing (as in the real server).
func correlateItem(s *Schema, item, old any, correlated bool) (any, bool) {
	olds, ok := old.([]any)
	if !correlated || !ok || s.ListType != "map" {
		return nil, false
	}
	for _, o := range olds {
		if sameListKeys(s.ListMapKeys, item, o) {
			return o, true
		}
	}
	return nil, false
}

func sameListKeys(keys []string, a, b any) bool {
	am, ok1 := a.(obj)
	bm, ok2 := b.(obj)
	if !ok1 || !ok2 {
		return false
	}
	for _, k := range keys {
		if !jsonpatch.Equal(am[k], bm[k]) {
			return false
		}
	}
	return true
}

func (v *schemaValidator) enum(s *Schema, x any, vp vpath) {
	if len(s.Enum) == 0 || slices.ContainsFunc(s.Enum, func(e any) bool { return jsonpatch.Equal(e, x) }) {
		return
	}
	values := make([]string, len(s.Enum))
	for i, e := range s.Enum {
		if str, ok := e.(string); ok {
			values[i] = str
		} else {
			raw, _ := json.Marshal(e)
			values[i] = string(raw)
		}
	}
	v.add("FieldValueNotSupported", vp.String(), x, fielderr.NotSupportedDetail(values...))
}

func (v *schemaValidator) object(s *Schema, x obj, vp vpath, old any, correlated bool) {
	path := vp.String // rendered for errors only
	oldMap, _ := old.(obj)
	n := int64(len(x))
	if s.MinProperties != nil && n < *s.MinProperties {
		v.add("FieldValueInvalid", path(), n, fmt.Sprintf("%s in body should have at least %d properties", path(), *s.MinProperties))
	}
	if s.MaxProperties != nil && n > *s.MaxProperties {
		unit := "items"
		if *s.MaxProperties == 1 {
			unit = "item"
		}
		v.add("FieldValueTooMany", path(), int(n), fmt.Sprintf("must have at most %d %s", *s.MaxProperties, unit))
	}
	if s.Additional != nil {
		for _, k := range unstructured.SortedKeys(x) {
			if _, known := s.Properties[k]; !known {
				ov, ok := oldMap[k]
				v.value(s.Additional, x[k], vp.child(k), ov, correlated && ok)
			}
		}
	}
	for _, k := range s.Names {
		if _, present := x[k]; !present {
			continue
		}
		p := s.Properties[k]
		if len(vp) == 0 && k == "metadata" {
			p = s.userMeta // the CRD's own rules for name and generateName
		}
		ov, ok := oldMap[k]
		// kind and apiVersion are not correlated at the root.
		ratchet := correlated && ok && !(len(vp) == 0 && (k == "kind" || k == "apiVersion"))
		v.value(p, x[k], vp.child(k), ov, ratchet)
	}
	for _, k := range s.Required {
		if _, ok := x[k]; !ok {
			v.add("FieldValueRequired", child(path(), k), "", "")
		}
	}
}
