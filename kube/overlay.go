// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// This file is what keeps an Update from erasing the fields its Go type
// does not declare: the object as its type encodes it is laid over the
// server's copy, field by field where the type declares fields, and
// whole where a value holds everything (see Client.Update).

// UndeclaredFieldsError is the error of an Update that would erase fields
// the object's Go type does not declare: elements of a list of partial
// structs that the update adds, removes or reorders, which hold fields
// the type leaves out. Nothing is written. Declare the fields, or write
// what changed with [Client.Patch] and [MergeFrom], or with
// [Client.Apply].
type UndeclaredFieldsError struct {
	// Paths are the JSON paths of the fields the update would erase, in
	// order: "spec.containers[1].resources".
	Paths []string
}

func (e *UndeclaredFieldsError) Error() string {
	if e == nil {
		return "<nil *kube.UndeclaredFieldsError>"
	}
	return "the update would erase fields its Go type does not declare (" + strings.Join(e.Paths, ", ") +
		"): declare them, or write what changed with kube.MergeFrom and Patch, or with Apply"
}

// overlay lays sent (an object as its Go type t encodes it) over current
// (the server's copy), both decoded as json.Unmarshal decodes into an
// empty interface with numbers kept as written, and returns the result.
// It changes both. The fields of t's structs are taken from sent (a
// field sent leaves out is removed), every other key of current is
// kept; values of types that encode themselves (json.Marshaler,
// encoding.TextMarshaler) or that hold anything (interfaces) are taken
// whole. Lists of structs are taken whole unless current's elements hold
// fields the type does not declare: then element by element when the
// two line up (the same length and, where elements have a name, the same
// names in order), and otherwise the paths of what would be lost are
// gathered in lost.
type overlay struct {
	fields func(reflect.Type) ([]jsondec.Field, bool)
	lost   []string
}

// lay returns sent laid over current, at path, for a value of type t.
func (o *overlay) lay(sent, current any, t reflect.Type, path string) any {
	t, whole := elemOf(t)
	s, sok := sent.(map[string]any)
	c, cok := current.(map[string]any)
	switch {
	case whole:
		return sent
	case t.Kind() == reflect.Struct && sok && cok:
		fields, ok := o.fields(t)
		if !ok {
			return sent
		}
		for _, f := range fields {
			v, ok := s[f.Name]
			if !ok {
				delete(c, f.Name)
				continue
			}
			c[f.Name] = o.lay(v, c[f.Name], f.Type, join(path, f.Name))
		}
		return c
	case t.Kind() == reflect.Map && sok && cok:
		for k, v := range s {
			s[k] = o.lay(v, c[k], t.Elem(), join(path, k))
		}
		return s
	case t.Kind() == reflect.Slice || t.Kind() == reflect.Array:
		return o.list(sent, current, t.Elem(), path)
	}
	return sent
}

// list lays a list sent over current, whose elements are of type t.
func (o *overlay) list(sent, current any, t reflect.Type, path string) any {
	s, sok := sent.([]any)
	c, cok := current.([]any)
	if !sok || !cok {
		return sent
	}
	var lost []string
	for i, e := range c {
		lost = o.undeclared(e, t, path+"["+strconv.Itoa(i)+"]", lost)
	}
	switch {
	case len(lost) == 0:
		return sent
	case !linedUp(s, c):
		o.lost = append(o.lost, lost...)
		return sent
	}
	for i := range s {
		s[i] = o.lay(s[i], c[i], t, path+"["+strconv.Itoa(i)+"]")
	}
	return s
}

// undeclared appends to lost the paths of the keys in current, a value
// of type t at path, that t does not declare.
func (o *overlay) undeclared(current any, t reflect.Type, path string, lost []string) []string {
	t, whole := elemOf(t)
	if whole {
		return lost
	}
	switch v := current.(type) {
	case map[string]any:
		if t.Kind() == reflect.Map {
			for k, e := range v {
				lost = o.undeclared(e, t.Elem(), join(path, k), lost)
			}
			return lost
		}
		fields, ok := o.fields(t)
		if !ok {
			return lost
		}
		for k, e := range v {
			i := slices.IndexFunc(fields, func(f jsondec.Field) bool { return f.Name == k })
			if i < 0 {
				lost = append(lost, join(path, k))
			} else {
				lost = o.undeclared(e, fields[i].Type, join(path, k), lost)
			}
		}
	case []any:
		if t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
			for i, e := range v {
				lost = o.undeclared(e, t.Elem(), path+"["+strconv.Itoa(i)+"]", lost)
			}
		}
	}
	return lost
}

