// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file refuses CRD schemas the real server refuses (the common
// cases of k8s.io/apiextensions-apiserver's CRD validation): schemas that
// are not structural (a field or item without a type, additionalProperties
// at the root, metadata with more than name and generateName, a root that
// is not an object), properties together with additionalProperties,
// uniqueItems, $ref, and list types that contradict their items. The
// structural errors come first, sorted by message as the real server
// sorts them, then the others in schema order (properties by name).

// ValidateCRDSchemas checks the openAPIV3Schema of every version of the
// CRD object o. When every version has the same schema the real server
// checks it once, as its internal form holds it, under
// spec.validation.openAPIV3Schema; otherwise each version's under
// spec.versions[i].schema.openAPIV3Schema.
func ValidateCRDSchemas(o obj) []fielderr.Error {
	spec, _ := o["spec"].(obj)
	versions := AnyList(spec["versions"])
	same := len(versions) > 0
	for _, v := range versions {
		m, _ := v.(obj)
		first, _ := versions[0].(obj)
		same = same && reflect.DeepEqual(m["schema"], first["schema"]) && reflect.DeepEqual(m["subresources"], first["subresources"])
	}
	var errs []fielderr.Error
	for i, v := range versions {
		m, _ := v.(obj)
		sc, _ := m["schema"].(obj)
		raw, ok := sc["openAPIV3Schema"].(obj)
		if !ok {
			continue
		}
		path := "spec.versions[" + strconv.Itoa(i) + "].schema.openAPIV3Schema"
		if same {
			if i > 0 {
				break
			}
			path = "spec.validation.openAPIV3Schema"
		}
		sub, _ := m["subresources"].(obj)
		_, status := sub["status"]
		if status {
			if t, _ := raw["type"].(string); t != "object" {
				errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".type", Value: t,
					Detail: `only "object" is allowed as the type at the root of the schema if the status subresource is enabled`})
			}
		}
		if nullable, _ := raw["nullable"].(bool); nullable {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: path + ".nullable", Detail: "nullable cannot be true at the root"})
		}
		var structural []fielderr.Error
		if !hasRef(raw) { // the real server cannot even read a schema with $ref as structural
			structuralInvariants(raw, path, "root", &structural)
		}
		slices.SortStableFunc(structural, func(a, b fielderr.Error) int {
			return strings.Compare(a.Field+": "+a.Body(), b.Field+": "+b.Body())
		})
		errs = append(errs, structural...)
		schemaRules(raw, path, true, &errs)
	}
	return errs
}

func TypeOf(raw obj) string {
	t, _ := raw["type"].(string)
	return t
}

func Flag(raw obj, k string) bool {
	b, _ := raw[k].(bool)
	return b
}

// structuralInvariants reports why raw (at level "root", "item" or
// "field") is not structural.
func structuralInvariants(raw obj, path, level string, errs *[]fielderr.Error) {
	if raw == nil {
		return
	}
	add := func(typ, field string, value any, detail string) {
		*errs = append(*errs, fielderr.Error{Type: typ, Field: field, Value: value, Detail: detail})
	}
	items, hasItems := raw["items"].(obj)
	if TypeOf(raw) == "array" && !hasItems {
		add("FieldValueRequired", path+".items", nil, "must be specified")
	}
	structuralInvariants(items, path+".items", "item", errs)
	props, _ := raw["properties"].(obj)
	for _, k := range unstructured.SortedKeys(props) {
		p, _ := props[k].(obj)
		structuralInvariants(p, path+".properties["+k+"]", "field", errs)
	}
	if ap, ok := raw["additionalProperties"]; ok && ap != nil {
		if level == "root" {
			add("FieldValueForbidden", path+".additionalProperties", nil, "must not be used at the root")
		}
		if m, ok := ap.(obj); ok {
			structuralInvariants(m, path+".additionalProperties", "field", errs)
		}
	}
	embedded := Flag(raw, "x-kubernetes-embedded-resource")
	t := TypeOf(raw)
	switch {
	case embedded && t != "object":
		if t == "" {
			add("FieldValueRequired", path+".type", nil, "must be object if x-kubernetes-embedded-resource is true")
		} else {
			add("FieldValueInvalid", path+".type", t, "must be object if x-kubernetes-embedded-resource is true")
		}
	case t == "" && !Flag(raw, "x-kubernetes-int-or-string") && !Flag(raw, "x-kubernetes-preserve-unknown-fields"):
		add("FieldValueRequired", path+".type", nil, map[string]string{
			"root": "must not be empty at the root", "item": "must not be empty for specified array items",
			"field": "must not be empty for specified object fields"}[level])
	}
	if level == "root" && t != "" && t != "object" {
		add("FieldValueInvalid", path+".type", t, "must be object at the root")
	}
	checkMeta := level == "root" || embedded
	for _, k := range []string{"kind", "apiVersion"} {
		if p, ok := props[k].(obj); ok && checkMeta && TypeOf(p) != "string" {
			add("FieldValueInvalid", path+".properties["+k+"].type", TypeOf(p), "must be string")
		}
	}
	if meta, ok := props["metadata"].(obj); ok {
		if checkMeta && TypeOf(meta) != "object" {
			add("FieldValueInvalid", path+".properties[metadata].type", TypeOf(meta), "must be object")
		}
		if level == "root" && !onlyNameRules(meta) {
			add("FieldValueForbidden", path+".properties[metadata]", nil,
				"must not specify anything other than name and generateName, but metadata is implicitly specified")
		}
	}
	if embedded && !Flag(raw, "x-kubernetes-preserve-unknown-fields") && len(props) == 0 {
		add("FieldValueRequired", path+".properties", nil, "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields")
	}
}

