// SPDX-License-Identifier: Apache-2.0

package openapipb

import (
	"fmt"
	"regexp"
)

// This file lays out gnostic's openapi_v2.Document (gnostic-models,
// openapiv2/OpenAPIv2.proto), the protobuf form of /openapi/v2, and
// encodes a document with it.

// V2 encodes the JSON document data (an OpenAPI v2 document) as gnostic's
// openapi_v2.Document, the bytes kube-apiserver answers for the same
// JSON. problems lists, by JSON path, what was not encoded: keys the
// layout does not know and values of the wrong type (gnostic refuses
// such a document); the rest is encoded. Cost: O(len(data)); the result
// is the caller's.
func V2(data []byte) (body []byte, problems []string, err error) {
	root, err := parse(data)
	if err != nil {
		return nil, nil, err
	}
	e := &encoder{}
	body = e.encodeMessage(v2Document(), "", root)
	return body, e.problems, nil
}

var (
	pathKey     = regexp.MustCompile(`^/`)
	responseKey = regexp.MustCompile(`^([0-9]{3})$|^(default)$`)
)

// v2Document returns the layout of openapi_v2.Document and, through it,
// of every message it holds.
func v2Document() *message {
	schema := &message{ext: 31}
	xml := &message{ext: 6, fields: []field{{"name", 1, str}, {"namespace", 2, str}, {"prefix", 3, str}, {"attribute", 4, boolean}, {"wrapped", 5, boolean}}}
	externalDocs := &message{ext: 3, fields: []field{{"description", 1, str}, {"url", 2, str}}}
	schema.fields = []field{
		{"$ref", 1, str}, {"format", 2, str}, {"title", 3, str}, {"description", 4, str}, {"default", 5, anyValue},
		{"multipleOf", 6, double}, {"maximum", 7, double}, {"exclusiveMaximum", 8, boolean}, {"minimum", 9, double},
		{"exclusiveMinimum", 10, boolean}, {"maxLength", 11, integer}, {"minLength", 12, integer}, {"pattern", 13, str},
		{"maxItems", 14, integer}, {"minItems", 15, integer}, {"uniqueItems", 16, boolean}, {"maxProperties", 17, integer},
		{"minProperties", 18, integer}, {"required", 19, strs}, {"enum", 20, anyValues},
		{"additionalProperties", 21, additionalProperties(schema)}, {"type", 22, typeItem}, {"items", 23, itemsItem(schema)},
		{"allOf", 24, msgs(schema)}, {"properties", 25, named(msg(schema))}, {"discriminator", 26, str},
		{"readOnly", 27, boolean}, {"xml", 28, msg(xml)}, {"externalDocs", 29, msg(externalDocs)}, {"example", 30, anyValue},
	}
	fileSchema := &message{ext: 10, fields: []field{
		{"format", 1, str}, {"title", 2, str}, {"description", 3, str}, {"default", 4, anyValue}, {"required", 5, strs},
		{"type", 6, str}, {"readOnly", 7, boolean}, {"externalDocs", 8, msg(externalDocs)}, {"example", 9, anyValue},
	}}
	primitives := &message{ext: 18}
	primitives.fields = append([]field{{"type", 1, str}, {"format", 2, str}, {"items", 3, msg(primitives)}, {"collectionFormat", 4, str}},
		validations(5)...)
	header := &message{ext: 19, fields: append(append([]field{{"type", 1, str}, {"format", 2, str}, {"items", 3, msg(primitives)},
		{"collectionFormat", 4, str}}, validations(5)...), field{"description", 18, str})}
	parameters := parameterItems(schema, primitives)
	response := &message{ext: 5, fields: []field{
		{"description", 1, str}, {"schema", 2, schemaItem(schema, fileSchema)}, {"headers", 3, named(msg(header))},
		{"examples", 4, named(anyValue)},
	}}
	operation := &message{ext: 13, fields: []field{
		{"tags", 1, strs}, {"summary", 2, str}, {"description", 3, str}, {"externalDocs", 4, msg(externalDocs)},
		{"operationId", 5, str}, {"produces", 6, strs}, {"consumes", 7, strs}, {"parameters", 8, parameters},
		{"responses", 9, patterned(2, 1, responseKey, responseValue(response))}, {"schemes", 10, strs},
		{"deprecated", 11, boolean}, {"security", 12, securityRequirements},
	}}
	pathItem := &message{ext: 10, fields: []field{
		{"$ref", 1, str}, {"get", 2, msg(operation)}, {"put", 3, msg(operation)}, {"post", 4, msg(operation)},
		{"delete", 5, msg(operation)}, {"options", 6, msg(operation)}, {"head", 7, msg(operation)},
		{"patch", 8, msg(operation)}, {"parameters", 9, parameters},
	}}
	contact := &message{ext: 4, fields: []field{{"name", 1, str}, {"url", 2, str}, {"email", 3, str}}}
	license := &message{ext: 3, fields: []field{{"name", 1, str}, {"url", 2, str}}}
	info := &message{ext: 7, fields: []field{
		{"title", 1, str}, {"version", 2, str}, {"description", 3, str}, {"termsOfService", 4, str},
		{"contact", 5, msg(contact)}, {"license", 6, msg(license)},
	}}
	tag := &message{ext: 4, fields: []field{{"name", 1, str}, {"description", 2, str}, {"externalDocs", 3, msg(externalDocs)}}}
	return &message{ext: 16, fields: []field{
		{"swagger", 1, str}, {"info", 2, msg(info)}, {"host", 3, str}, {"basePath", 4, str}, {"schemes", 5, strs},
		{"consumes", 6, strs}, {"produces", 7, strs}, {"paths", 8, patterned(1, 2, pathKey, msg(pathItem))},
		{"definitions", 9, named(msg(schema))}, {"parameters", 10, named(parameter(schema, primitives))},
		{"responses", 11, named(msg(response))}, {"security", 12, securityRequirements},
		{"securityDefinitions", 13, named(securityDefinition)}, {"tags", 14, msgs(tag)},
		{"externalDocs", 15, msg(externalDocs)},
	}}
}

