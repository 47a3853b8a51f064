// SPDX-License-Identifier: Apache-2.0

package fieldmanager

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file is the path elements of field sets: how they are written
// (f:, k:, v:, i:), ordered as the real server orders them, and rendered
// in conflict messages (.spec.containers[name="c"].image).

var errUnknownElement = fmt.Errorf("unknown path element type")

// checkElement checks a fieldsV1 key.
func checkElement(e string) error {
	if len(e) < 2 {
		return fmt.Errorf("key must be 2 characters long: %q", e)
	}
	if e[1] != ':' {
		return fmt.Errorf("missing colon: %v", e)
	}
	switch e[0] {
	case 'f':
		return nil
	case 'v':
		var v any
		return json.Unmarshal([]byte(e[2:]), &v)
	case 'k':
		var m map[string]any
		return json.Unmarshal([]byte(e[2:]), &m)
	case 'i':
		_, err := strconv.Atoi(e[2:])
		return err
	}
	return errUnknownElement
}

// canonicalElement re-encodes a key or value element as this package
// writes them, so that equal elements are equal strings.
func canonicalElement(e string) string {
	switch e[0] {
	case 'k':
		var v any
		if unstructured.DecodeExact([]byte(e[2:]), &v) == nil {
			if m, ok := v.(obj); ok {
				return "k:" + encodeElementValue(m)
			}
		}
	case 'v':
		var v any
		if unstructured.DecodeExact([]byte(e[2:]), &v) == nil {
			return "v:" + encodeElementValue(v)
		}
	}
	return e
}

// fieldElement is the element of a struct field or map key.
func fieldElement(name string) string { return "f:" + name }

// encodeElementValue writes a key's fields (sorted by name) or a set
// entry as JSON; whole numbers are written as integers.
func encodeElementValue(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// elementValue decodes the JSON of a k: or v: element.
func elementValue(e string) any {
	var v any
	_ = unstructured.DecodeExact([]byte(e[2:]), &v)
	return v
}

// compareElements orders path elements as the real server does: fields,
// then keys, then values, then indexes; each kind by its value.
func compareElements(a, b string) int {
	rank := func(e string) int { return strings.IndexByte("fkvi", e[0]) }
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch a[0] {
	case 'f':
		return strings.Compare(a[2:], b[2:])
	case 'i':
		x, _ := strconv.Atoi(a[2:])
		y, _ := strconv.Atoi(b[2:])
		return x - y
	case 'k':
		ka, _ := elementValue(a).(obj)
		kb, _ := elementValue(b).(obj)
		na, nb := unstructured.SortedKeys(ka), unstructured.SortedKeys(kb)
		for i := 0; i < len(na) && i < len(nb); i++ {
			if c := strings.Compare(na[i], nb[i]); c != 0 {
				return c
			}
			if c := compareValues(ka[na[i]], kb[nb[i]]); c != 0 {
				return c
			}
		}
		return len(na) - len(nb)
	}
	return compareValues(elementValue(a), elementValue(b))
}

// compareValues orders JSON values: numbers, strings, booleans, lists,
// maps, null.
func compareValues(a, b any) int {
	rank := func(v any) int {
		switch v.(type) {
		case int64, float64:
			return 0
		case string:
			return 1
		case bool:
			return 2
		case []any:
			return 3
		case obj:
			return 4
		}
		return 5
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	switch x := a.(type) {
	case int64, float64:
		if xi, ok := x.(int64); ok {
			if yi, ok := b.(int64); ok {
				return cmp.Compare(xi, yi)
			}
		}
		xf, _ := unstructured.NumberValue(x)
		yf, _ := unstructured.NumberValue(b)
		return cmp.Compare(xf, yf)
	case string:
		return strings.Compare(x, b.(string))
	case bool:
		y := b.(bool)
		if x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	}
	return strings.Compare(encodeElementValue(a), encodeElementValue(b))
}

// PathString renders a path as apply conflicts name it:
// .status.conditions[type="Ready"], .metadata.finalizers[="x"].
func PathString(path []string) string {
	var b strings.Builder
	for _, e := range path {
		switch e[0] {
		case 'f':
			b.WriteString("." + e[2:])
		case 'i':
			b.WriteString("[" + e[2:] + "]")
		case 'v':
			b.WriteString("[=" + valueString(elementValue(e)) + "]")
		case 'k':
			m, _ := elementValue(e).(obj)
			parts := make([]string, 0, len(m))
			for _, k := range unstructured.SortedKeys(m) {
				parts = append(parts, k+"="+valueString(m[k]))
			}
			b.WriteString("[" + strings.Join(parts, ",") + "]")
		}
	}
	return b.String()
}

// valueString renders a key value as the real server's messages do:
// strings quoted, whole numbers as integers.
func valueString(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case string:
		return strconv.Quote(t)
	case int64:
		return strconv.FormatInt(t, 10)
	case float64:
		if t == math.Trunc(t) && math.Abs(t) < 1<<63 {
			return strconv.FormatInt(int64(t), 10)
		}
		return fmt.Sprintf("%v", t)
	case bool:
		return strconv.FormatBool(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = valueString(x)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case obj:
		var parts []string
		for _, k := range unstructured.SortedKeys(t) {
			parts = append(parts, k+"="+valueString(t[k]))
		}
		return strings.Join(parts, "")
	}
	return fmt.Sprint(v)
}
