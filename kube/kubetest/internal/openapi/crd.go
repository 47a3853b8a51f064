// SPDX-License-Identifier: Apache-2.0

package openapi

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// This file builds the OpenAPI documents of custom resources the way the
// real server's CRD OpenAPI controllers do. The paths, list kinds and
// shared schemas come from the documents captured for two capture CRDs
// (one per scope), with the capture's names replaced by the CRD's; the
// kind's own schema is built from its openAPIV3Schema: the standard
// apiVersion, kind and metadata fields added (to embedded resources too),
// x-kubernetes-int-or-string unfolded into its anyOf, and for OpenAPI v2
// what v2 cannot say dropped (value combinators, nullable types, defaults,
// the insides of x-kubernetes-preserve-unknown-fields).

// CRDNames are the names a CRD version publishes under.
type CRDNames struct {
	Group, Version, Kind, ListKind, Plural string
}

// CaptureNames returns the names of the capture CRD of a scope
// ("Namespaced" or "Cluster"), which the templates were captured with
// (TestGenerateOpenAPI).
func CaptureNames(scope string) CRDNames { return captureCRDNames[scope] }

// captureCRDNames are the names of the capture CRDs, by scope.
var captureCRDNames = map[string]CRDNames{
	"Namespaced": {Group: "qqgroup.kubetest.example", Version: "v9qq", Kind: "Zzkind", ListKind: "ZzkindCollection", Plural: "zzplurals"},
	"Cluster":    {Group: "qqcluster.kubetest.example", Version: "v8qq", Kind: "Yykind", ListKind: "YykindList", Plural: "yyplurals"},
}

// CRDKind is a served version of a CRD, as its documents need it.
type CRDKind struct {
	Names      CRDNames
	Scope      string // "Namespaced" or "Cluster"
	Status     bool
	Schema     obj   // the version's openAPIV3Schema; nil when none
	Selectable []any // the x-kubernetes-selectable-fields extension; nil when none
}

func (n CRDNames) Model() string { return reverseGroup(n.Group) + "." + n.Version + "." + n.Kind }
func (n CRDNames) ListModel() string {
	return reverseGroup(n.Group) + "." + n.Version + "." + n.ListKind
}

// toOperationID is how kube-apiserver turns a name into part of an
// operation id: letters and underscores kept, digits kept but not first,
// and a letter after anything else capitalized.
func toOperationID(s string, capitalizeFirst bool) string {
	var b strings.Builder
	capitalize := capitalizeFirst
	for i, r := range s {
		if unicode.IsLetter(r) || r == '_' || (i != 0 && unicode.IsDigit(r)) {
			if capitalize {
				r = unicode.ToUpper(r)
				capitalize = false
			}
			b.WriteRune(r)
		} else {
			capitalize = true
		}
	}
	return b.String()
}

// articleFor is the article descriptions put before a kind: " a ", " an "
// before a vowel, and just " " before what looks like a plural.
func articleFor(noun string) string {
	if !strings.HasSuffix(noun, "ss") && strings.HasSuffix(noun, "s") {
		return " "
	}
	if strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return " an "
	}
	return " a "
}

// instantiate returns a copy of a captured template with the capture
// CRD's names replaced by to's.
func instantiate(template obj, from, to CRDNames) obj {
	raw, _ := json.Marshal(template)
	trimmed := func(g string) string { return strings.TrimSuffix(g, ".k8s.io") }
	r := strings.NewReplacer(
		from.ListKind, to.ListKind,
		" a "+from.Kind, articleFor(to.Kind)+to.Kind,
		from.Kind, to.Kind,
		reverseGroup(from.Group), reverseGroup(to.Group),
		toOperationID(trimmed(from.Group), true), toOperationID(trimmed(to.Group), true),
		toOperationID(trimmed(from.Group), false), toOperationID(trimmed(to.Group), false),
		from.Group, to.Group,
		from.Plural, to.Plural,
		toOperationID(from.Version, true), toOperationID(to.Version, true),
		from.Version, to.Version,
	)
	var out obj
	if err := json.Unmarshal([]byte(r.Replace(string(raw))), &out); err != nil {
		panic("kubetest: instantiate OpenAPI template: " + err.Error())
	}
	return out
}

