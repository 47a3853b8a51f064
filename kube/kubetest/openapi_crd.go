// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file builds the OpenAPI documents of custom resources the way the
// real server's CRD OpenAPI controllers do. The paths, list kinds and
// shared schemas come from the documents captured for two capture CRDs
// (one per scope), with the capture's names replaced by the CRD's; the
// kind's own schema is built from its openAPIV3Schema: the standard
// apiVersion, kind and metadata fields added (to embedded resources too),
// x-kubernetes-int-or-string unfolded into its anyOf, and for OpenAPI v2
// what v2 cannot say dropped (value combinators, nullable types, defaults,
// the insides of x-kubernetes-preserve-unknown-fields).

// crdNames are the names a CRD version publishes under.
type crdNames struct {
	group, version, kind, listKind, plural string
}

// captureCRDNames are the names of the capture CRDs the templates were
// captured with (TestGenerateOpenAPI), by scope.
var captureCRDNames = map[string]crdNames{
	"Namespaced": {group: "qqgroup.kubetest.example", version: "v9qq", kind: "Zzkind", listKind: "ZzkindCollection", plural: "zzplurals"},
	"Cluster":    {group: "qqcluster.kubetest.example", version: "v8qq", kind: "Yykind", listKind: "YykindList", plural: "yyplurals"},
}

// crdKind is a served version of a CRD, as its documents need it.
type crdKind struct {
	names      crdNames
	scope      string // "Namespaced" or "Cluster"
	status     bool
	schema     obj   // the version's openAPIV3Schema; nil when none
	selectable []any // the x-kubernetes-selectable-fields extension; nil when none
}

func (n crdNames) model() string { return reverseGroup(n.group) + "." + n.version + "." + n.kind }
func (n crdNames) listModel() string {
	return reverseGroup(n.group) + "." + n.version + "." + n.listKind
}

// crdKindsByGVLocked returns the served CRD versions by "group/version".
// The caller holds s.mu.
func (s *Server) crdKindsByGVLocked() map[string][]crdKind {
	crds := s.cols["apiextensions.k8s.io/customresourcedefinitions"]
	out := map[string][]crdKind{}
	for gv, list := range s.reg.byGV {
		for _, r := range list {
			rec := crds.objects[r.CRD]
			if r.CRD == "" || rec == nil {
				continue
			}
			crd := mustDecode(rec.raw)
			k := crdKind{names: crdNames{group: r.Group, version: r.Version, kind: r.Kind, listKind: r.ListKind, plural: r.Plural},
				scope: "Cluster", status: r.Status, schema: schema.CRDVersionSchema(crd, r.Version)}
			if r.Namespaced {
				k.scope = "Namespaced"
			}
			for _, f := range r.Fields {
				k.selectable = append(k.selectable, obj{"fieldPath": f})
			}
			out[gv] = append(out[gv], k)
		}
	}
	for _, kinds := range out {
		slices.SortFunc(kinds, func(a, b crdKind) int { return strings.Compare(a.names.kind, b.names.kind) })
	}
	return out
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
func instantiate(template obj, from, to crdNames) obj {
	raw, _ := json.Marshal(template)
	trimmed := func(g string) string { return strings.TrimSuffix(g, ".k8s.io") }
	r := strings.NewReplacer(
		from.listKind, to.listKind,
		" a "+from.kind, articleFor(to.kind)+to.kind,
		from.kind, to.kind,
		reverseGroup(from.group), reverseGroup(to.group),
		toOperationID(trimmed(from.group), true), toOperationID(trimmed(to.group), true),
		toOperationID(trimmed(from.group), false), toOperationID(trimmed(to.group), false),
		from.group, to.group,
		from.plural, to.plural,
		toOperationID(from.version, true), toOperationID(to.version, true),
		from.version, to.version,
	)
	var out obj
	if err := json.Unmarshal([]byte(r.Replace(string(raw))), &out); err != nil {
		panic("kubetest: instantiate OpenAPI template: " + err.Error())
	}
	return out
}

// crdOpenAPIV3 builds the OpenAPI v3 document of one group version of
// custom resources.
func crdOpenAPIV3(kinds []crdKind) obj {
	data := schema.OpenAPI()
	var doc obj
	for _, k := range kinds {
		from := captureCRDNames[k.scope]
		one := instantiate(data.CRDV3[k.scope], from, k.names)
		schemas := schema.ComponentsOf(one)
		meta := data.CRDV3[k.scope]["components"].(obj)["schemas"].(obj)[from.model()].(obj)["properties"].(obj)
		schemas[k.names.model()] = crdKindSchema(k, meta, false)
		if k.selectable != nil {
			schemas[k.names.listModel()].(obj)["x-kubernetes-selectable-fields"] = k.selectable
		}
		if !k.status {
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

// crdOpenAPIV2Parts returns the paths and definitions a CRD version adds
// to /openapi/v2.
func crdOpenAPIV2Parts(k crdKind) (paths, definitions obj) {
	data := schema.OpenAPI()
	from := captureCRDNames[k.scope]
	one := instantiate(data.CRDV2[k.scope], from, k.names)
	defs := one["definitions"].(obj)
	meta := data.CRDV2[k.scope]["definitions"].(obj)[from.model()].(obj)["properties"].(obj)
	defs[k.names.model()] = crdKindSchema(k, meta, true)
	if k.selectable != nil {
		defs[k.names.listModel()].(obj)["x-kubernetes-selectable-fields"] = k.selectable
	}
	if !k.status {
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
func crdKindSchema(k crdKind, meta obj, v2 bool) obj {
	var out obj
	switch {
	case k.schema == nil || (v2 && schema.Flag(k.schema, "x-kubernetes-preserve-unknown-fields")):
		out = obj{"type": "object"}
	default:
		out = publishedSchema(k.schema, v2)
		props, _ := out["properties"].(obj)
		if props == nil {
			props = obj{}
			out["properties"] = props
		}
		for _, f := range []string{"apiVersion", "kind", "metadata"} {
			props[f] = unstructured.DeepCopy(meta[f])
		}
	}
	out["x-kubernetes-group-version-kind"] = []any{obj{"group": k.names.group, "kind": k.names.kind, "version": k.names.version}}
	if k.selectable != nil {
		out["x-kubernetes-selectable-fields"] = k.selectable
	}
	return out
}

// embeddedMeta returns the properties the real server adds to embedded
// resources (x-kubernetes-embedded-resource) in OpenAPI v3, as captured
// in the namespaced template (its spec.template).
func embeddedMeta() obj {
	from := captureCRDNames["Namespaced"]
	kind := schema.OpenAPI().CRDV3["Namespaced"]["components"].(obj)["schemas"].(obj)[from.model()].(obj)
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

// openAPIV2Locked returns /openapi/v2: the built-in document (limited to
// the served resources) with every served CRD version's paths and
// definitions merged in. The caller holds s.mu.
func (s *Server) openAPIV2Locked() obj {
	base := builtinOpenAPIV2()
	out := make(obj, len(base))
	for k, v := range base {
		out[k] = v
	}
	paths, defs := obj{}, obj{}
	for k, v := range base["paths"].(obj) {
		paths[k] = v
	}
	for k, v := range base["definitions"].(obj) {
		defs[k] = v
	}
	for _, kinds := range s.crdKindsByGVLocked() {
		for _, k := range kinds {
			p, d := crdOpenAPIV2Parts(k)
			for name, v := range p {
				paths[name] = v
			}
			for name, v := range d {
				defs[name] = v
			}
		}
	}
	out["paths"], out["definitions"] = paths, defs
	return out
}
