// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/kube"
)

// This file turns Go types into schemas by reflection: the shapes
// encoding/json gives them, the formats controller-gen gives them, and the
// crd tags applied on top (tags.go parses them, apply.go applies them).

// walker builds the schema of one resource type and collects what its
// tags ask for besides the schema.
type walker struct {
	// building holds the struct types on the way down from the root, to
	// refuse recursive types (a CRD schema has no references).
	building []reflect.Type
	// fields holds each struct type's JSON fields with their crd tags
	// parsed, read once however many times the type is used.
	fields map[reflect.Type][]taggedField
	// size is a lower bound of the bytes of JSON of the schema built so
	// far: the walk stops once it passes maxCRDBytes (see size.go).
	size int
	// written counts the times each struct type was written out, to name
	// the types that make a schema too large.
	written map[reflect.Type]int
	columns []PrinterColumn
	// columnOrder is the printColumnOrder of each of columns.
	columnOrder []int32
	selectable  []SelectableField
}

// taggedField is a JSON field of a struct and its parsed crd tag.
type taggedField struct {
	jsonField
	tags tags
	err  error // from parsing the tag
}

// structFields returns t's JSON fields and their tags, read once per walk.
func (w *walker) structFields(t reflect.Type) []taggedField {
	if fs, ok := w.fields[t]; ok {
		return fs
	}
	var fs []taggedField
	for _, f := range jsonFields(t) {
		tg, err := parseTags(f.tag.Get("crd"))
		fs = append(fs, taggedField{jsonField: f, tags: tg, err: err})
	}
	if w.fields == nil {
		w.fields = map[reflect.Type][]taggedField{}
	}
	w.fields[t] = fs
	return fs
}

// place is where a schema sits in the object.
type place struct {
	// path is the JSON path for messages and columns: ".spec.size",
	// ".spec.items[*].name".
	path string
	// inList is set under an array or map: no column or selectable field
	// can point there.
	inList bool
	// resource is set for the root and for embedded resources, whose
	// apiVersion, kind and metadata the server handles itself.
	resource bool
	// goField names the Go struct field whose crd tag applies here, as
	// "pkg.Type.Field", for messages; empty above the first field.
	goField string
}

func (p place) field(name, goField string) place {
	return place{path: p.path + "." + name, inList: p.inList, goField: goField}
}

func (p place) items() place { return place{path: p.path + "[*]", inList: true} }

// walkError is an error at a place in the type.
type walkError struct {
	path string
	// tagOf is the Go field whose crd tag is at fault ("pkg.Type.Field"),
	// or empty when the fault is not a tag's.
	tagOf string
	msg   string
}

func (e *walkError) Error() string {
	msg := e.msg
	if e.tagOf != "" {
		msg = "crd tag of " + e.tagOf + ": " + msg
	}
	if e.path == "" {
		return msg
	}
	return e.path + ": " + msg
}

func errorf(p place, format string, args ...any) error {
	return &walkError{path: p.path, msg: fmt.Sprintf(format, args...)}
}

// tagError is errorf for a fault of the crd tag of the field at p.
func tagError(p place, err error) error {
	if we, ok := err.(*walkError); ok {
		return &walkError{path: we.path, tagOf: p.goField, msg: we.msg}
	}
	return &walkError{path: p.path, tagOf: p.goField, msg: err.Error()}
}

var (
	typeTime        = reflect.TypeFor[kube.Time]()
	typeMicroTime   = reflect.TypeFor[kube.MicroTime]()
	typeGoTime      = reflect.TypeFor[time.Time]()
	typeIntOrString = reflect.TypeFor[kube.IntOrString]()
	typeUnstruct    = reflect.TypeFor[kube.Unstructured]()
	typeRawMessage  = reflect.TypeFor[json.RawMessage]()
	typeNumber      = reflect.TypeFor[json.Number]()
	typeCondition   = reflect.TypeFor[kube.Condition]()
	typeMarshaler   = reflect.TypeFor[json.Marshaler]()
	typeTextMarsh   = reflect.TypeFor[encoding.TextMarshaler]()
)

