// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"encoding/binary"
	"math"
	"regexp"
	"strconv"
	"strings"
)

// This file lays out gnostic's openapi_v3.Document (gnostic-models,
// openapiv3/OpenAPIv3.proto), the protobuf form of the /openapi/v3
// group-version documents, and encodes a document with it.

// V3 encodes the JSON document data (an OpenAPI 3.0 document) as
// gnostic's openapi_v3.Document, as [V2] does for v2: the bytes
// kube-apiserver answers for the same JSON, and problems naming what was
// not encoded. Cost: O(len(data)); the result is the caller's.
func V3(data []byte) (body []byte, problems []string, err error) {
	root, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	e := &encoder{}
	body = e.encodeMessage(v3Document(), "", root)
	return body, e.problems, nil
}

var responseCodeV3 = regexp.MustCompile(`^([0-9X]{3})$`)

// v3Document returns the layout of openapi_v3.Document and, through it,
// of every message it holds.
func v3Document() *message {
	externalDocs := &message{ext: 3, fields: []field{{"description", 1, str}, {"url", 2, str}}}
	namedStrings := named(func(_ *encoder, b []byte, num int, _ string, v *node) []byte { return appendString(b, num, v.text) })
	schema := &message{ext: 36}
	schemaOrRef := orReference(schema)
	xml := &message{ext: 6, fields: []field{{"name", 1, str}, {"namespace", 2, str}, {"prefix", 3, str}, {"attribute", 4, boolean}, {"wrapped", 5, boolean}}}
	schema.fields = []field{
		{"nullable", 1, boolean}, {"discriminator", 2, msg(&message{ext: 3, fields: []field{{"propertyName", 1, str}, {"mapping", 2, namedStrings}}})},
		{"readOnly", 3, boolean}, {"writeOnly", 4, boolean}, {"xml", 5, msg(xml)}, {"externalDocs", 6, msg(externalDocs)},
		{"example", 7, anyValue}, {"deprecated", 8, boolean}, {"title", 9, str}, {"multipleOf", 10, double}, {"maximum", 11, double},
		{"exclusiveMaximum", 12, boolean}, {"minimum", 13, double}, {"exclusiveMinimum", 14, boolean}, {"maxLength", 15, integer},
		{"minLength", 16, integer}, {"pattern", 17, str}, {"maxItems", 18, integer}, {"minItems", 19, integer},
		{"uniqueItems", 20, boolean}, {"maxProperties", 21, integer}, {"minProperties", 22, integer}, {"required", 23, strs},
		{"enum", 24, anyValues}, {"type", 25, str}, {"allOf", 26, list(schemaOrRef)}, {"oneOf", 27, list(schemaOrRef)},
		{"anyOf", 28, list(schemaOrRef)}, {"not", 29, msg(schema)}, {"items", 30, itemsV3(schemaOrRef)},
		{"properties", 31, named(schemaOrRef)}, {"additionalProperties", 32, additionalPropertiesV3(schemaOrRef)},
		{"default", 33, defaultType}, {"description", 34, str}, {"format", 35, str},
	}
	example := orReference(&message{ext: 5, fields: []field{{"summary", 1, str}, {"description", 2, str}, {"value", 3, anyValue}, {"externalValue", 4, str}}})
	header := &message{ext: 12}
	headers := named(orReference(header))
	mediaType := &message{ext: 5, fields: []field{{"schema", 1, schemaOrRef}, {"example", 2, anyValue}, {"examples", 3, named(example)},
		{"encoding", 4, named(msg(&message{ext: 6, fields: []field{{"contentType", 1, str}, {"headers", 2, headers}, {"style", 3, str},
			{"explode", 4, boolean}, {"allowReserved", 5, boolean}}}))}}}
	content := named(msg(mediaType))
	header.fields = []field{{"description", 1, str}, {"required", 2, boolean}, {"deprecated", 3, boolean}, {"allowEmptyValue", 4, boolean},
		{"style", 5, str}, {"explode", 6, boolean}, {"allowReserved", 7, boolean}, {"schema", 8, schemaOrRef}, {"example", 9, anyValue},
		{"examples", 10, named(example)}, {"content", 11, content}}
	parameter := orReference(&message{ext: 14, fields: []field{{"name", 1, str}, {"in", 2, str}, {"description", 3, str},
		{"required", 4, boolean}, {"deprecated", 5, boolean}, {"allowEmptyValue", 6, boolean}, {"style", 7, str}, {"explode", 8, boolean},
		{"allowReserved", 9, boolean}, {"schema", 10, schemaOrRef}, {"example", 11, anyValue}, {"examples", 12, named(example)},
		{"content", 13, content}}})
	requestBody := orReference(&message{ext: 4, fields: []field{{"description", 1, str}, {"content", 2, content}, {"required", 3, boolean}}})
	server := &message{ext: 4, fields: []field{{"url", 1, str}, {"description", 2, str}, {"variables", 3, named(msg(&message{ext: 4,
		fields: []field{{"enum", 1, strs}, {"default", 2, str}, {"description", 3, str}}}))}}}
	link := orReference(&message{ext: 7, fields: []field{{"operationRef", 1, str}, {"operationId", 2, str},
		{"parameters", 3, anyOrExpression}, {"requestBody", 4, anyOrExpression}, {"description", 5, str}, {"server", 6, msg(server)}}})
	response := orReference(&message{ext: 5, fields: []field{{"description", 1, str}, {"headers", 2, headers}, {"content", 3, content},
		{"links", 4, named(link)}}})
	operation := &message{ext: 13}
	pathItem := &message{ext: 14}
	// A CallbackOrReference: a Reference (2), or a Callback (1) whose
	// keys are path items (1, x- keys too, as gnostic has them), and
	// whose x- keys are also its extensions (2).
	callback := func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind == objectNode && v.get("$ref") != nil {
			return appendLen(b, num, msg(reference)(e, nil, 2, path, v))
		}
		if v.kind != objectNode {
			e.problem(path, "want an object")
			return b
		}
		return appendLen(b, num, appendLen(nil, 1, appendExtensions(namedEntries(e, 1, path, v, msg(pathItem)), 2, v)))
	}
	operation.fields = []field{{"tags", 1, strs}, {"summary", 2, str}, {"description", 3, str}, {"externalDocs", 4, msg(externalDocs)},
		{"operationId", 5, str}, {"parameters", 6, list(parameter)}, {"requestBody", 7, requestBody}, {"responses", 8, responsesV3(response)},
		{"callbacks", 9, named(callback)}, {"deprecated", 10, boolean}, {"security", 11, securityRequirements}, {"servers", 12, msgs(server)}}
	pathItem.fields = []field{{"$ref", 1, str}, {"summary", 2, str}, {"description", 3, str}, {"get", 4, msg(operation)},
		{"put", 5, msg(operation)}, {"post", 6, msg(operation)}, {"delete", 7, msg(operation)}, {"options", 8, msg(operation)},
		{"head", 9, msg(operation)}, {"patch", 10, msg(operation)}, {"trace", 11, msg(operation)}, {"servers", 12, msgs(server)},
		{"parameters", 13, list(parameter)}}
	flow := msg(&message{ext: 5, fields: []field{{"authorizationUrl", 1, str}, {"tokenUrl", 2, str}, {"refreshUrl", 3, str}, {"scopes", 4, namedStrings}}})
	securityScheme := orReference(&message{ext: 9, fields: []field{{"type", 1, str}, {"description", 2, str}, {"name", 3, str},
		{"in", 4, str}, {"scheme", 5, str}, {"bearerFormat", 6, str}, {"flows", 7, msg(&message{ext: 5, fields: []field{{"implicit", 1, flow},
			{"password", 2, flow}, {"clientCredentials", 3, flow}, {"authorizationCode", 4, flow}}})}, {"openIdConnectUrl", 8, str}}})
	components := &message{ext: 10, fields: []field{{"schemas", 1, named(schemaOrRef)}, {"responses", 2, named(response)},
		{"parameters", 3, named(parameter)}, {"examples", 4, named(example)}, {"requestBodies", 5, named(requestBody)},
		{"headers", 6, headers}, {"securitySchemes", 7, named(securityScheme)}, {"links", 8, named(link)}, {"callbacks", 9, named(callback)}}}
	contact := &message{ext: 4, fields: []field{{"name", 1, str}, {"url", 2, str}, {"email", 3, str}}}
	license := &message{ext: 3, fields: []field{{"name", 1, str}, {"url", 2, str}}}
	info := &message{ext: 7, fields: []field{{"title", 1, str}, {"description", 2, str}, {"termsOfService", 3, str},
		{"contact", 4, msg(contact)}, {"license", 5, msg(license)}, {"version", 6, str}, {"summary", 8, str}}}
	tag := &message{ext: 4, fields: []field{{"name", 1, str}, {"description", 2, str}, {"externalDocs", 3, msg(externalDocs)}}}
	return &message{ext: 9, fields: []field{{"openapi", 1, str}, {"info", 2, msg(info)}, {"servers", 3, msgs(server)},
		{"paths", 4, patterned(2, 1, pathKey, msg(pathItem))}, {"components", 5, msg(components)},
		{"security", 6, securityRequirements}, {"tags", 7, msgs(tag)}, {"externalDocs", 8, msg(externalDocs)}}}
}

