// SPDX-License-Identifier: Apache-2.0

package main

import (
	"encoding/json"
	"strings"
)

// schema is the part of an OpenAPI v3 schema object a Go type is written
// from.
type schema struct {
	Ref         string             `json:"$ref"`
	AllOf       []*schema          `json:"allOf"`
	Type        string             `json:"type"`
	Format      string             `json:"format"`
	Description string             `json:"description"`
	Properties  map[string]*schema `json:"properties"`
	Required    []string           `json:"required"`
	Items       *schema            `json:"items"`
	// Additional is additionalProperties: a schema, or true (any value).
	Additional      json.RawMessage `json:"additionalProperties"`
	Default         json.RawMessage `json:"default"`
	IntOrString     bool            `json:"x-kubernetes-int-or-string"`
	PreserveUnknown bool            `json:"x-kubernetes-preserve-unknown-fields"`
	EmbeddedObject  bool            `json:"x-kubernetes-embedded-resource"`
	GVK             []struct {
		Group   string `json:"group"`
		Version string `json:"version"`
		Kind    string `json:"kind"`
	} `json:"x-kubernetes-group-version-kind"`
}

// ref returns the name of the schema s stands for: its $ref, or that of
// its one allOf (how v3 documents give a reference a description).
func (s *schema) ref() string {
	r := s.Ref
	if r == "" && len(s.AllOf) == 1 {
		r = s.AllOf[0].Ref
	}
	return strings.TrimPrefix(r, "#/components/schemas/")
}

// additional returns the schema of a map's values: nil when s is no map,
// an empty schema (any value) for additionalProperties: true.
func (s *schema) additional() *schema {
	if len(s.Additional) == 0 || string(s.Additional) == "false" {
		return nil
	}
	var v schema
	if json.Unmarshal(s.Additional, &v) != nil {
		return &schema{}
	}
	return &v
}

// isStruct says whether s is written as a struct of its own.
func (s *schema) isStruct() bool { return len(s.Properties) > 0 }

// defaultsEmpty says whether the schema gives the field the default {}:
// kube-apiserver's mark of a struct held as a value, never absent.
func (s *schema) defaultsEmpty() bool {
	return strings.TrimSpace(string(s.Default)) == "{}"
}

func (s *schema) requires(name string) bool {
	for _, r := range s.Required {
		if r == name {
			return true
		}
	}
	return false
}

// wellKnown are the schemas kube declares a type for, or that are written
// as a Go type of their own wire form.
var wellKnown = map[string]string{
	"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta":               "kube.ObjectMeta",
	"io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta":                 "kube.ListMeta",
	"io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector":            "kube.LabelSelector",
	"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference":           "kube.OwnerReference",
	"io.k8s.apimachinery.pkg.apis.meta.v1.Condition":                "kube.Condition",
	"io.k8s.apimachinery.pkg.apis.meta.v1.Time":                     "kube.Time",
	"io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime":                "kube.MicroTime",
	"io.k8s.apimachinery.pkg.apis.meta.v1.Duration":                 "string",
	"io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1":                 "json.RawMessage",
	"io.k8s.apimachinery.pkg.api.resource.Quantity":                 "string",
	"io.k8s.apimachinery.pkg.util.intstr.IntOrString":               "kube.IntOrString",
	"io.k8s.apimachinery.pkg.runtime.RawExtension":                  "json.RawMessage",
	"io.k8s.api.core.v1.ObjectReference":                            "kube.ObjectReference",
	"io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON": "json.RawMessage",
}

// goKind is how a Go type takes part in a field's tag.
type goKind int

const (
	kindScalar goKind = iota // numbers, booleans: a pointer when optional
	kindString               // strings, []byte: omitempty
	kindList                 // slices, maps, json.RawMessage: omitempty
	kindStruct               // a pointer when optional, unless defaulted to {}
)

// wellKnownKind is the goKind of a well-known type.
func wellKnownKind(expr string) goKind {
	switch expr {
	case "string":
		return kindString
	case "json.RawMessage":
		return kindList
	}
	return kindStruct
}