// fieldSchema is the schema of a struct field (or of the root), its tags
// applied.
func (w *walker) fieldSchema(t reflect.Type, tg tags, asString bool, p place) (Schema, error) {
	var s Schema
	var err error
	switch {
	case tg.schemaless:
		s = Schema{Type: tg.typ, XPreserveUnknownFields: true}
	case tg.intOrString:
		s = intOrString()
	case tg.typ != "":
		s = Schema{Type: tg.typ}
	case asString:
		s = Schema{Type: "string"}
	default:
		if tg.embedded && deref(t).Kind() == reflect.Struct {
			p.resource = true // its apiVersion, kind and metadata are the server's
		}
		if s, err = w.typeSchema(t, p); err != nil {
			return Schema{}, err
		}
	}
	if deref(t).Kind() == reflect.Slice && deref(t).Elem() == typeCondition && tg.listType == "" {
		// Conditions are keyed by type, as the API's own are.
		tg.listType, tg.listMapKeys = "map", []string{"type"}
	}
	if err := w.apply(&s, tg, t, p); err != nil {
		return Schema{}, tagError(p, err)
	}
	return s, nil
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func intOrString() Schema {
	return Schema{XIntOrString: true, AnyOf: []Schema{{Type: "integer"}, {Type: "string"}}}
}

// typeSchema is the schema of a Go type as encoding/json writes it.
func (w *walker) typeSchema(t reflect.Type, p place) (Schema, error) {
	t = deref(t)
	switch t {
	case typeTime, typeMicroTime, typeGoTime:
		return Schema{Type: "string", Format: "date-time"}, nil
	case typeIntOrString:
		return intOrString(), nil
	case typeUnstruct:
		return Schema{Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: true}, nil
	case typeRawMessage:
		return Schema{XPreserveUnknownFields: true}, nil
	case typeNumber:
		return Schema{Type: "number"}, nil
	}
	if t.Implements(typeMarshaler) || reflect.PointerTo(t).Implements(typeMarshaler) {
		return Schema{}, errorf(p, "%s has its own MarshalJSON, so its JSON shape is unknown here: "+
			`tag the field with crd:"type=..." (and format=...), or crd:"schemaless"`, t)
	}
	if t.Implements(typeTextMarsh) || reflect.PointerTo(t).Implements(typeTextMarsh) {
		return Schema{Type: "string"}, nil
	}
	switch t.Kind() {
	case reflect.Bool:
		return Schema{Type: "boolean"}, nil
	case reflect.String:
		return Schema{Type: "string"}, nil
	case reflect.Int, reflect.Int8, reflect.Int16:
		return Schema{Type: "integer"}, nil
	case reflect.Int32:
		return Schema{Type: "integer", Format: "int32"}, nil
	case reflect.Int64:
		return Schema{Type: "integer", Format: "int64"}, nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uintptr:
		return Schema{Type: "integer", Minimum: ptr(0.0)}, nil
	case reflect.Uint32:
		return Schema{Type: "integer", Format: "int32", Minimum: ptr(0.0)}, nil
	case reflect.Uint64:
		return Schema{Type: "integer", Format: "int64", Minimum: ptr(0.0)}, nil
	case reflect.Float32, reflect.Float64:
		return Schema{Type: "number"}, nil
	case reflect.Interface:
		return Schema{XPreserveUnknownFields: true}, nil
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 && !implementsAny(t.Elem()) {
			return Schema{Type: "string", Format: "byte"}, nil // base64, as encoding/json writes []byte
		}
		return w.arraySchema(t.Elem(), p)
	case reflect.Array:
		s, err := w.arraySchema(t.Elem(), p)
		n := int64(t.Len())
		s.MinItems, s.MaxItems = &n, &n
		return s, err
	case reflect.Map:
		return w.mapSchema(t, p)
	case reflect.Struct:
		return w.structSchema(t, p)
	}
	return Schema{}, errorf(p, "%s cannot be encoded as JSON", t)
}

func implementsAny(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return t.Implements(typeMarshaler) || pt.Implements(typeMarshaler) || t.Implements(typeTextMarsh) || pt.Implements(typeTextMarsh)
}

func ptr[T any](v T) *T { return &v }

func (w *walker) arraySchema(elem reflect.Type, p place) (Schema, error) {
	items, err := w.typeSchema(elem, p.items())
	if err != nil {
		return Schema{}, err
	}
	return Schema{Type: "array", Items: &items}, nil
}

// mapSchema describes a map as an object with free keys: keys are strings
// on the wire (integer keys are written in decimal).
func (w *walker) mapSchema(t reflect.Type, p place) (Schema, error) {
	key := t.Key()
	switch key.Kind() {
	case reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
	default:
		if !key.Implements(typeTextMarsh) {
			return Schema{}, errorf(p, "map key type %s cannot be encoded as JSON (want a string, an integer or an encoding.TextMarshaler)", key)
		}
	}
	if deref(t.Elem()).Kind() == reflect.Interface {
		// Any values: keep them all, unvalidated.
		return Schema{Type: "object", XPreserveUnknownFields: true}, nil
	}
	values, err := w.typeSchema(t.Elem(), p.items())
	if err != nil {
		return Schema{}, err
	}
	return Schema{Type: "object", AdditionalProperties: &SchemaOrBool{Schema: &values, Allows: true}}, nil
}

// structSchema describes a struct as an object with its JSON fields as
// properties. Fields without omitempty or omitzero are required, as
// controller-gen has it, unless tagged optional.
func (w *walker) structSchema(t reflect.Type, p place) (Schema, error) {
	if i := slices.Index(w.building, t); i >= 0 {
		var chain []string
		for _, b := range w.building[i:] {
			chain = append(chain, b.String())
		}
		return Schema{}, errorf(p, "recursive type %s (%s -> %s): a CRD schema has no references, so it cannot describe it; "+
			`tag the field that recurses crd:"schemaless" to keep its content unvalidated`, t, strings.Join(chain, " -> "), t)
	}
	w.building = append(w.building, t)
	defer func() { w.building = w.building[:len(w.building)-1] }()
	w.countWritten(t)

	s := Schema{Type: "object"}
	for _, f := range w.structFields(t) {
		fp := p.field(f.name, f.declared)
		if p.resource {
			switch f.name {
			case "metadata":
				// The server validates and prunes metadata itself and
				// allows nothing else in its schema here.
				w.setProperty(&s, f.name, Schema{Type: "object"})
				continue
			case "apiVersion", "kind":
				w.setProperty(&s, f.name, Schema{Type: "string"})
				continue
			}
		}
		if f.err != nil {
			return Schema{}, tagError(fp, f.err)
		}
		fs, err := w.fieldSchema(f.typ, f.tags, f.asString, fp)
		if err != nil {
			return Schema{}, err
		}
		w.setProperty(&s, f.name, fs)
		if f.tags.required || !f.omitEmpty && !f.tags.optional {
			w.require(&s, f.name)
		}
		if w.size > maxCRDBytes {
			return Schema{}, w.tooLarge(fp)
		}
	}
	if p.resource {
		// Every object has these, whether the Go type declares them or not.
		for name, typ := range map[string]string{"apiVersion": "string", "kind": "string", "metadata": "object"} {
			if _, ok := s.Properties[name]; !ok {
				w.setProperty(&s, name, Schema{Type: typ})
			}
		}
	}
	return s, nil
}
