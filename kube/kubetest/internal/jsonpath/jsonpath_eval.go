// SPDX-License-Identifier: Apache-2.0

package jsonpath

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// This file evaluates a parsed JSONPath (jsonpath.go) against decoded
// JSON (map[string]any, []any, string, float64, bool, nil), as kubectl's
// JSONPath does against the real server's unstructured objects: missing
// keys give no result, an index out of range or a filter comparing values
// of different kinds is an error, and a float64 without a fraction is an
// integer, as the real server decodes such a number to int64. Evaluation
// allocates the result lists only; inputs are never modified.

// First evaluates the first expression of the template against data and
// returns its first result; found is false when there is none or the
// evaluation fails (an index out of range, a filter comparing a string
// with a number), which the server shows as an empty cell.
func (jp *Path) First(data any) (v any, found bool) {
	var first []any
	for i, n := range jp.root {
		res, err := jpEval([]any{data}, n)
		if err != nil {
			return nil, false // any failing expression fails the column
		}
		if i == 0 {
			first = res
		}
	}
	if len(first) == 0 {
		return nil, false
	}
	return first[0], true
}

// jpEval applies n to every input value.
func jpEval(in []any, n *jpNode) ([]any, error) {
	switch n.kind {
	case jpList:
		var err error
		for _, c := range n.nodes {
			if in, err = jpEval(in, c); err != nil {
				return in, err
			}
		}
		return in, nil
	case jpText:
		return []any{n.text}, nil
	case jpInt:
		return jpRepeat(len(in), int64(n.n)), nil
	case jpFloat:
		return jpRepeat(len(in), n.num), nil
	case jpBool:
		return jpRepeat(len(in), n.b), nil
	case jpField:
		var out []any
		for _, v := range in {
			if m, ok := v.(map[string]any); ok {
				if x, ok := m[n.text]; ok {
					out = append(out, x)
				}
			}
		}
		return out, nil
	case jpWildcard:
		var out []any
		for _, v := range in {
			out = append(out, jpChildren(v)...)
		}
		return out, nil
	case jpRecursive:
		return jpRecurse(in), nil
	case jpArray:
		return jpIndex(in, n.params)
	case jpUnion:
		var out []any
		for _, alt := range n.nodes {
			r, err := jpEval(in, alt)
			if err != nil {
				return in, err
			}
			out = append(out, r...)
		}
		return out, nil
	case jpFilter:
		return jpFilterValues(in, n)
	case jpIdent:
		if n.text == "range" { // starts a loop over the results, which only later results see
			return in, nil
		}
		return in, fmt.Errorf("unrecognized identifier %v", n.text)
	}
	return in, fmt.Errorf("unexpected node")
}

func jpRepeat(n int, v any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// jpChildren lists a value's members: a map's values (by key, where the
// real server's order is random), a list's items, a string's bytes.
func jpChildren(v any) []any {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out := make([]any, len(keys))
		for i, k := range keys {
			out[i] = x[k]
		}
		return out
	case []any:
		return x
	case string:
		out := make([]any, len(x))
		for i := range len(x) {
			out[i] = x[i] // a byte, as the real server's reflection yields
		}
		return out
	}
	return nil
}

// jpRecurse returns every value below the inputs that has members,
// itself first: what .. yields before the next node.
func jpRecurse(in []any) []any {
	var out []any
	for _, v := range in {
		if kids := jpChildren(v); len(kids) > 0 {
			out = append(out, v)
			out = append(out, jpRecurse(kids)...)
		}
	}
	return out
}

