// SPDX-License-Identifier: Apache-2.0

package schema

import (
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file applies a CRD's schema to its custom resources: the compiled
// schema of a served version, the decoding-time changes (unknown fields
// pruned, disallowed nulls dropped, defaults set) and the validation a
// write ends with (422 Invalid, merged with the metadata errors).

// CompileCRD compiles the openAPIV3Schema of a CRD version. The
// result is the kind's schema as the server publishes it: metadata is
// ObjectMeta and apiVersion and kind are strings, at the root and in
// embedded resources; the CRD's own metadata rules (name, generateName)
// are kept aside for validation. Nil when the version has no schema.
func CompileCRD(raw obj) *Schema {
	if raw == nil {
		return nil
	}
	root := NewCompiler(nil).Compile(raw)
	root.hasEmbedded = root.anyNode(func(n *Schema) bool { return n.EmbeddedResource })
	root.hasSetLists = root.anyNode(func(n *Schema) bool { return n.ListType == "set" || n.ListType == "map" })
	withObjectMeta(root, true, map[*Schema]bool{})
	return root
}

// withObjectMeta gives the root and every embedded resource under s the
// standard metadata, apiVersion and kind fields.
func withObjectMeta(s *Schema, root bool, seen map[*Schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	if root || s.EmbeddedResource {
		props := make(map[string]*Schema, len(s.Properties)+3)
		for k, v := range s.Properties {
			props[k] = v
		}
		if root {
			s.userMeta = s.Properties["metadata"]
		}
		props["metadata"] = OpenAPI().ObjectMeta
		props["apiVersion"] = &Schema{Type: "string"}
		props["kind"] = &Schema{Type: "string"}
		s.Properties, s.Names = props, unstructured.SortedKeys(props)
	}
	for k, p := range s.Properties {
		if !(metaFields[k] && (root || s.EmbeddedResource)) {
			withObjectMeta(p, false, seen)
		}
	}
	withObjectMeta(s.Additional, false, seen)
	withObjectMeta(s.Elem, false, seen)
}

// CoerceCustomResource does to o what the real server's decoding of a
// custom resource does: unknown fields of metadata are dropped (by the
// encoding) and the rest pruned by the schema, nulls the schema does not
// allow removed, and defaults set. It returns the unknown fields' paths
// when track is set: metadata's first, then the rest sorted.
func CoerceCustomResource(s *Schema, o obj, track bool) []string {
	var unknown []string
	if m, ok := o["metadata"].(obj); ok && track {
		om := OpenAPI().ObjectMeta
		for _, k := range unstructured.SortedKeys(m) {
			if om.Properties[k] == nil {
				unknown = append(unknown, "metadata."+k)
			}
		}
	}
	unknown = append(unknown, Prune(s, o, track, false)...)
	dropNulls(s, o)
	applyDefaults(s, o)
	return unknown
}

// ValidateCustomResource validates a custom resource about to be
// stored against s: for sub "status", its status only, with ratcheting
// against old on updates (old nil on create). On a create of a kind with
// a status subresource (statusSub) the status is not validated: it is
// replaced by the server.
func ValidateCustomResource(s *Schema, sub string, statusSub bool, o, old obj) []fielderr.Error {
	if sub == "status" {
		st, ok := o["status"]
		if !ok {
			return nil
		}
		// The real server validates the status alone: its messages name
		// paths from the status ("conditions[0].type in body ...").
		v := &schemaValidator{root: "status"}
		v.value(s.Properties["status"], st, make(vpath, 0, 16), old["status"], old != nil)
		return v.errs
	}
	view := o
	if old == nil && statusSub {
		if _, has := o["status"]; has {
			view = make(obj, len(o))
			for k, x := range o {
				if k != "status" {
					view[k] = x
				}
			}
		}
	}
	errs := validateSchema(s, view, old)
	if s.hasEmbedded {
		errs = append(errs, validateEmbedded(s, view, "", true)...)
	}
	if s.hasSetLists {
		errs = append(errs, validateListSets(s, view, make(vpath, 0, 16))...)
	}
	return errs
}

// validateEmbedded checks the embedded resources under x as the real
// server does: apiVersion and kind are required and well-formed.
func validateEmbedded(s *Schema, x any, path string, root bool) []fielderr.Error {
	if s == nil {
		return nil
	}
	var errs []fielderr.Error
	switch t := x.(type) {
	case obj:
		if s.EmbeddedResource && !root {
			for _, k := range []string{"apiVersion", "kind"} {
				if _, ok := t[k]; !ok {
					errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: child(path, k)})
				}
			}
			for _, k := range []string{"apiVersion", "kind"} {
				v, ok := t[k]
				if !ok {
					continue
				}
				str, isStr := v.(string)
				switch {
				case !isStr:
					errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: child(path, k), Value: v, Detail: "must be a string"})
				case str == "":
					errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: child(path, k), Value: str, Detail: "must not be empty"})
				case k == "apiVersion" && strings.Count(str, "/") > 1:
					errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: child(path, k), Value: str,
						Detail: "unexpected GroupVersion string: " + str})
				case k == "kind":
					if bad := validation.IsDNS1035Label(strings.ToLower(str)); len(bad) > 0 {
						errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: child(path, k), Value: str,
							Detail: "may have mixed case, but should otherwise match: " + strings.Join(bad, ",")})
					}
				}
			}
			if m, ok := t["metadata"].(obj); ok {
				errs = append(errs, validateEmbeddedMeta(m, child(path, "metadata"))...)
			}
		}
		for _, k := range unstructured.SortedKeys(t) {
			if (root || s.EmbeddedResource) && metaFields[k] {
				continue
			}
			if p := s.Field(k); p != nil {
				errs = append(errs, validateEmbedded(p, t[k], child(path, k), false)...)
			}
		}
	case []any:
		for i, v := range t {
			errs = append(errs, validateEmbedded(s.Elem, v, path+"["+strconv.Itoa(i)+"]", false)...)
		}
	}
	return errs
}

