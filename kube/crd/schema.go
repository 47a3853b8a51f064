// SPDX-License-Identifier: Apache-2.0

package crd

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Schema is an OpenAPI v3 schema as a CRD holds it (apiextensions'
// JSONSchemaProps), with the fields a structural schema may use. Fields
// the server forbids in CRDs ($ref, definitions, patternProperties,
// uniqueItems, ...) are left out.
type Schema struct {
	// Type is object, array, string, integer, number or boolean; empty
	// only with XPreserveUnknownFields or XIntOrString.
	Type        string `json:"type,omitempty"`
	Format      string `json:"format,omitempty"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Default is the JSON value the server fills in when the field is
	// missing (or null and not nullable).
	Default  json.RawMessage `json:"default,omitempty"`
	Nullable bool            `json:"nullable,omitempty"`

	Maximum          *float64          `json:"maximum,omitempty"`
	ExclusiveMaximum bool              `json:"exclusiveMaximum,omitempty"`
	Minimum          *float64          `json:"minimum,omitempty"`
	ExclusiveMinimum bool              `json:"exclusiveMinimum,omitempty"`
	MultipleOf       *float64          `json:"multipleOf,omitempty"`
	MaxLength        *int64            `json:"maxLength,omitempty"`
	MinLength        *int64            `json:"minLength,omitempty"`
	Pattern          string            `json:"pattern,omitempty"`
	MaxItems         *int64            `json:"maxItems,omitempty"`
	MinItems         *int64            `json:"minItems,omitempty"`
	MaxProperties    *int64            `json:"maxProperties,omitempty"`
	MinProperties    *int64            `json:"minProperties,omitempty"`
	Enum             []json.RawMessage `json:"enum,omitempty"`

	// Properties are the fields of an object; Required names those that
	// must be present.
	Properties map[string]Schema `json:"properties,omitempty"`
	Required   []string          `json:"required,omitempty"`
	// AdditionalProperties describes the values of a map (an object with
	// free keys); it excludes Properties.
	AdditionalProperties *SchemaOrBool `json:"additionalProperties,omitempty"`
	// Items describes the elements of an array.
	Items *Schema `json:"items,omitempty"`

	AllOf []Schema `json:"allOf,omitempty"`
	AnyOf []Schema `json:"anyOf,omitempty"`
	OneOf []Schema `json:"oneOf,omitempty"`
	Not   *Schema  `json:"not,omitempty"`

	// XPreserveUnknownFields keeps fields the schema does not declare
	// (they are pruned otherwise).
	XPreserveUnknownFields bool `json:"x-kubernetes-preserve-unknown-fields,omitempty"`
	// XEmbeddedResource marks an object that is itself a Kubernetes object
	// (apiVersion, kind, metadata), validated as one.
	XEmbeddedResource bool `json:"x-kubernetes-embedded-resource,omitempty"`
	// XIntOrString accepts an integer or a string (with AnyOf of the two).
	XIntOrString bool `json:"x-kubernetes-int-or-string,omitempty"`
	// XListType is atomic, set or map; XListMapKeys are the keys of a map
	// list. They decide how server-side apply merges the list.
	XListType    string   `json:"x-kubernetes-list-type,omitempty"`
	XListMapKeys []string `json:"x-kubernetes-list-map-keys,omitempty"`
	// XMapType is atomic or granular, for objects and maps.
	XMapType string `json:"x-kubernetes-map-type,omitempty"`
	// XValidations are CEL rules.
	XValidations []ValidationRule `json:"x-kubernetes-validations,omitempty"`
}

// ValidationRule is a CEL rule of x-kubernetes-validations.
type ValidationRule struct {
	Rule              string `json:"rule"`
	Message           string `json:"message,omitempty"`
	MessageExpression string `json:"messageExpression,omitempty"`
	Reason            string `json:"reason,omitempty"`
	FieldPath         string `json:"fieldPath,omitempty"`
	OptionalOldSelf   *bool  `json:"optionalOldSelf,omitempty"`
}

// SchemaOrBool is additionalProperties: a schema for the values, or a
// bare true (any value) or false (no other keys).
type SchemaOrBool struct {
	Schema *Schema
	// Allows is what a bare boolean says; it is ignored when Schema is set.
	Allows bool
}

// MarshalJSON implements [json.Marshaler]: the schema, or the boolean.
func (s SchemaOrBool) MarshalJSON() ([]byte, error) {
	if s.Schema != nil {
		return json.Marshal(s.Schema)
	}
	return json.Marshal(s.Allows)
}

// UnmarshalJSON implements [json.Unmarshaler].
func (s *SchemaOrBool) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch string(b) {
	case "true", "false":
		*s = SchemaOrBool{Allows: b[0] == 't'}
		return nil
	}
	var sc Schema
	if err := json.Unmarshal(b, &sc); err != nil {
		return fmt.Errorf("decode additionalProperties: %w", err)
	}
	*s = SchemaOrBool{Schema: &sc, Allows: true}
	return nil
}