// CRDV3 builds the OpenAPI v3 document of one group version of
// custom resources.
func CRDV3(kinds []CRDKind) obj {
	data := schema.OpenAPI()
	var doc obj
	for _, k := range kinds {
		from := captureCRDNames[k.Scope]
		one := instantiate(data.CRDV3[k.Scope], from, k.Names)
		schemas := schema.ComponentsOf(one)
		meta := data.CRDV3[k.Scope]["components"].(obj)["schemas"].(obj)[from.Model()].(obj)["properties"].(obj)
		schemas[k.Names.Model()] = crdKindSchema(k, meta, false)
		if k.Selectable != nil {
			schemas[k.Names.ListModel()].(obj)["x-kubernetes-selectable-fields"] = k.Selectable
		}
		if !k.Status {
			dropStatusPaths(one)
		}
		if doc == nil {
			doc = one
			continue
		}
		for p, item := range one["paths"].(obj) {
			doc["paths"].(obj)[p] = item
		}
		for name, sc := range schemas {
			schema.ComponentsOf(doc)[name] = sc
		}
	}
	return doc
}

// CRDV2Parts returns the paths and definitions a CRD version adds
// to /openapi/v2.
func CRDV2Parts(k CRDKind) (paths, definitions obj) {
	data := schema.OpenAPI()
	from := captureCRDNames[k.Scope]
	one := instantiate(data.CRDV2[k.Scope], from, k.Names)
	defs := one["definitions"].(obj)
	meta := data.CRDV2[k.Scope]["definitions"].(obj)[from.Model()].(obj)["properties"].(obj)
	defs[k.Names.Model()] = crdKindSchema(k, meta, true)
	if k.Selectable != nil {
		defs[k.Names.ListModel()].(obj)["x-kubernetes-selectable-fields"] = k.Selectable
	}
	if !k.Status {
		dropStatusPaths(one)
	}
	return one["paths"].(obj), defs
}

func dropStatusPaths(doc obj) {
	for p := range doc["paths"].(obj) {
		if strings.HasSuffix(p, "/{name}/status") {
			delete(doc["paths"].(obj), p)
		}
	}
}

// crdKindSchema builds the published schema of a custom resource kind.
// meta holds the apiVersion, kind and metadata properties as the real
// server publishes them at the root (captured).
func crdKindSchema(k CRDKind, meta obj, v2 bool) obj {
	var out obj
	switch {
	case k.Schema == nil || (v2 && schema.Flag(k.Schema, "x-kubernetes-preserve-unknown-fields")):
		out = obj{"type": "object"}
	default:
		out = publishedSchema(k.Schema, v2)
		props, _ := out["properties"].(obj)
		if props == nil {
			props = obj{}
			out["properties"] = props
		}
		for _, f := range []string{"apiVersion", "kind", "metadata"} {
			props[f] = unstructured.DeepCopy(meta[f])
		}
	}
	out["x-kubernetes-group-version-kind"] = []any{obj{"group": k.Names.Group, "kind": k.Names.Kind, "version": k.Names.Version}}
	if k.Selectable != nil {
		out["x-kubernetes-selectable-fields"] = k.Selectable
	}
	return out
}

// embeddedMeta returns the properties the real server adds to embedded
// resources (x-kubernetes-embedded-resource) in OpenAPI v3, as captured
// in the namespaced template (its spec.template).
func embeddedMeta() obj {
	from := captureCRDNames["Namespaced"]
	kind := schema.OpenAPI().CRDV3["Namespaced"]["components"].(obj)["schemas"].(obj)[from.Model()].(obj)
	spec := kind["properties"].(obj)["spec"].(obj)
	return spec["properties"].(obj)["template"].(obj)["properties"].(obj)
}

// intOrStringAnyOf is what x-kubernetes-int-or-string unfolds into.
var intOrStringAnyOf = []any{obj{"type": "integer"}, obj{"type": "string"}}

