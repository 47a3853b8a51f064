// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"errors"
	"reflect"
)

// errNoClient is what the methods of a Client that NewClient did not make
// (a nil pointer or a zero Client) return.
var errNoClient = errors.New("kube.Client: use kube.NewClient")

// errNilObject is what a call given a nil object (a nil interface or a
// typed nil pointer) returns.
var errNilObject = errors.New("the object is nil")

// ready returns an error when c was not made by [NewClient] or one of
// objs is nil: a nil interface or a typed nil pointer.
func (c *Client) ready(objs ...any) error {
	if c == nil || c.mapper == nil {
		return errNoClient
	}
	for _, o := range objs {
		if isNil(o) {
			return errNilObject
		}
	}
	return nil
}

// isNil reports whether v is nil or a nil pointer, map, slice or func in
// an interface.
func isNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