// validateEmbeddedMeta validates the metadata of an embedded resource as
// ObjectMeta is validated, with names as path segments.
func validateEmbeddedMeta(meta obj, path string) []fielderr.Error {
	var errs []fielderr.Error
	if gn := unstructured.String(meta, "generateName"); gn != "" {
		for _, m := range validation.PathSegmentErrors(gn, true) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".generateName", Value: gn, Detail: m})
		}
	}
	if name := unstructured.String(meta, "name"); name != "" {
		for _, m := range validation.PathSegmentErrors(name, false) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".name", Value: name, Detail: m})
		}
	}
	if ns := unstructured.String(meta, "namespace"); ns != "" {
		for _, m := range validation.IsDNS1123Label(ns) {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".namespace", Value: ns, Detail: m})
		}
	}
	// Labels and annotations as for any object (validation.Metadata).
	for _, e := range validation.Metadata(validation.NameSubdomain, obj{"labels": meta["labels"], "annotations": meta["annotations"]}, "fakename", validation.OwnerRefsByEntry) {
		if e.Field != "metadata.name" {
			e.Field = path + strings.TrimPrefix(e.Field, "metadata")
			errs = append(errs, e)
		}
	}
	return errs
}

// validateListSets reports the duplicates of set and map lists under x.
func validateListSets(s *Schema, x any, path vpath) []fielderr.Error {
	if s == nil {
		return nil
	}
	var errs []fielderr.Error
	switch t := x.(type) {
	case obj:
		if s.Additional != nil {
			for _, k := range unstructured.SortedKeys(t) {
				if s.Properties[k] == nil {
					errs = append(errs, validateListSets(s.Additional, t[k], path.child(k))...)
				}
			}
		}
		for _, k := range s.Names {
			if v, ok := t[k]; ok && !(len(path) == 0 && k == "metadata") {
				errs = append(errs, validateListSets(s.Properties[k], v, path.child(k))...)
			}
		}
	case []any:
		for i, v := range t {
			p := path.index(i)
			switch s.ListType {
			case "set":
				for _, prev := range t[:i] {
					if jsonpatch.Equal(prev, v) {
						errs = append(errs, fielderr.Error{Type: "FieldValueDuplicate", Field: p.String(), Value: v})
						break
					}
				}
			case "map":
				for _, prev := range t[:i] {
					if sameListKeys(s.ListMapKeys, prev, v) {
						keys := obj{}
						if m, ok := v.(obj); ok {
							for _, k := range s.ListMapKeys {
								if kv, ok := m[k]; ok {
									keys[k] = kv
								}
							}
						}
						errs = append(errs, fielderr.Error{Type: "FieldValueDuplicate", Field: p.String(), Value: keys})
						break
					}
				}
			}
			errs = append(errs, validateListSets(s.Elem, v, p)...)
		}
	}
	return errs
}

// CRDVersionSchema returns the openAPIV3Schema of a version of a CRD
// object, nil when it has none.
func CRDVersionSchema(crd obj, version string) obj {
	spec, _ := crd["spec"].(obj)
	for _, v := range AnyList(spec["versions"]) {
		m, _ := v.(obj)
		if unstructured.String(m, "name") != version {
			continue
		}
		sc, _ := m["schema"].(obj)
		raw, _ := sc["openAPIV3Schema"].(obj)
		return raw
	}
	return nil
}