// reference is a Reference: $ref (1), summary (2), description (3).
var reference = &message{fields: []field{{"$ref", 1, str}, {"summary", 2, str}, {"description", 3, str}}}

// orReference is an XOrReference: a Reference (2) for an object with a
// $ref, else message m (1).
func orReference(m *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind == objectNode && v.get("$ref") != nil {
			return appendLen(b, num, msg(reference)(e, nil, 2, path, v))
		}
		return appendLen(b, num, msg(m)(e, nil, 1, path, v))
	}
}

// list writes each item of the array v with put.
func list(put putFunc) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		return each(e, b, path, v, func(b []byte, item *node) []byte { return put(e, b, num, path, item) })
	}
}

// itemsV3 is an ItemsItem holding one SchemaOrReference (1).
func itemsV3(schemaOrRef putFunc) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind != objectNode {
			e.problem(path, "want an object") // gnostic refuses a list of schemas
			return appendLen(b, num, nil)
		}
		return appendLen(b, num, schemaOrRef(e, nil, 1, path, v))
	}
}

// additionalPropertiesV3 is an AdditionalPropertiesItem: a
// SchemaOrReference (1) or a bool (2, written even when false).
func additionalPropertiesV3(schemaOrRef putFunc) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind == boolNode {
			return appendLen(b, num, append(appendTag(nil, 2, 0), map[bool]byte{true: 1, false: 0}[v.text == "true"]))
		}
		return appendLen(b, num, schemaOrRef(e, nil, 1, path, v))
	}
}

