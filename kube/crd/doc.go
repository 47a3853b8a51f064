// SPDX-License-Identifier: Apache-2.0

// Package crd builds CustomResourceDefinitions from Go types at run time,
// with no generator and no YAML, and installs them: the schema is read
// from the struct's fields and `json` tags, and from `crd` tags for what a
// Go type cannot say. It is a package of its own so that programs that do
// not use it do not link its reflection.
//
// Guarantees:
//   - The schema describes what encoding/json writes for the type: the
//     same field names (tags, embedded structs inlined, the dominant field
//     of a name), []byte as base64 strings, maps as objects, ",string"
//     fields as strings. So an object encoded from a Go value is accepted,
//     and reads back equal.
//   - The schema is structural, as kube-apiserver requires: every field
//     has a type, metadata at the root is only `type: object`, and
//     whatever cannot be described (a recursive type, a channel, a type
//     with its own MarshalJSON and no tag saying its shape) is refused
//     with an error that names the Go type and the JSON path.
//   - A tag kube-apiserver would refuse at install (a pattern that is not
//     a regular expression, type=bogus, an empty rule, a default of a
//     number or string outside the field's own bounds, pattern or enum),
//     ignore (a format it does not validate) or take and then hold
//     against every object (minimum above maximum, multipleOf=0) makes
//     [For] fail, with an error that names the JSON path, the Go field
//     and the tag.
//   - The CRD [For] returns is at most 1.5 MiB of JSON, what etcd stores
//     by default. A CRD schema has no references, so a struct type is
//     written out whole in each field that holds it, and types that share
//     types many levels deep grow without bound (2^18 leaves for 18
//     levels of two fields). For counts the bytes it writes and stops
//     once they pass 1.5 MiB, having written about that much and no
//     more (25 MB allocated, 0.2-0.3 s), with an error that names the
//     types written out most. The server stores a CRD as JSON, with
//     about 1.5 kB of its own, so one within that of the bound may still
//     be refused ("etcdserver: request is too large").
//   - Required and optional follow controller-gen, which kubebuilder users
//     know: a field with omitempty or omitzero is optional, every other
//     field is required; the tags optional and required say otherwise.
//   - [Install] returns once the server serves the kinds, and
//     [WaitEstablished] returns the server's own message when it will not
//     (names taken by another resource, for one).
//   - No panics from zero values: every exported type's zero value works
//     or returns an error (a zero or nil [Installer] answers
//     "crd.Installer: use crd.NewInstaller"); a typed nil is treated as
//     nil. TestZeroValues walks the exported API for this.
//
// Usage:
//  1. Declare the type as for any kube object, with crd tags where the Go
//     type says too little (see the example below).
//  2. Build its CRD with [For], once, at start-up.
//  3. Install it with [Install] before starting the caches that read it,
//     or have a manager do it as it starts: mgr.Add([NewInstaller](...)).
//
// A type and its tags:
//
//	type Widget struct {
//		kube.TypeMeta
//		kube.ObjectMeta `json:"metadata"`
//		Spec            WidgetSpec   `json:"spec"`
//		Status          WidgetStatus `json:"status,omitzero"`
//	}
//	type WidgetSpec struct {
//		Size  int32  `json:"size" crd:"minimum=1,maximum=10,printColumn=Size"`
//		Color string `json:"color,omitempty" crd:"enum=red;green;blue,default=red"`
//	}
//	type WidgetStatus struct {
//		Conditions []kube.Condition `json:"conditions,omitempty"`
//	}
//
// # Go types
//
// bool is a boolean; strings are strings; int, int8, int16 are integers,
// int32 and int64 integers of format int32 and int64, as controller-gen
// writes them, and unsigned integers the same with minimum 0 (encoding/json
// refuses negative numbers for them). float32 and float64 are numbers
// (controller-gen refuses them unless allowed; the server takes them, but
// clients in other languages may round them: prefer integers or strings
// such as quantities). Pointers are what they point to: a nil pointer
// without omitempty is written as null, which the server drops from a
// field that is not nullable, so a required pointer must not be nil.
//
// Structs are objects (properties, required); slices and arrays are
// arrays; []byte is a string of format byte; maps are objects with
// additionalProperties (keys are strings, integers or
// encoding.TextMarshalers); any, map[string]any and json.RawMessage keep
// whatever they hold (x-kubernetes-preserve-unknown-fields). Types that
// implement encoding.TextMarshaler are strings. [kube.Time],
// [kube.MicroTime] and time.Time are strings of format date-time;
// [kube.IntOrString] is x-kubernetes-int-or-string; [kube.Unstructured]
// is an embedded resource that keeps all its fields. A []kube.Condition
// is a map list keyed by type, as the API's own conditions are.
//
// The root's metadata is `type: object`, as the server requires (it
// validates metadata itself); a kube.ObjectMeta elsewhere is described
// field by field, so that it is not pruned. A recursive type is refused:
// a CRD schema has no references. Tag the field that recurses schemaless,
// and so a field of a type used so often that the schema grows too large.
//
// # Tags
//
// A `crd:"..."` tag holds comma-separated keys, some with a value
// (key=value). A value that holds a comma is quoted in single quotes, and
// a quote inside it is doubled: crd:"pattern='^[a-z]{1,3}$'". Lists
// (enum, listMapKey) separate their items with semicolons. In the Go
// source a struct tag is itself a quoted string, so a backslash in a
// pattern is written twice.
//
//	optional, required         whether the field must be present (see above)
//	minimum=N, maximum=N       bounds of a number; exclusiveMinimum and
//	exclusiveMinimum           exclusiveMaximum make them strict
//	exclusiveMaximum
//	multipleOf=N
//	minLength=N, maxLength=N   bounds of a string's length
//	pattern=RE                 a regular expression the string must match
//	format=F                   a format kube-apiserver validates: of a
//	                           string date-time, date, duration, byte,
//	                           uuid, hostname, ipv4, cidr, email, uri,
//	                           k8s-short-name, ... (see the error for all);
//	                           int32, int64 of an integer; float, double
//	                           of a number
//	enum=a;b;c                 the allowed values, typed by the field
//	default=V                  the value the server fills in: a string as it
//	                           is, numbers and booleans parsed, anything else
//	                           as JSON (default='{"a":1}')
//	nullable                   null is a value (not dropped)
//	minItems=N, maxItems=N     bounds of an array's length
//	listType=atomic|set|map    how server-side apply merges the list
//	listMapKey=k1;k2           the keys of a listType=map
//	minProperties=N            bounds of an object's or map's size
//	maxProperties=N
//	mapType=atomic|granular    how server-side apply merges an object
//	preserveUnknownFields      keep fields the schema does not declare
//	schemaless                 no schema below this field; fields kept
//	embeddedResource           the value is itself a Kubernetes object
//	intOrString                an integer or a string (for your own types)
//	type=T                     the JSON type (string, integer, number,
//	                           boolean, object), for types with their
//	                           own MarshalJSON
//	description=TEXT           the field's description (Go doc comments
//	                           are not available at run time; without this
//	                           tag descriptions are empty)
//	rule=CEL, message=TEXT     an x-kubernetes-validations rule, and the
//	                           message of the rule before it
//	printColumn=NAME           show the field as a kubectl get column;
//	printColumnPriority=N      0 for the standard view, more for -o wide;
//	printColumnFormat=F        the column's format and description
//	printColumnDescription=T
//	printColumnOrder=N         columns are sorted by N, those of one N
//	                           (0 when not given) in field order: -1
//	                           puts a status column before the spec's
//	selectableField            the field can be used in field selectors
//
// Value keys (minimum ... format, enum) on an array or a map apply to its
// items or values: `Tags []string crd:"maxItems=8,maxLength=63"` bounds
// the list and each tag.
package crd
