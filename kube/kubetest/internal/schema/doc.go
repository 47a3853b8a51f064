// SPDX-License-Identifier: Apache-2.0

// Package schema is kubetest's schema model: one compiled OpenAPI schema per served
// kind, the single source for everything schema-shaped (type checking,
// defaulting, pruning, the published OpenAPI documents, and the list types
// and merge keys that merges and server-side apply follow). Built-in kinds
// get theirs from the documents captured from kube-apiserver
// (captured.go); custom resources from their CRD's openAPIV3Schema
// (crd.go).
//
// # Looking up a field
//
// A kind's schema is package kubetest's resource.Schema; walk it with [Schema.Field] (a
// property, or the value schema of a map), [Schema.Items] (the elements
// of a list) or [Schema.Lookup] (a path of field names, stepping through
// lists), then ask [Schema.Shape] what merges need to know:
//
//	sh := res.Schema.Lookup("spec", "template", "spec", "containers").Shape()
//	// sh.Type == "array", sh.ListType == "map", sh.MapKeys == ["name"],
//	// sh.PatchStrategy == "merge", sh.MergeKey == "name"
//	item := res.Schema.Lookup("spec", "template", "spec", "containers").Items()
//	// item.Shape().Struct == true
//
// Every method accepts a nil receiver and answers as for a field without
// a schema (a custom resource's x-kubernetes-preserve-unknown-fields
// region, or a field the schema does not know): Lookup and Field return
// nil, Shape returns the zero [FieldShape] (Known false), which merges treat
// as an atomic list or a granular map.
//
// Schemas are immutable once compiled and shared by every server and
// request: nothing may modify a *Schema after compile returns it.
//
// What else lives here, by file: captured.go (the OpenAPI documents
// captured from kube-apiserver 1.37 and the schemas compiled from them,
// [OpenAPI], [Builtin]), compile.go, crd.go (a CRD version's schema
// compiled, [CompileCRD], and custom resources fitted to it and validated,
// [CoerceCustomResource], [ValidateCustomResource]), structural.go (the
// refusal of non-structural CRDs, [ValidateCRDSchemas]), validate.go,
// combine.go and format.go (the structural schema validation), coerce.go
// (pruning, nulls, defaults), decode.go, convert.go and gotype.go (the
// type errors of built-in kinds in the Go decoder's words, and the Go
// forms merges print).
package schema