// defaultType is a DefaultType: a number (1), bool (2) or string (3),
// written even when zero (a oneof); an object, array or null default is
// an empty DefaultType, as gnostic leaves it.
func defaultType(e *encoder, b []byte, num int, path string, v *node) []byte {
	var d []byte
	switch v.kind {
	case numberNode:
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil {
			e.problem(path, "want a number")
		}
		d = binary.LittleEndian.AppendUint64(appendTag(nil, 1, 1), math.Float64bits(f))
	case boolNode:
		d = append(appendTag(nil, 2, 0), map[bool]byte{true: 1, false: 0}[v.text == "true"])
	case stringNode:
		d = appendLen(nil, 3, []byte(v.text))
	}
	return appendLen(b, num, d)
}

// responsesV3 is Responses: default (1), the response codes (2) and the
// extensions (3).
func responsesV3(response putFunc) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind != objectNode {
			e.problem(path, "want an object")
			return b
		}
		var def, codes, ext []byte
		for i, k := range v.keys {
			switch {
			case k == "default":
				def = response(e, nil, 1, child(path, k), v.elems[i])
			case responseCodeV3.MatchString(k):
				codes = appendLen(codes, 2, response(e, appendString(nil, 1, k), 2, child(path, k), v.elems[i]))
			case strings.HasPrefix(k, "x-"):
				ext = appendLen(ext, 3, namedAny(k, v.elems[i]))
			default:
				e.problem(child(path, k), "key not encoded")
			}
		}
		return appendLen(b, num, append(append(def, codes...), ext...))
	}
}

// anyOrExpression is an AnyOrExpression as gnostic builds it: always an
// Expression (2), the object's entries as NamedAny, empty for a value
// that is not an object.
func anyOrExpression(e *encoder, b []byte, num int, path string, v *node) []byte {
	var entries []byte
	if v.kind == objectNode {
		entries = namedEntries(e, 1, path, v, anyValue)
	}
	return appendLen(b, num, appendLen(nil, 2, entries))
}
