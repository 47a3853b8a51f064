// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// This file is what the body scanner (decode.go) knows of the Go
// types behind built-in kinds' schemas: which kind of value each takes,
// the types that decode themselves (times, quantities, int-or-string),
// and the names encoding/json gives them in its errors.

// KindOf is how the scanner treats a schema: "struct", "map", "list",
// "any" (anything goes: no schema, a RawExtension, an object without
// fields), or "scalar".
func KindOf(s *Schema) string {
	switch {
	case s == nil || isAnyType(s):
		return "any"
	case len(s.Properties) > 0:
		return "struct"
	case s.Additional != nil:
		return "map"
	case s.Type == "array":
		return "list"
	case s.Type == "object" || s.Type == "":
		return "any"
	}
	return "scalar"
}

func isAnyType(s *Schema) bool {
	switch s.Name {
	case "io.k8s.apimachinery.pkg.runtime.RawExtension", "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
		"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON":
		return true
	}
	return false
}

// IsCustomDecoded reports whether the Go type of s decodes itself
// (UnmarshalJSON) rather than by kind.
func IsCustomDecoded(s *Schema) bool {
	if s == nil {
		return false
	}
	switch s.Name {
	case "io.k8s.apimachinery.pkg.apis.meta.v1.Time", "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime",
		"io.k8s.apimachinery.pkg.api.resource.Quantity", "io.k8s.apimachinery.pkg.util.intstr.IntOrString",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Duration":
		return true
	}
	return s.IntOrString
}

const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"

var rxQuantity = regexp.MustCompile(`^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$`)

// scalar checks a string, number, bool (or, for types that decode
// themselves, any value) against s. jsonKind is "string", "number",
// "bool", "object" or "array"; lit is the JSON text.
func (sc *bodyScanner) scalar(s *Schema, goType, jsonKind string, lit []byte) {
	if sc.mapsOnly || (KindOf(s) == "any" && !IsCustomDecoded(s)) {
		return
	}
	// str decodes a string literal, when a check needs its value.
	str := func() string {
		var v string
		if jsonKind == "string" {
			_ = json.Unmarshal(lit, &v)
		}
		return v
	}
	switch {
	case s.Name == "io.k8s.apimachinery.pkg.apis.meta.v1.Time" || s.Name == "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":
		if jsonKind != "string" {
			sc.typeError(jsonKind, s, "string")
			return
		}
		layout := time.RFC3339
		if strings.HasSuffix(s.Name, "MicroTime") {
			layout = "2006-01-02T15:04:05.000000Z07:00"
		}
		if v := str(); v != "" {
			if _, err := time.Parse(layout, v); err != nil {
				sc.plainError(err.Error())
			}
		}
		return
	case s.Name == "io.k8s.apimachinery.pkg.apis.meta.v1.Duration":
		if jsonKind != "string" {
			sc.typeError(jsonKind, s, "string")
			return
		}
		if _, err := time.ParseDuration(str()); err != nil {
			sc.plainError(err.Error())
		}
		return
	case s.Name == "io.k8s.apimachinery.pkg.api.resource.Quantity":
		text := string(lit)
		if jsonKind == "string" {
			text = str()
		}
		if !rxQuantity.MatchString(strings.TrimSpace(text)) {
			sc.plainError(quantityFormatError)
		}
		return
	case s.IntOrString || s.Name == "io.k8s.apimachinery.pkg.util.intstr.IntOrString":
		if jsonKind != "string" {
			sc.intValue(jsonKind, lit, s, "int32")
		}
		return
	}
	switch s.Type {
	case "string":
		if jsonKind != "string" {
			sc.typeError(jsonKind, s, goType)
		} else if s.Format == "byte" {
			if _, err := base64.StdEncoding.DecodeString(str()); err != nil {
				sc.plainError(err.Error())
			}
		}
	case "integer":
		sc.intValue(jsonKind, lit, s, goType)
	case "number":
		if jsonKind != "number" {
			sc.typeError(jsonKind, s, goType)
		}
	case "boolean":
		if jsonKind != "bool" {
			sc.typeError(jsonKind, s, goType)
		}
	default:
		sc.typeError(jsonKind, s, goType)
	}
}

// intValue checks a value decoded into a Go integer of schema s (Go type
// goType, "" for the schema's).
func (sc *bodyScanner) intValue(jsonKind string, lit []byte, s *Schema, goType string) {
	if jsonKind != "number" {
		sc.typeError(jsonKind, s, goType)
		return
	}
	bits := 64
	if goType == "int32" || (goType == "" && s.Format == "int32") {
		bits = 32
	}
	if _, err := strconv.ParseInt(string(lit), 10, bits); err != nil {
		sc.typeError("number "+string(lit), s, goType)
	}
}

// GoStructName is the name of the Go struct a named schema stands for
// ("ConfigMap" for io.k8s.api.core.v1.ConfigMap).
func GoStructName(s *Schema) string {
	return s.Name[strings.LastIndexByte(s.Name, '.')+1:]
}

// GoTypeName is how encoding/json names the Go type of a field of schema
// s: "string", "int32", "[]v1.Container", "map[string]string",
// "v1.PodSpec". Named string types (v1.RestartPolicy) cannot be told from
// their schema and are named "string".
func GoTypeName(s *Schema) string {
	if s == nil {
		return "interface {}"
	}
	if s.Name != "" && (len(s.Properties) > 0 || s.Type == "object") {
		parts := strings.Split(s.Name, ".")
		if len(parts) >= 2 {
			return parts[len(parts)-2] + "." + parts[len(parts)-1]
		}
		return s.Name
	}
	switch s.Type {
	case "string":
		if s.Format == "byte" {
			return "[]uint8"
		}
		return "string"
	case "integer":
		switch s.Format {
		case "int32":
			return "int32"
		case "int64":
			return "int64"
		}
		return "int"
	case "number":
		if s.Format == "float" {
			return "float32"
		}
		return "float64"
	case "boolean":
		return "bool"
	case "array":
		return "[]" + GoTypeName(s.Elem)
	case "object":
		if s.Additional != nil {
			return "map[string]" + GoTypeName(s.Additional)
		}
	}
	return "interface {}"
}

// GoField is what the Go decoder's errors say of a field of a built-in
// struct beyond its schema, as probed on the real server
// (TestGenerateOpenAPI, openapi/go-fields.json.gz).
type GoField struct {
	// Type is the Go type of the field's scalar (of its elements, for a
	// list or map) when its schema cannot tell it: "v1.RestartPolicy".
	Type string `json:"type,omitempty"`
	// Embedded are the Go structs embedded on the way to the field,
	// which error paths name: ["ProbeHandler"] before Probe's httpGet.
	Embedded []string `json:"embedded,omitempty"`
	// full is the Go type of the field's value (lists and maps around
	// Type included), set when the schemas are compiled; "" when its
	// schema tells it.
	full string
}

// goType is the Go type of a value of the field whose schema is p.
func (f GoField) goType(p *Schema) string {
	if f.Type == "" {
		return GoTypeName(p)
	}
	var prefix string
	for q := p; q != nil; {
		if q.Type == "array" {
			prefix, q = prefix+"[]", q.Elem
		} else if q.Additional != nil && len(q.Properties) == 0 {
			prefix, q = prefix+"map[string]", q.Additional
		} else {
			break
		}
	}
	return prefix + f.Type
}
