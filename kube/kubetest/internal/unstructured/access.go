// SPDX-License-Identifier: Apache-2.0

package unstructured

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
)

// String returns m[k] when it is a string.
func String(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// StringMap returns m[k] as labels or annotations; ok is false when it is
// present but not a map of strings.
func StringMap(m map[string]any, k string) (map[string]string, bool) {
	v, present := m[k]
	if !present || v == nil {
		return nil, true
	}
	in, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out[k] = s
	}
	return out, true
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// DeepCopy copies a decoded JSON value.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, v := range t {
			m[k] = DeepCopy(v)
		}
		return m
	case []any:
		s := make([]any, len(t))
		for i, v := range t {
			s[i] = DeepCopy(v)
		}
		return s
	}
	return v
}

// Metadata returns o's metadata map, making it when missing.
func Metadata(o map[string]any) map[string]any {
	m, ok := o["metadata"].(map[string]any)
	if !ok {
		m = map[string]any{}
		o["metadata"] = m
	}
	return m
}

// Child returns m[k] as an object, creating it (empty) when it is missing
// and create is set; nil when it is missing or not an object. It never
// creates a child of a nil m.
func Child(m map[string]any, k string, create bool) map[string]any {
	c, ok := m[k].(map[string]any)
	if !ok && create && m != nil && m[k] == nil {
		c = map[string]any{}
		m[k] = c
	}
	return c
}

// IsEmpty reports whether v is what ObjectMeta's omitempty drops: an
// empty string, map or list, or null.
func IsEmpty(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case string:
		return t == ""
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// Path returns the value at a dotted path of map keys.
func Path(o map[string]any, dotted string) (any, bool) {
	var cur any = o
	for p := range strings.SplitSeq(dotted, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// FieldString formats a selectable field as field selectors compare it.
func FieldString(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case bool:
		return strconv.FormatBool(t)
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(t, 10)
	case nil:
		return ""
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// AnyList is ss as a decoded JSON list.
func AnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
