// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file words the errors of the two other decodings the real server
// applies to patched objects and apply configurations of built-in kinds:
// the unstructured converter after a strategic merge patch
// (runtime.DefaultUnstructuredConverter: "cannot convert int64 to
// string") and structured-merge-diff's typed conversion of an apply
// configuration (".data.n: expected string, got ..."), each only for the
// first error, as the real server reports it.

// ConvertError returns the unstructured converter's error for x decoded
// into the Go type of s, "" when it converts.
func ConvertError(s *Schema, x any) string {
	if s == nil || x == nil || IsCustomDecoded(s) || KindOf(s) == "any" {
		return ""
	}
	src := UnstructuredKind(x)
	switch KindOf(s) {
	case "struct":
		m, ok := x.(obj)
		if !ok {
			return "cannot restore struct from: " + src
		}
		for _, k := range unstructured.SortedKeys(m) {
			if e := ConvertError(s.Properties[k], m[k]); e != "" {
				return e
			}
		}
	case "map":
		m, ok := x.(obj)
		if !ok {
			return "cannot restore map from " + src
		}
		for _, k := range unstructured.SortedKeys(m) {
			if e := ConvertError(s.Additional, m[k]); e != "" {
				return e
			}
		}
	case "list":
		l, ok := x.([]any)
		if !ok {
			if src == "string" && s.Elem != nil && s.Elem.Format == "byte" {
				return ""
			}
			return "cannot restore slice from " + src
		}
		for _, v := range l {
			if e := ConvertError(s.Elem, v); e != "" {
				return e
			}
		}
	default:
		dst := GoTypeName(s)
		switch {
		case src == "map" || src == "slice":
			return "unrecognized type: " + dst
		case s.Type == "string" && src == "string", s.Type == "boolean" && src == "bool":
		case (s.Type == "integer" || s.Type == "number") && src == "int64":
		case s.Type == "number" && src == "float64":
		case s.Type == "integer" && src == "float64":
			if f := x.(float64); f != math.Trunc(f) {
				return "cannot convert float64 to " + dst
			}
		case s.Type == "string" && src == "int64":
			return "cannot convert int64 to " + dst // Go converts integers to strings, the converter refuses
		default:
			return "unrecognized type: " + dst
		}
	}
	return ""
}

// UnstructuredKind is the Go kind of a decoded value in the real server's
// unstructured form: numbers without a fraction are int64.
func UnstructuredKind(x any) string {
	switch t := x.(type) {
	case obj:
		return "map"
	case []any:
		return "slice"
	case string:
		return "string"
	case bool:
		return "bool"
	case int64:
		return "int64"
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<63 {
			return "int64"
		}
		return "float64"
	}
	return "interface"
}

// GoValueString formats a decoded value as Go's %+v formats the real
// server's unstructured form ("map[data:map[n:1]]").
func GoValueString(x any) string {
	if s, ok := GoComposite(x, GoValueString); ok {
		return s
	}
	switch t := x.(type) {
	case int64:
		return fmt.Sprint(t)
	case float64:
		if UnstructuredKind(t) == "int64" {
			return fmt.Sprint(int64(t))
		}
		return fmt.Sprint(t)
	case nil:
		return "<nil>"
	}
	return fmt.Sprint(x)
}

// GoComposite formats a map (keys sorted) or a list as Go's fmt does,
// each element by elem; ok is false for other values.
func GoComposite(x any, elem func(any) string) (s string, ok bool) {
	var parts []string
	switch t := x.(type) {
	case obj:
		for _, k := range unstructured.SortedKeys(t) {
			parts = append(parts, k+":"+elem(t[k]))
		}
		return "map[" + strings.Join(parts, " ") + "]", true
	case []any:
		for _, v := range t {
			parts = append(parts, elem(v))
		}
		return "[" + strings.Join(parts, " ") + "]", true
	}
	return "", false
}

// smdValue formats a value as structured-merge-diff's errors print it:
// %v of its value wrapper ("&{1.5}"), or with verbose %#v
// ("&value.valueUnstructured{Value:1}").
func smdValue(x any, verbose bool) string {
	if !verbose {
		return "&{" + GoValueString(x) + "}"
	}
	var inner string
	switch t := x.(type) {
	case string:
		inner = fmt.Sprintf("%q", t)
	case obj:
		inner = "map[string]interface {}" + goSyntaxMap(t)
	case []any:
		inner = fmt.Sprintf("%#v", t)
	default:
		inner = GoValueString(x)
	}
	return "&value.valueUnstructured{Value:" + inner + "}"
}

// smdListElement is how structured-merge-diff names an element of a
// list in paths: by its keys in a map list ([name="a"]), by index in
// others.
func smdListElement(sh FieldShape, i int, v any) string {
	m, ok := v.(obj)
	if sh.ListType != "map" || !ok {
		return fmt.Sprintf("[%d]", i)
	}
	parts := make([]string, 0, len(sh.MapKeys))
	for _, k := range sh.MapKeys {
		raw, _ := json.Marshal(m[k])
		parts = append(parts, k+"="+string(raw))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func goSyntaxMap(m obj) string {
	keys := unstructured.SortedKeys(m)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%q:%s", k, GoValueString(m[k]))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// ApplyTypeErrors returns what structured-merge-diff's conversion of an
// apply configuration x reports against s: unknown fields ("field not
// declared in schema", the first of each object) and type mismatches, as
// ".path: message" lines.
func ApplyTypeErrors(s *Schema, x any, path string, root bool) []string {
	if s == nil || x == nil || s.PreserveUnknown && KindOf(s) == "any" {
		return nil
	}
	if s.IntOrString || IsCustomDecoded(s) || KindOf(s) == "any" {
		return nil
	}
	var errs []string
	switch KindOf(s) {
	case "struct", "map":
		m, ok := x.(obj)
		if !ok {
			return []string{path + ": expected map, got " + smdValue(x, false)}
		}
		for _, k := range unstructured.SortedKeys(m) {
			if root && metaFields[k] {
				continue
			}
			fs := s.Properties[k]
			if fs == nil {
				fs = s.Additional
			}
			if fs == nil {
				if s.PreserveUnknown {
					continue
				}
				errs = append(errs, path+"."+k+": field not declared in schema")
				break
			}
			errs = append(errs, ApplyTypeErrors(fs, m[k], path+"."+k, false)...)
		}
	case "list":
		l, ok := x.([]any)
		if !ok {
			return []string{path + ": expected list, got " + smdValue(x, false)}
		}
		sh := s.Shape()
		for i, v := range l {
			errs = append(errs, ApplyTypeErrors(s.Elem, v, path+smdListElement(sh, i, v), false)...)
		}
	default:
		switch s.Type {
		case "integer", "number":
			if _, ok := unstructured.NumberValue(x); !ok {
				kind := UnstructuredKind(x)
				if kind == "map" {
					kind = "map[string]interface {}"
				} else if kind == "slice" {
					kind = "[]interface {}"
				}
				errs = append(errs, path+": expected numeric (int or float), got "+kind)
			}
		case "string":
			if _, ok := x.(string); !ok {
				errs = append(errs, path+": expected string, got "+smdValue(x, true))
			}
		case "boolean":
			if _, ok := x.(bool); !ok {
				errs = append(errs, path+": expected boolean, got "+smdValue(x, false))
			}
		}
	}
	return errs
}
