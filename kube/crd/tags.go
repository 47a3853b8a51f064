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

	minimum, maximum, multipleOf         *float64
	exclusiveMinimum, exclusiveMaximum   bool
	minLength, maxLength                 *int64
	minItems, maxItems                   *int64
	minProperties, maxProperties         *int64
	pattern, format, typ, description    string
	enum                                 []string // unparsed; typed by the schema
	def                                  *string  // unparsed; typed by the schema
	listType, mapType                    string
	listMapKeys                          []string
	preserve, schemaless, embedded       bool
	nullable, intOrString, selectable    bool
	printColumn                          string
	printColumnPriority                  int32
	printColumnFormat, printColumnDetail string
	rules                                []ValidationRule
}

// tagKeys lists the keys in the order the package doc gives them, with
// whether each takes a value.
var tagKeys = []struct {
	name  string
	value bool
}{
	{"optional", false}, {"required", false},
	{"minimum", true}, {"maximum", true}, {"exclusiveMinimum", false}, {"exclusiveMaximum", false}, {"multipleOf", true},
	{"minLength", true}, {"maxLength", true}, {"pattern", true}, {"format", true},
	{"minItems", true}, {"maxItems", true}, {"minProperties", true}, {"maxProperties", true},
	{"enum", true}, {"default", true}, {"nullable", false},
	{"listType", true}, {"listMapKey", true}, {"mapType", true},
	{"preserveUnknownFields", false}, {"schemaless", false}, {"embeddedResource", false}, {"intOrString", false},
	{"type", true}, {"description", true}, {"rule", true}, {"message", true},
	{"printColumn", true}, {"printColumnPriority", true}, {"printColumnFormat", true}, {"printColumnDescription", true},
	{"selectableField", false},
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

func (t *tags) set(key, val string, hasVal bool) error {
	known := false
	for _, k := range tagKeys {
		if k.name != key {
			continue
		}
		known = true
		switch {
		case k.value && !hasVal:
			return fmt.Errorf("%s needs a value (%s=...)", key, key)
		case !k.value && hasVal:
			return fmt.Errorf("%s takes no value", key)
		}
	}
	if !known {
		names := make([]string, len(tagKeys))
		for i, k := range tagKeys {
			names[i] = k.name
		}
		return fmt.Errorf("unknown key %q; known: %s", key, strings.Join(names, ", "))
	}
	var err error
	switch key {
	case "optional":
		t.optional = true
	case "required":
		t.required = true
	case "minimum":
		t.minimum, err = parseFloat(key, val)
	case "maximum":
		t.maximum, err = parseFloat(key, val)
	case "multipleOf":
		t.multipleOf, err = parseFloat(key, val)
	case "exclusiveMinimum":
		t.exclusiveMinimum = true
	case "exclusiveMaximum":
		t.exclusiveMaximum = true
	case "minLength":
		t.minLength, err = parseCount(key, val)
	case "maxLength":
		t.maxLength, err = parseCount(key, val)
	case "minItems":
		t.minItems, err = parseCount(key, val)
	case "maxItems":
		t.maxItems, err = parseCount(key, val)
	case "minProperties":
		t.minProperties, err = parseCount(key, val)
	case "maxProperties":
		t.maxProperties, err = parseCount(key, val)
	case "pattern":
		t.pattern = val
	case "format":
		t.format = val
	case "type":
		t.typ = val
	case "description":
		t.description = val
	case "enum":
		t.enum = strings.Split(val, ";")
	case "default":
		t.def = &val
	case "nullable":
		t.nullable = true
	case "listType":
		if val != "atomic" && val != "set" && val != "map" {
			return fmt.Errorf("listType=%s: want atomic, set or map", val)
		}
		t.listType = val
	case "listMapKey":
		t.listMapKeys = append(t.listMapKeys, strings.Split(val, ";")...)
	case "mapType":
		if val != "atomic" && val != "granular" {
			return fmt.Errorf("mapType=%s: want atomic or granular", val)
		}
		t.mapType = val
	case "preserveUnknownFields":
		t.preserve = true
	case "schemaless":
		t.schemaless = true
	case "embeddedResource":
		t.embedded = true
	case "intOrString":
		t.intOrString = true
	case "rule":
		t.rules = append(t.rules, ValidationRule{Rule: val})
	case "message":
		if len(t.rules) == 0 {
			return errors.New("message must follow the rule it belongs to")
		}
		t.rules[len(t.rules)-1].Message = val
	case "printColumn":
		t.printColumn = val
	case "printColumnPriority":
		var p int64
		p, err = strconv.ParseInt(val, 10, 32)
		t.printColumnPriority = int32(p)
		if err != nil {
			err = fmt.Errorf("printColumnPriority=%s: want an integer", val)
		}
	case "printColumnFormat":
		t.printColumnFormat = val
	case "printColumnDescription":
		t.printColumnDetail = val
	case "selectableField":
		t.selectable = true
	}
	return err
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
