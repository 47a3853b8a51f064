// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// encoding/json matches a member name to a struct field case-insensitively
// ("speC" fills Spec), the API server exactly. A review object with such a
// member would decode into the handler's type as the API server never
// reads it, and a mutating webhook's patch, made against the exact names,
// would add "spec" beside "speC". The API server never sends one for a
// type it knows; a review that has one is refused (400) by the typed
// handlers, naming the member.

// checkFieldSpelling returns an error naming the first member of doc (a
// document decoded into any) that is another spelling of a field t
// declares, at a place where t has a struct; where is the path of doc.
// Members t does not declare, map keys and values t decodes itself (a
// json.Unmarshaler or encoding.TextUnmarshaler) are not looked into. The
// cost is one visit of every member t declares, field tables cached per
// type.
func checkFieldSpelling(doc any, t reflect.Type, where string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if decodesItself(t) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := doc.(map[string]any)
		if !ok {
			return nil
		}
		fields := jsonFieldsOf(t)
		for _, k := range sortedMemberNames(m) {
			if ft, ok := fields.exact[k]; ok {
				if err := checkFieldSpelling(m[k], ft, where+"."+k); err != nil {
					return err
				}
				continue
			}
			if name, ok := fields.spelledOtherwise(k); ok {
				return fmt.Errorf("member %q of %s is another spelling of the field %q, which the API server never sends", k, where, name)
			}
		}
	case reflect.Map:
		if m, ok := doc.(map[string]any); ok {
			for _, k := range sortedMemberNames(m) {
				if err := checkFieldSpelling(m[k], t.Elem(), where+"["+strconv.Quote(k)+"]"); err != nil {
					return err
				}
			}
		}
	case reflect.Slice, reflect.Array:
		if s, ok := doc.([]any); ok {
			for i, v := range s {
				if err := checkFieldSpelling(v, t.Elem(), where+"["+strconv.Itoa(i)+"]"); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// decodesItself reports whether encoding/json hands t's JSON to t's own
// method.
func decodesItself(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return t.Implements(unmarshalerType) || p.Implements(unmarshalerType) ||
		t.Implements(textUnmarshalerType) || p.Implements(textUnmarshalerType)
}

// jsonFields are the member names a struct type decodes, as encoding/json
// names them, with their types.
type jsonFields struct {
	exact map[string]reflect.Type
}

// spelledOtherwise returns the declared name k is another spelling of,
// under encoding/json's Unicode folding (the Kelvin sign folds to "k").
func (f jsonFields) spelledOtherwise(k string) (string, bool) {
	for n := range f.exact {
		if strings.EqualFold(n, k) {
			return n, true
		}
	}
	return "", false
}

var jsonFieldCache sync.Map // reflect.Type -> jsonFields

// jsonFieldsOf returns the fields of struct type t; fields of embedded
// structs without a name are t's own, a field of t hiding theirs.
func jsonFieldsOf(t reflect.Type) jsonFields {
	if f, ok := jsonFieldCache.Load(t); ok {
		return f.(jsonFields)
	}
	f := jsonFields{exact: map[string]reflect.Type{}}
	addJSONFields(f, t, 0)
	jsonFieldCache.Store(t, f)
	return f
}

func addJSONFields(f jsonFields, t reflect.Type, depth int) {
	if depth > 8 {
		return
	}
	var embedded []reflect.Type
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := sf.Type
		if sf.Anonymous && name == "" {
			for ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				embedded = append(embedded, ft)
				continue
			}
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		if _, ok := f.exact[name]; !ok {
			f.exact[name] = ft
		}
	}
	for _, e := range embedded {
		addJSONFields(f, e, depth+1)
	}
}

// sortedMemberNames returns m's names in order, so that the member named
// is the same from one review to the next.
func sortedMemberNames(m map[string]any) []string {
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}
