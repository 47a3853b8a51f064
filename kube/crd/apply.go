// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// apply puts the tags of a field onto its schema s. Value keywords that do
// not fit s itself but fit its elements (a pattern on a []string, a
// maximum on a map[string]int) go to the items of an array and the values
// of a map, as deep as needed. What fits nowhere is an error.
func (w *walker) apply(s *Schema, tg tags, t reflect.Type, p place) error {
	if err := applyValue(s, tg, p); err != nil {
		return err
	}
	if tg.description != "" {
		s.Description = tg.description
	}
	s.Nullable = s.Nullable || tg.nullable
	if tg.preserve {
		s.XPreserveUnknownFields = true
	}
	if tg.embedded {
		if s.Type != "object" {
			return errorf(p, "embeddedResource needs an object, not %s", typeName(s))
		}
		s.XEmbeddedResource = true
	}
	if tg.minItems != nil || tg.maxItems != nil || tg.listType != "" {
		if s.Type != "array" {
			return errorf(p, "minItems, maxItems and listType need an array, not %s", typeName(s))
		}
		s.MinItems, s.MaxItems = or(tg.minItems, s.MinItems), or(tg.maxItems, s.MaxItems)
		s.XListType, s.XListMapKeys = tg.listType, slices.Clone(tg.listMapKeys)
		if err := checkRange("minItems", s.MinItems, "maxItems", s.MaxItems); err != nil {
			return errorf(p, "%v", err)
		}
		if err := checkListType(s, p); err != nil {
			return err
		}
	}
	if tg.minProperties != nil || tg.maxProperties != nil || tg.mapType != "" {
		if s.Type != "object" {
			return errorf(p, "minProperties, maxProperties and mapType need an object, not %s", typeName(s))
		}
		s.MinProperties, s.MaxProperties = or(tg.minProperties, s.MinProperties), or(tg.maxProperties, s.MaxProperties)
		s.XMapType = tg.mapType
		if err := checkRange("minProperties", s.MinProperties, "maxProperties", s.MaxProperties); err != nil {
			return errorf(p, "%v", err)
		}
	}
	if err := checkRules(tg.rules); err != nil {
		return errorf(p, "%v", err)
	}
	s.XValidations = append(s.XValidations, tg.rules...)
	if tg.def != nil {
		v, err := typedValue(s, *tg.def)
		if err != nil {
			return errorf(p, "default: %v", err)
		}
		s.Default = v
		if err := checkDefault(s, *tg.def); err != nil {
			return errorf(p, "%v", err)
		}
	}
	if tg.printColumn != "" {
		if err := w.addColumn(s, tg, p); err != nil {
			return err
		}
	}
	if tg.selectable {
		if p.inList || !(s.Type == "string" || s.Type == "integer" || s.Type == "boolean") {
			return errorf(p, "selectableField needs a string, integer or boolean outside any list or map, not %s", typeName(s))
		}
		w.selectable = append(w.selectable, SelectableField{JSONPath: p.path})
	}
	return nil
}

// applyValue applies the keywords about values (numbers, strings, enum,
// format) to s, or to the elements of s where they do not fit s.
func applyValue(s *Schema, tg tags, p place) error {
	numeric := tg.minimum != nil || tg.maximum != nil || tg.multipleOf != nil || tg.exclusiveMinimum || tg.exclusiveMaximum
	text := tg.minLength != nil || tg.maxLength != nil || tg.pattern != ""
	if !numeric && !text && tg.enum == nil && tg.format == "" {
		return nil
	}
	scalar := s.Type == "string" || s.Type == "integer" || s.Type == "number" || s.Type == "boolean" || s.XIntOrString
	if !scalar {
		switch {
		case s.Type == "array" && s.Items != nil:
			return applyValue(s.Items, tg, p.items())
		case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			return applyValue(s.AdditionalProperties.Schema, tg, p.items())
		}
		return errorf(p, "minimum, maximum, multipleOf, minLength, maxLength, pattern, enum and format need a value, not %s", typeName(s))
	}
	if numeric && s.Type != "integer" && s.Type != "number" {
		return errorf(p, "minimum, maximum and multipleOf need an integer or a number, not %s", typeName(s))
	}
	if text && s.Type != "string" && !s.XIntOrString {
		return errorf(p, "minLength, maxLength and pattern need a string, not %s", typeName(s))
	}
	s.Minimum, s.Maximum, s.MultipleOf = or(tg.minimum, s.Minimum), or(tg.maximum, s.Maximum), or(tg.multipleOf, s.MultipleOf)
	s.ExclusiveMinimum = s.ExclusiveMinimum || tg.exclusiveMinimum
	s.ExclusiveMaximum = s.ExclusiveMaximum || tg.exclusiveMaximum
	if tg.exclusiveMinimum && s.Minimum == nil || tg.exclusiveMaximum && s.Maximum == nil {
		return errorf(p, "exclusiveMinimum and exclusiveMaximum need the minimum or maximum they qualify")
	}
	s.MinLength, s.MaxLength = or(tg.minLength, s.MinLength), or(tg.maxLength, s.MaxLength)
	if tg.pattern != "" {
		s.Pattern = tg.pattern
	}
	if tg.format != "" {
		s.Format = tg.format
	}
	for _, e := range tg.enum {
		v, err := typedValue(s, e)
		if err != nil {
			return errorf(p, "enum: %v", err)
		}
		s.Enum = append(s.Enum, v)
	}
	if err := checkValue(s, tg); err != nil {
		return errorf(p, "%v", err)
	}
	return nil
}