// publishedSchema returns a copy of a CRD schema node as the real server
// publishes it (see the file comment).
func publishedSchema(in obj, v2 bool) obj {
	out := make(obj, len(in))
	for k, v := range in {
		switch k {
		case "example", "externalDocs", "id", "$schema", "definitions", "dependencies":
			continue
		case "properties":
			props := obj{}
			for name, p := range v.(obj) {
				m, _ := p.(obj)
				props[name] = publishedSchema(m, v2)
			}
			out[k] = props
		case "items", "additionalProperties", "not":
			if m, ok := v.(obj); ok {
				out[k] = publishedSchema(m, v2)
			} else {
				out[k] = v
			}
		case "allOf", "anyOf", "oneOf":
			var list []any
			for _, x := range schema.AnyList(v) {
				m, _ := x.(obj)
				list = append(list, publishedSchema(m, v2))
			}
			out[k] = list
		default:
			out[k] = unstructured.DeepCopy(v)
		}
	}
	if v2 {
		return toOpenAPIV2(out)
	}
	if schema.Flag(out, "x-kubernetes-int-or-string") {
		switch {
		case out["anyOf"] == nil:
			out["anyOf"] = unstructured.DeepCopy(intOrStringAnyOf)
		case !reflect.DeepEqual(out["anyOf"], intOrStringAnyOf):
			out["allOf"] = append([]any{obj{"anyOf": unstructured.DeepCopy(intOrStringAnyOf)}}, schema.AnyList(out["allOf"])...)
		}
	}
	if schema.Flag(out, "x-kubernetes-embedded-resource") {
		props, _ := out["properties"].(obj)
		if props == nil {
			props = obj{}
			out["properties"] = props
		}
		for f, p := range embeddedMeta() {
			props[f] = unstructured.DeepCopy(p)
		}
		required := schema.AnyList(out["required"])
		for _, f := range []string{"kind", "apiVersion"} {
			if !slices.Contains(required, any(f)) {
				required = append(required, f)
			}
		}
		out["required"] = required
	}
	return out
}

// toOpenAPIV2 drops from a published node what OpenAPI v2 cannot say, as
// the real server's v2 conversion does.
func toOpenAPIV2(s obj) obj {
	for _, k := range []string{"allOf", "anyOf", "oneOf", "not", "default"} {
		delete(s, k)
	}
	if schema.Flag(s, "nullable") {
		for _, k := range []string{"type", "nullable", "items", "properties"} {
			delete(s, k)
		}
	}
	delete(s, "nullable")
	if schema.Flag(s, "x-kubernetes-preserve-unknown-fields") {
		delete(s, "items")
		delete(s, "properties")
		if schema.TypeOf(s) == "object" {
			delete(s, "type")
		}
	}
	if schema.TypeOf(s) == "array" && s["items"] == nil {
		delete(s, "type")
	}
	if schema.Flag(s, "x-kubernetes-embedded-resource") && !schema.Flag(s, "x-kubernetes-preserve-unknown-fields") {
		props, _ := s["properties"].(obj)
		if props == nil {
			props = obj{}
			s["properties"] = props
		}
		meta := embeddedMeta()
		for f, p := range meta {
			props[f] = unstructured.DeepCopy(p)
		}
		props["metadata"] = obj{"description": meta["metadata"].(obj)["description"],
			"$ref": "#/definitions/" + schema.ObjectMetaName}
		required := schema.AnyList(s["required"])
		for _, f := range []string{"kind", "apiVersion"} {
			if !slices.Contains(required, any(f)) {
				required = append(required, f)
			}
		}
		s["required"] = required
	}
	return s
}

// reverseGroup reverses the dot-separated parts of a group, as CRD model
// names do: "stable.example.com" is "com.example.stable".
func reverseGroup(group string) string {
	parts := strings.Split(group, ".")
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

// KindOf is the CRDKind of r, a version of the CRD crd serves.
func KindOf(r *kinds.Resource, crd obj) CRDKind {
	k := CRDKind{Names: CRDNames{Group: r.Group, Version: r.Version, Kind: r.Kind, ListKind: r.ListKind, Plural: r.Plural},
		Scope: "Cluster", Status: r.Status, Schema: schema.CRDVersionSchema(crd, r.Version)}
	if r.Namespaced {
		k.Scope = "Namespaced"
	}
	for _, f := range r.Fields {
		k.Selectable = append(k.Selectable, obj{"fieldPath": f})
	}
	return k
}