// validations are the fields a non-body parameter, a header and
// PrimitivesItems share, numbered from first.
func validations(first int) []field {
	fs := []field{
		{"default", 0, anyValue}, {"maximum", 1, double}, {"exclusiveMaximum", 2, boolean}, {"minimum", 3, double},
		{"exclusiveMinimum", 4, boolean}, {"maxLength", 5, integer}, {"minLength", 6, integer}, {"pattern", 7, str},
		{"maxItems", 8, integer}, {"minItems", 9, integer}, {"uniqueItems", 10, boolean}, {"enum", 11, anyValues},
		{"multipleOf", 12, double},
	}
	for i := range fs {
		fs[i].num += first
	}
	return fs
}

// additionalProperties is an AdditionalPropertiesItem: a schema (1) or a
// bool (2, written even when false: a oneof).
func additionalProperties(schema *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind == boolNode {
			item := appendTag(nil, 2, 0)
			item = append(item, map[bool]byte{true: 1, false: 0}[v.text == "true"])
			return appendLen(b, num, item)
		}
		return appendLen(b, num, appendLen(nil, 1, e.encodeMessage(schema, path, v)))
	}
}

// typeItem is a TypeItem: the type, or the list of types (1).
func typeItem(e *encoder, b []byte, num int, path string, v *node) []byte {
	if v.kind == arrayNode {
		return appendLen(b, num, strs(e, nil, 1, path, v))
	}
	return appendLen(b, num, str(e, nil, 1, path, v))
}

// itemsItem is an ItemsItem holding one schema (1).
func itemsItem(schema *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind != objectNode {
			e.problem(path, "want an object") // gnostic refuses a list of schemas
			return appendLen(b, num, nil)
		}
		return appendLen(b, num, msg(schema)(e, nil, 1, path, v))
	}
}

// schemaItem is a response's SchemaItem: a FileSchema (2) for type
// "file", else a Schema (1).
func schemaItem(schema, fileSchema *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind == objectNode && v.get("type").str() == "file" {
			return appendLen(b, num, msg(fileSchema)(e, nil, 2, path, v))
		}
		return appendLen(b, num, msg(schema)(e, nil, 1, path, v))
	}
}

// jsonReference is a JsonReference: $ref (1) and description (2).
var jsonReference = &message{fields: []field{{"$ref", 1, str}, {"description", 2, str}}}

// responseValue is a ResponseValue: a JsonReference (2) for a $ref, else
// a Response (1).
func responseValue(response *message) putFunc {
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind == objectNode && v.get("$ref") != nil {
			return appendLen(b, num, msg(jsonReference)(e, nil, 2, path, v))
		}
		return appendLen(b, num, msg(response)(e, nil, 1, path, v))
	}
}