func or[T any](a, b *T) *T {
	if a != nil {
		return a
	}
	return b
}

// typedValue turns the text of an enum value or a default into JSON of the
// schema's type: a string is taken as it is, numbers and booleans are
// parsed, anything else must be JSON.
func typedValue(s *Schema, text string) (json.RawMessage, error) {
	switch {
	case s.XIntOrString:
		if _, err := strconv.ParseInt(text, 10, 64); err == nil {
			return json.RawMessage(text), nil
		}
		return json.Marshal(text)
	case s.Type == "string":
		return json.Marshal(text)
	case s.Type == "integer":
		if _, err := strconv.ParseInt(text, 10, 64); err != nil {
			return nil, fmt.Errorf("%q is not an integer", text)
		}
		return json.RawMessage(text), nil
	case s.Type == "number":
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", text)
		}
		return json.Marshal(f)
	case s.Type == "boolean":
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not a boolean", text)
		}
		return json.Marshal(b)
	}
	if !json.Valid([]byte(text)) {
		return nil, fmt.Errorf("%q is not JSON (a value of %s is written as JSON)", text, typeName(s))
	}
	return json.RawMessage(text), nil
}

// checkListType checks what the server checks of list types, to say it
// while the Go type is at hand.
func checkListType(s *Schema, p place) error {
	switch s.XListType {
	case "map":
		items := s.Items
		if items == nil || items.Type != "object" || len(items.Properties) == 0 {
			return errorf(p, "listType=map needs a list of structs")
		}
		if len(s.XListMapKeys) == 0 {
			return errorf(p, "listType=map needs listMapKey=<field> (several separated by ';')")
		}
		for _, k := range s.XListMapKeys {
			prop, ok := items.Properties[k]
			switch {
			case !ok:
				return errorf(p, "listMapKey %q is not a field of the items (they have %s)", k, strings.Join(slices.Sorted(maps.Keys(items.Properties)), ", "))
			case prop.Type != "string" && prop.Type != "integer" && prop.Type != "number" && prop.Type != "boolean" && !prop.XIntOrString:
				return errorf(p, "listMapKey %q must be a scalar field, not %s", k, typeName(&prop))
			case prop.Default == nil && !contains(items.Required, k):
				return errorf(p, "listMapKey %q must be required (no omitempty) or have a default", k)
			case prop.Nullable:
				return errorf(p, "listMapKey %q cannot be nullable", k)
			}
		}
	case "set":
		if it := s.Items; it != nil && (it.Type == "object" && it.XMapType != "atomic" || it.Type == "array" && it.XListType != "atomic") {
			return errorf(p, "listType=set needs scalar items (or atomic ones), not %s", typeName(it))
		}
	}
	if s.XListType == "set" || s.XListType == "map" {
		if s.Items != nil && s.Items.Nullable {
			return errorf(p, "the items of a listType=%s cannot be nullable", s.XListType)
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// addColumn adds the printer column a printColumn tag asks for.
func (w *walker) addColumn(s *Schema, tg tags, p place) error {
	if p.inList {
		return errorf(p, "printColumn cannot point into a list or map")
	}
	typ := s.Type
	switch {
	case s.Type == "string" && s.Format == "date-time":
		typ = "date"
	case s.XIntOrString, s.Type == "":
		typ = "string"
	case typ == "object" || typ == "array":
		return errorf(p, "printColumn needs a value kubectl can print (integer, number, string, boolean, date), not %s", typeName(s))
	}
	desc := tg.printColumnDetail
	if desc == "" {
		desc = tg.description
	}
	w.columns = append(w.columns, PrinterColumn{Name: tg.printColumn, Type: typ, Format: tg.printColumnFormat,
		Description: desc, Priority: tg.printColumnPriority, JSONPath: p.path})
	w.columnOrder = append(w.columnOrder, tg.printColumnOrder)
	return nil
}

// typeName says what a schema describes, for messages.
func typeName(s *Schema) string {
	switch {
	case s.XIntOrString:
		return "an int-or-string"
	case s.Type == "":
		return "a schemaless value"
	case s.Type == "object" || s.Type == "array" || s.Type == "integer":
		return "an " + s.Type
	}
	return "a " + s.Type
}
