// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// tags is a parsed `crd:"..."` struct tag; see the package doc for the
// vocabulary.
type tags struct {
	optional, required bool

	minimum, maximum, multipleOf          *float64
	exclusiveMinimum, exclusiveMaximum    bool
	minLength, maxLength                  *int64
	minItems, maxItems                    *int64
	minProperties, maxProperties          *int64
	pattern, format, typ, description     string
	enum                                  []string // unparsed; typed by the schema
	def                                   *string  // unparsed; typed by the schema
	listType, mapType                     string
	listMapKeys                           []string
	preserve, schemaless, embedded        bool
	nullable, intOrString, selectable     bool
	printColumn                           string
	printColumnPriority, printColumnOrder int32
	printColumnFormat, printColumnDetail  string
	rules                                 []ValidationRule
}

// parseTags parses the value of a crd struct tag: comma-separated entries,
// each a key or key=value; a value in single quotes may hold commas, and
// ” stands for one quote inside it.
func parseTags(s string) (tags, error) {
	var t tags
	for s != "" {
		var key, val string
		var hasVal bool
		end := strings.IndexAny(s, "=,")
		if end < 0 {
			key, s = s, ""
		} else if s[end] == ',' {
			key, s = s[:end], s[end+1:]
		} else {
			key, hasVal = s[:end], true
			var err error
			if val, s, err = cutValue(s[end+1:]); err != nil {
				return tags{}, fmt.Errorf("%s: %w", key, err)
			}
		}
		key = strings.TrimSpace(key)
		if key == "" {
			continue
		}
		if err := t.set(key, val, hasVal); err != nil {
			return tags{}, err
		}
	}
	if t.optional && t.required {
		return tags{}, errors.New("both optional and required")
	}
	if t.listType != "map" && len(t.listMapKeys) > 0 {
		return tags{}, errors.New("listMapKey needs listType=map")
	}
	return t, nil
}

// cutValue reads one value, quoted or not, and returns the rest after the
// comma that ends it.
func cutValue(s string) (val, rest string, err error) {
	if !strings.HasPrefix(s, "'") {
		if i := strings.IndexByte(s, ','); i >= 0 {
			return s[:i], s[i+1:], nil
		}
		return s, "", nil
	}
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != '\'' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == '\'' {
			b.WriteByte('\'')
			i++
			continue
		}
		rest = s[i+1:]
		if rest != "" && rest[0] != ',' {
			return "", "", fmt.Errorf("text after the closing quote: %q", rest)
		}
		return b.String(), strings.TrimPrefix(rest, ","), nil
	}
	return "", "", errors.New("unterminated quote")
}

// keys lists the tag keys in the order the package doc gives them, each
// with where its value goes: a *bool is a key without a value, the other
// targets take one.
func (t *tags) keys() []struct {
	name string
	dst  any
} {
	oneOf := func(dst *string, key string, allowed ...string) func(string) error {
		return func(v string) error {
			if !contains(allowed, v) {
				return fmt.Errorf("%s=%s: want %s", key, v, orList(allowed))
			}
			*dst = v
			return nil
		}
	}
	return []struct {
		name string
		dst  any
	}{
		{"optional", &t.optional}, {"required", &t.required},
		{"minimum", &t.minimum}, {"maximum", &t.maximum},
		{"exclusiveMinimum", &t.exclusiveMinimum}, {"exclusiveMaximum", &t.exclusiveMaximum}, {"multipleOf", &t.multipleOf},
		{"minLength", &t.minLength}, {"maxLength", &t.maxLength}, {"pattern", &t.pattern}, {"format", &t.format},
		{"minItems", &t.minItems}, {"maxItems", &t.maxItems}, {"minProperties", &t.minProperties}, {"maxProperties", &t.maxProperties},
		{"enum", func(v string) error { t.enum = strings.Split(v, ";"); return nil }},
		{"default", func(v string) error { t.def = &v; return nil }},
		{"nullable", &t.nullable},
		{"listType", oneOf(&t.listType, "listType", "atomic", "set", "map")},
		{"listMapKey", func(v string) error { t.listMapKeys = append(t.listMapKeys, strings.Split(v, ";")...); return nil }},
		{"mapType", oneOf(&t.mapType, "mapType", "atomic", "granular")},
		{"preserveUnknownFields", &t.preserve}, {"schemaless", &t.schemaless},
		{"embeddedResource", &t.embedded}, {"intOrString", &t.intOrString},
		{"type", func(v string) error {
			if v == "array" {
				return errors.New("type=array: an array needs items, which a tag cannot give (kube-apiserver refuses an array without them): " +
					"declare the field as a Go slice, or leave type out with schemaless")
			}
			return oneOf(&t.typ, "type", "string", "integer", "number", "boolean", "object")(v)
		}},
		{"description", &t.description},
		{"rule", func(v string) error { t.rules = append(t.rules, ValidationRule{Rule: v}); return nil }},
		{"message", func(v string) error {
			if len(t.rules) == 0 {
				return errors.New("message must follow the rule it belongs to")
			}
			t.rules[len(t.rules)-1].Message = v
			return nil
		}},
		{"printColumn", &t.printColumn},
		{"printColumnPriority", func(v string) error {
			p, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("printColumnPriority=%s: want an integer", v)
			}
			t.printColumnPriority = int32(p)
			return nil
		}},
		{"printColumnOrder", func(v string) error {
			o, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("printColumnOrder=%s: want an integer", v)
			}
			t.printColumnOrder = int32(o)
			return nil
		}},
		// The formats kube-apiserver takes for a column.
		{"printColumnFormat", oneOf(&t.printColumnFormat, "printColumnFormat", "int32", "int64", "float", "double", "byte", "date", "date-time", "password")},
		{"printColumnDescription", &t.printColumnDetail},
		{"selectableField", &t.selectable},
	}
}

func (t *tags) set(key, val string, hasVal bool) error {
	keys := t.keys()
	for _, k := range keys {
		if k.name != key {
			continue
		}
		if _, flag := k.dst.(*bool); flag == hasVal {
			if flag {
				return fmt.Errorf("%s takes no value", key)
			}
			return fmt.Errorf("%s needs a value (%s=...)", key, key)
		}
		var err error
		switch dst := k.dst.(type) {
		case *bool:
			*dst = true
		case *string:
			*dst = val
		case **float64:
			*dst, err = parseFloat(key, val)
		case **int64:
			*dst, err = parseCount(key, val)
		case func(string) error:
			err = dst(val)
		}
		return err
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = k.name
	}
	return fmt.Errorf("unknown key %q; known: %s", key, strings.Join(names, ", "))
}

// orList writes items as "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func parseFloat(key, val string) (*float64, error) {
	f, err := strconv.ParseFloat(val, 64)
	if err != nil {
		return nil, fmt.Errorf("%s=%s: want a number", key, val)
	}
	return &f, nil
}

func parseCount(key, val string) (*int64, error) {
	n, err := strconv.ParseInt(val, 10, 64)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("%s=%s: want a whole number >= 0", key, val)
	}
	return &n, nil
}