// linedUp reports whether the elements of two lists pair one to one: as
// many, and with the same name in the same place where they have one.
func linedUp(sent, current []any) bool {
	if len(sent) != len(current) {
		return false
	}
	for i := range sent {
		s, sok := sent[i].(map[string]any)
		c, cok := current[i].(map[string]any)
		if sok && cok && s["name"] != c["name"] {
			return false
		}
	}
	return true
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// elemOf returns t without its pointers, and whether its value is taken
// whole: it encodes itself or may hold anything.
func elemOf(t reflect.Type) (reflect.Type, bool) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	return t, t.Kind() == reflect.Interface || pt.Implements(marshalerType) || pt.Implements(textMarshalerType)
}

// join appends a key to a JSON path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// errLost returns the error of the paths gathered, or nil.
func (o *overlay) errLost() error {
	if len(o.lost) == 0 {
		return nil
	}
	slices.Sort(o.lost)
	return &UndeclaredFieldsError{Paths: o.lost}
}

// unconditionalTries bounds the reads of an Update without a
// resourceVersion that another writer keeps beating.
const unconditionalTries = 5

// putFunc sends r, the PUT of out at key's path (of its subresource
// sub), in place of c.call (see Client.write).
type putFunc func(ctx context.Context, c *Client, r *request, gvk GroupVersionKind, key Key, sub string, out Object) error

// putKeeping is the PUT of Update: it keeps what out's Go type does not
// declare. Unless the type holds everything, it reads the stored object
// first and sends out laid over it (see overlay), conditional on the
// version read when out has none. An object that does not exist is sent
// as it is.
func putKeeping(ctx context.Context, c *Client, r *request, gvk GroupVersionKind, key Key, sub string, out Object) error {
	if holdsAll(out) {
		return c.call(ctx, r, out)
	}
	sent, rv := r.body, out.GetObjectMeta().ResourceVersion
	for try := 1; ; try++ {
		stored, err := c.stored(ctx, gvk, key, sub)
		if err != nil {
			return err
		}
		if stored != nil {
			if r.body, err = c.laid(sent, stored, out, rv); err != nil {
				return err
			}
		}
		err = c.call(ctx, r, out)
		if rv != "" || stored == nil || try == unconditionalTries || !IsConflict(err) {
			return err
		}
	}
}

// putWhole is the PUT of Replace: out is sent as it is, if its type
// holds everything.
func putWhole(ctx context.Context, c *Client, r *request, _ GroupVersionKind, _ Key, _ string, out Object) error {
	if !holdsAll(out) {
		return errors.New(reflect.TypeOf(out).String() + " does not hold every field of its kind: use Update")
	}
	return c.call(ctx, r, out)
}

// holdsAll reports whether obj's type holds every field an object of its
// kind can have: it encodes itself ([Unstructured]), or this package
// declares its kind in full.
func holdsAll(obj Object) bool {
	_, declared := obj.(interface{ holdsAll() })
	_, encodes := obj.(json.Marshaler)
	return declared || encodes
}

// stored reads the object at key's path (of its subresource sub) as the
// server sends it, or nil when there is none.
func (c *Client) stored(ctx context.Context, gvk GroupVersionKind, key Key, sub string) ([]byte, error) {
	r, err := c.objectRequest(ctx, http.MethodGet, gvk, key, sub)
	var raw json.RawMessage
	if err == nil {
		err = c.call(ctx, r, &raw)
	}
	switch {
	case IsNotFound(err):
		return nil, nil
	case err != nil:
		return nil, fmt.Errorf("read the stored object: %w", err)
	}
	return raw, nil
}

// laid returns sent, the encoding of out, laid over stored; without a
// resourceVersion of out's (rv), it carries stored's, so that the write
// is conditional on what it kept. What cannot be laid over stored is an
// error, but for an out older than stored: that is sent as it is, for
// the server to refuse with the Conflict a stale update gets.
func (c *Client) laid(sent, stored []byte, out Object, rv string) ([]byte, error) {
	jd := jsondec.New(jsondec.Options{UseNumber: true})
	var s, cur any
	err := jd.Unmarshal(sent, &s)
	if err == nil {
		err = jd.Unmarshal(stored, &cur)
	}
	if err != nil {
		return nil, fmt.Errorf("decode the stored object: %w", err)
	}
	storedRV := field(cur, "metadata", "resourceVersion")
	o := overlay{fields: c.dec.all.Fields}
	laid := o.lay(s, cur, reflect.TypeOf(out), "")
	if err := o.errLost(); err != nil && (rv == "" || rv == storedRV) {
		return nil, err
	} else if err != nil {
		return sent, nil
	}
	if m, ok := field(laid, "metadata").(map[string]any); ok && rv == "" && storedRV != nil {
		m["resourceVersion"] = storedRV
	}
	return json.Marshal(laid)
}

// field returns the value at a path of keys in v, or nil.
func field(v any, path ...string) any {
	for _, k := range path {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}