func jpIndex(in []any, params [3]jpParam) ([]any, error) {
	var out []any
	for _, v := range in {
		if v == nil {
			continue
		}
		list, ok := v.([]any)
		if !ok {
			return in, fmt.Errorf("%T is not array or slice", v)
		}
		p := params
		if !p[0].known {
			p[0].value = 0
		}
		if p[0].value < 0 {
			p[0].value += len(list)
		}
		if !p[1].known {
			p[1].value = len(list)
		}
		if p[1].value < 0 || (p[1].value == 0 && p[1].derived) {
			p[1].value += len(list)
		}
		if p[1].value == p[0].value {
			return out, nil
		}
		switch {
		case p[0].value >= len(list) || p[0].value < 0:
			return in, fmt.Errorf("array index out of bounds: index %d, length %d", p[0].value, len(list))
		case p[1].value > len(list) || p[1].value < 0:
			return in, fmt.Errorf("array index out of bounds: index %d, length %d", p[1].value-1, len(list))
		case p[0].value > p[1].value:
			return in, fmt.Errorf("starting index %d is greater than ending index %d", p[0].value, p[1].value)
		}
		step := 1
		if p[2].known {
			if p[2].value <= 0 {
				return in, fmt.Errorf("step must be > 0")
			}
			step = p[2].value
		}
		for i := p[0].value; i < p[1].value; i += step {
			out = append(out, list[i])
		}
	}
	return out, nil
}

func jpFilterValues(in []any, n *jpNode) ([]any, error) {
	var out []any
	for _, v := range in {
		list, ok := v.([]any)
		if !ok {
			return in, fmt.Errorf("%v is not array or slice and cannot be filtered", v)
		}
		for _, item := range list {
			if n.op == "exists" {
				if lefts, _ := jpEval([]any{item}, n.left); len(lefts) > 0 {
					out = append(out, item)
				}
				continue
			}
			l, ok, err := jpOperand(item, n.left)
			if err != nil {
				return in, err
			} else if !ok {
				continue
			}
			r, ok, err := jpOperand(item, n.right)
			if err != nil {
				return in, err
			} else if !ok {
				continue
			}
			pass, err := jpCompare(l, r, n.op)
			if err != nil {
				return out, err
			}
			if pass {
				out = append(out, item)
			}
		}
	}
	return out, nil
}

// jpOperand evaluates one side of a filter's comparison on item; ok is
// false when it has no value, which skips the item.
func jpOperand(item any, n *jpNode) (v any, ok bool, err error) {
	vs, err := jpEval([]any{item}, n)
	switch {
	case err != nil:
		return nil, false, err
	case len(vs) == 0:
		return nil, false, nil
	case len(vs) > 1:
		return nil, false, fmt.Errorf("can only compare one element at a time")
	}
	return vs[0], true, nil
}

// jpScalar classifies a value for comparison: 'b'ool, 'i'nteger,
// 'f'loat, 's'tring, or 0 for what cannot be compared.
func jpScalar(v any) (kind byte, i int64, f float64, s string, b bool) {
	switch x := v.(type) {
	case bool:
		return 'b', 0, 0, "", x
	case int64:
		return 'i', x, 0, "", false
	case byte:
		return 'i', int64(x), 0, "", false
	case float64:
		if n, ok := Integer(x); ok {
			return 'i', n, 0, "", false
		}
		return 'f', 0, x, "", false
	case string:
		return 's', 0, 0, x, false
	}
	return 0, 0, 0, "", false
}

// Integer reports whether f is a whole number the real server would
// hold as an int64, and which.
func Integer(f float64) (int64, bool) {
	if f != float64(int64(f)) || f >= 1<<63 || f < -(1<<63) {
		return 0, false
	}
	return int64(f), true
}

// jpCompare compares two values as kubectl's JSONPath filters do: only
// values of one kind, and booleans for equality only.
func jpCompare(l, r any, op string) (bool, error) {
	lk, li, lf, ls, lb := jpScalar(l)
	rk, ri, rf, rs, rb := jpScalar(r)
	if lk == 0 || rk == 0 {
		return false, fmt.Errorf("invalid type for comparison")
	}
	if lk != rk {
		return false, fmt.Errorf("incompatible types for comparison")
	}
	var c int
	switch lk {
	case 'b':
		switch op {
		case "==":
			return lb == rb, nil
		case "!=":
			return lb != rb, nil
		}
		return false, fmt.Errorf("invalid type for comparison")
	case 'i':
		c = cmp.Compare(li, ri)
	case 'f':
		c = cmp.Compare(lf, rf)
	case 's':
		c = strings.Compare(ls, rs)
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	case ">=":
		return c >= 0, nil
	}
	return false, fmt.Errorf("unrecognized filter operator %s", op)
}