// hasRef reports whether a schema uses $ref anywhere.
func hasRef(v any) bool {
	switch t := v.(type) {
	case obj:
		if _, ok := t["$ref"]; ok {
			return true
		}
		for _, x := range t {
			if hasRef(x) {
				return true
			}
		}
	case []any:
		for _, x := range t {
			if hasRef(x) {
				return true
			}
		}
	}
	return false
}

// onlyNameRules reports whether a root metadata schema says nothing but
// its type and the rules of name and generateName.
func onlyNameRules(meta obj) bool {
	for k := range meta {
		if k != "type" && k != "properties" {
			return false
		}
	}
	props, _ := meta["properties"].(obj)
	for k := range props {
		if k != "name" && k != "generateName" {
			return false
		}
	}
	return true
}

// schemaRules reports the other rules of CRD schemas.
func schemaRules(raw obj, path string, root bool, errs *[]fielderr.Error) {
	if raw == nil {
		return
	}
	add := func(typ, field string, value any, detail string) {
		*errs = append(*errs, fielderr.Error{Type: typ, Field: field, Value: value, Detail: detail})
	}
	if _, ok := raw["$ref"]; ok {
		add("FieldValueForbidden", path+".$ref", nil, "$ref is not supported")
	}
	if p, ok := raw["pattern"].(string); ok {
		if _, err := regexp.Compile(p); err != nil {
			add("FieldValueInvalid", path+".pattern", p, fmt.Sprintf("must be a valid regular expression, but isn't: %v", err))
		}
	}
	if Flag(raw, "uniqueItems") {
		add("FieldValueForbidden", path+".uniqueItems", nil, "uniqueItems cannot be set to true since the runtime complexity becomes quadratic")
	}
	props, _ := raw["properties"].(obj)
	if ap, ok := raw["additionalProperties"]; ok && ap != nil {
		if allows, isBool := ap.(bool); len(props) > 0 && !(isBool && allows) {
			add("FieldValueForbidden", path+".additionalProperties", nil, "additionalProperties and properties are mutual exclusive")
		}
		if m, ok := ap.(obj); ok {
			schemaRules(m, path+".additionalProperties", false, errs)
		}
	}
	for _, k := range unstructured.SortedKeys(props) {
		p, _ := props[k].(obj)
		schemaRules(p, path+".properties["+k+"]", false, errs)
	}
	for _, key := range []string{"allOf", "oneOf", "anyOf"} {
		for i, v := range AnyList(raw[key]) {
			m, _ := v.(obj)
			schemaRules(m, path+"."+key+"["+strconv.Itoa(i)+"]", false, errs)
		}
	}
	items, _ := raw["items"].(obj)
	schemaRules(items, path+".items", false, errs)
	if v, ok := raw["x-kubernetes-preserve-unknown-fields"].(bool); ok && !v {
		add("FieldValueInvalid", path+".x-kubernetes-preserve-unknown-fields", false, "must be true or undefined")
	}
	listType, hasListType := raw["x-kubernetes-list-type"].(string)
	keys := AnyList(raw["x-kubernetes-list-map-keys"])
	t := TypeOf(raw)
	if hasListType && t != "array" {
		if t == "" {
			add("FieldValueRequired", path+".type", nil, "must be array if x-kubernetes-list-type is specified")
		} else {
			add("FieldValueInvalid", path+".type", t, "must be array if x-kubernetes-list-type is specified")
		}
	}
	if hasListType && listType != "atomic" && listType != "set" && listType != "map" {
		add("FieldValueNotSupported", path+".x-kubernetes-list-type", listType, fielderr.NotSupportedDetail("atomic", "set", "map"))
	}
	if len(keys) > 0 {
		if !hasListType {
			add("FieldValueRequired", path+".x-kubernetes-list-type", nil, "must be map if x-kubernetes-list-map-keys is non-empty")
		} else if listType != "map" {
			add("FieldValueInvalid", path+".x-kubernetes-list-type", listType, "must be map if x-kubernetes-list-map-keys is non-empty")
		}
	}
	if listType == "map" {
		if len(keys) == 0 {
			add("FieldValueRequired", path+".x-kubernetes-list-map-keys", nil, "must not be empty if x-kubernetes-list-type is map")
		}
		if items == nil {
			add("FieldValueRequired", path+".items", nil, "must have a schema if x-kubernetes-list-type is map")
		} else if TypeOf(items) != "object" {
			add("FieldValueInvalid", path+".items.type", TypeOf(items), "must be object if parent array's x-kubernetes-list-type is map")
		} else {
			itemProps, _ := items["properties"].(obj)
			required := AnyList(items["required"])
			for _, k := range keys {
				name, _ := k.(string)
				p, ok := itemProps[name].(obj)
				if !ok {
					add("FieldValueInvalid", path+".x-kubernetes-list-map-keys", keys, "entries must all be names of item properties")
					continue
				}
				if _, hasDefault := p["default"]; !hasDefault && !slices.Contains(required, any(name)) {
					add("FieldValueRequired", path+".items.properties["+name+"].default", nil,
						"this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property")
				}
			}
		}
	}
	_ = root
}
