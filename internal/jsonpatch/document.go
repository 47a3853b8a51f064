// SPDX-License-Identifier: Apache-2.0

package jsonpatch

import (
	"fmt"
	"slices"
)

// document carries out the steps of one operation on a document the
// patch owns (a deep copy), modifying it in place. Each method takes the
// pointer both parsed (toks) and as written (ptr, for errors), and returns
// the new document, which differs from the old one only when the root is
// replaced.
type document struct {
	op Operation
}

func (d document) fail(ptr, format string, args ...any) *PathError {
	return &PathError{Op: d.op.Op, Path: ptr, Reason: fmt.Sprintf(format, args...)}
}

// get returns the value at toks.
func (d document) get(doc any, toks []string, ptr string) (any, error) {
	v := doc
	for i, t := range toks {
		switch x := v.(type) {
		case map[string]any:
			c, ok := x[t]
			if !ok {
				return nil, d.fail(ptr, "the object at %q has no member %q", pointerTo(toks, i), t)
			}
			v = c
		case []any:
			idx, err := arrayIndex(t, len(x), false)
			if err != nil {
				return nil, d.fail(ptr, "the array at %q: %v", pointerTo(toks, i), err)
			}
			v = x[idx]
		default:
			return nil, d.fail(ptr, "the value at %q is %s, not an object or array", pointerTo(toks, i), jsonType(v))
		}
	}
	return v, nil
}

// update walks to the container that holds the last token of toks, which
// must not be empty, and replaces it by what fn returns, writing new slices
// back into their parents. fn gets the container and the pointer to it.
func (d document) update(doc any, toks []string, ptr string, fn func(parent any, at string) (any, error)) (any, error) {
	var walk func(node any, i int) (any, error)
	walk = func(node any, i int) (any, error) {
		if i == len(toks)-1 {
			return fn(node, pointerTo(toks, i))
		}
		switch x := node.(type) {
		case map[string]any:
			c, ok := x[toks[i]]
			if !ok {
				return nil, d.fail(ptr, "the object at %q has no member %q", pointerTo(toks, i), toks[i])
			}
			nc, err := walk(c, i+1)
			if err != nil {
				return nil, err
			}
			x[toks[i]] = nc
			return x, nil
		case []any:
			idx, err := arrayIndex(toks[i], len(x), false)
			if err != nil {
				return nil, d.fail(ptr, "the array at %q: %v", pointerTo(toks, i), err)
			}
			nc, err := walk(x[idx], i+1)
			if err != nil {
				return nil, err
			}
			x[idx] = nc
			return x, nil
		}
		return nil, d.fail(ptr, "the value at %q is %s, not an object or array", pointerTo(toks, i), jsonType(node))
	}
	return walk(doc, 0)
}

// add sets a member or inserts an array element ("-" appends); at the root
// it replaces the document. The parent must exist.
func (d document) add(doc any, toks []string, ptr string, value any) (any, error) {
	if len(toks) == 0 {
		return value, nil
	}
	last := toks[len(toks)-1]
	return d.update(doc, toks, ptr, func(parent any, at string) (any, error) {
		switch x := parent.(type) {
		case map[string]any:
			x[last] = value
			return x, nil
		case []any:
			idx, err := arrayIndex(last, len(x), true)
			if err != nil {
				return nil, d.fail(ptr, "the array at %q: %v", at, err)
			}
			return slices.Insert(x, idx, value), nil
		}
		return nil, d.fail(ptr, "the value at %q is %s, not an object or array", at, jsonType(parent))
	})
}

// replace sets an existing member or element; at the root it replaces the
// document.
func (d document) replace(doc any, toks []string, ptr string, value any) (any, error) {
	if len(toks) == 0 {
		return value, nil
	}
	last := toks[len(toks)-1]
	return d.update(doc, toks, ptr, func(parent any, at string) (any, error) {
		switch x := parent.(type) {
		case map[string]any:
			if _, ok := x[last]; !ok {
				return nil, d.fail(ptr, "the object at %q has no member %q", at, last)
			}
			x[last] = value
			return x, nil
		case []any:
			idx, err := arrayIndex(last, len(x), false)
			if err != nil {
				return nil, d.fail(ptr, "the array at %q: %v", at, err)
			}
			x[idx] = value
			return x, nil
		}
		return nil, d.fail(ptr, "the value at %q is %s, not an object or array", at, jsonType(parent))
	})
}

// remove deletes an existing member or element and returns it too. The
// root cannot be removed.
func (d document) remove(doc any, toks []string, ptr string) (any, any, error) {
	if len(toks) == 0 {
		return nil, nil, d.fail(ptr, "cannot remove the whole document")
	}
	last := toks[len(toks)-1]
	var removed any
	doc, err := d.update(doc, toks, ptr, func(parent any, at string) (any, error) {
		switch x := parent.(type) {
		case map[string]any:
			v, ok := x[last]
			if !ok {
				return nil, d.fail(ptr, "the object at %q has no member %q", at, last)
			}
			removed = v
			delete(x, last)
			return x, nil
		case []any:
			idx, err := arrayIndex(last, len(x), false)
			if err != nil {
				return nil, d.fail(ptr, "the array at %q: %v", at, err)
			}
			removed = x[idx]
			return slices.Delete(x, idx, idx+1), nil
		}
		return nil, d.fail(ptr, "the value at %q is %s, not an object or array", at, jsonType(parent))
	})
	return doc, removed, err
}