// parameterItems is a list of ParametersItem: a JsonReference (2) for a
// $ref, else a Parameter (1).
func parameterItems(schema, primitives *message) putFunc {
	param := parameter(schema, primitives)
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		return each(e, b, path, v, func(b []byte, item *node) []byte {
			if item.kind == objectNode && item.get("$ref") != nil {
				return appendLen(b, num, msg(jsonReference)(e, nil, 2, path, item))
			}
			return appendLen(b, num, param(e, nil, 1, path, item))
		})
	}
}

// parameter is a Parameter: a BodyParameter (1), or by "in" a
// NonBodyParameter (2) holding the header (1), formData (2), query (3)
// or path (4) sub-schema.
func parameter(schema, primitives *message) putFunc {
	body := &message{ext: 6, fields: []field{{"description", 1, str}, {"name", 2, str}, {"in", 3, str}, {"required", 4, boolean}, {"schema", 5, msg(schema)}}}
	common := []field{{"required", 1, boolean}, {"in", 2, str}, {"description", 3, str}, {"name", 4, str}}
	headerOrPath := &message{ext: 22, fields: append(append(common[:4:4], field{"type", 5, str}, field{"format", 6, str},
		field{"items", 7, msg(primitives)}, field{"collectionFormat", 8, str}), validations(9)...)}
	queryOrForm := &message{ext: 23, fields: append(append(common[:4:4], field{"allowEmptyValue", 5, boolean}, field{"type", 6, str},
		field{"format", 7, str}, field{"items", 8, msg(primitives)}, field{"collectionFormat", 9, str}), validations(10)...)}
	return func(e *encoder, b []byte, num int, path string, v *node) []byte {
		if v.kind != objectNode {
			e.problem(path, "want an object")
			return b
		}
		var p []byte
		switch in := v.get("in").str(); in {
		case "body":
			p = msg(body)(e, nil, 1, path, v)
		case "header":
			p = appendLen(nil, 2, msg(headerOrPath)(e, nil, 1, path, v))
		case "formData":
			p = appendLen(nil, 2, msg(queryOrForm)(e, nil, 2, path, v))
		case "query":
			p = appendLen(nil, 2, msg(queryOrForm)(e, nil, 3, path, v))
		case "path":
			p = appendLen(nil, 2, msg(headerOrPath)(e, nil, 4, path, v))
		default:
			e.problem(path+"/in", fmt.Sprintf("unknown parameter location %q", in))
		}
		return appendLen(b, num, p)
	}
}

// securityRequirements is a list of SecurityRequirement: per scheme, a
// NamedStringArray of its scopes.
func securityRequirements(e *encoder, b []byte, num int, path string, v *node) []byte {
	return each(e, b, path, v, func(b []byte, item *node) []byte {
		return appendLen(b, num, namedEntries(e, 1, path, item, func(e *encoder, b []byte, num int, path string, v *node) []byte {
			return appendLen(b, num, strs(e, nil, 1, path, v))
		}))
	})
}

// securityDefinition is a SecurityDefinitionsItem, chosen by type (and
// for oauth2 by flow).
func securityDefinition(e *encoder, b []byte, num int, path string, v *node) []byte {
	scopes := named(func(_ *encoder, b []byte, num int, _ string, v *node) []byte { return appendString(b, num, v.text) })
	oauth2 := func(extra ...field) *message {
		fs := append([]field{{"type", 1, str}, {"flow", 2, str}, {"scopes", 3, scopes}}, extra...)
		return &message{ext: len(fs) + 2, fields: append(fs, field{"description", len(fs) + 1, str})}
	}
	var choice int
	var m *message
	switch typ, flow := v.get("type").str(), v.get("flow").str(); {
	case typ == "basic":
		choice, m = 1, &message{ext: 3, fields: []field{{"type", 1, str}, {"description", 2, str}}}
	case typ == "apiKey":
		choice, m = 2, &message{ext: 5, fields: []field{{"type", 1, str}, {"name", 2, str}, {"in", 3, str}, {"description", 4, str}}}
	case typ == "oauth2" && flow == "implicit":
		choice, m = 3, oauth2(field{"authorizationUrl", 4, str})
	case typ == "oauth2" && flow == "password":
		choice, m = 4, oauth2(field{"tokenUrl", 4, str})
	case typ == "oauth2" && flow == "application":
		choice, m = 5, oauth2(field{"tokenUrl", 4, str})
	case typ == "oauth2" && flow == "accessCode":
		choice, m = 6, oauth2(field{"authorizationUrl", 4, str}, field{"tokenUrl", 5, str})
	default:
		e.problem(path, fmt.Sprintf("unknown security scheme %q", typ))
		return b
	}
	return appendLen(b, num, msg(m)(e, nil, choice, path, v))
}
