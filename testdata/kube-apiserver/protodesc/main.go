// SPDX-License-Identifier: Apache-2.0

// Command protodesc writes the protobuf layout of the built-in kinds that
// kube/kubetest serves, as JSON, from the Go types of k8s.io/api (the
// version in this module's go.mod): kubetest decodes protobuf request
// bodies with it. Regenerate after an upgrade, from this directory:
//
//	GOWORK=off go run ./protodesc > ../../kube/kubetest/internal/protobuf/protobuf.json
//
// The output maps "apiVersion/Kind" to a message name, and each message
// name to its fields: [number, JSON name, kind, message, flags]. kind is
// string, bytes, bool, int32, int64, uint32, uint64, double, message, map,
// or a type with its own wire form (time, microtime, duration, quantity,
// intorstring, raw, fieldsv1). message names the message of a message
// field, or for a map "KEYKIND VALUEKIND [MESSAGE]". flags: r repeated, z
// dropped from JSON when zero (omitempty and not a pointer), i inlined into
// the parent's JSON.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"

	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/scheme"
)

// metaPath is the package of the kinds every group version registers
// (options, WatchEvent, Status): only those listed in metaKinds are roots.
const metaPath = "k8s.io/apimachinery/pkg/apis/meta/v1"

// metaKinds are the kinds of meta.k8s.io the server writes or reads in
// protobuf beside the objects: errors, watch events, the metadata
// projection.
var metaKinds = map[string]reflect.Type{
	"v1/Status":                                reflect.TypeFor[metav1.Status](),
	"meta.k8s.io/v1/Status":                    reflect.TypeFor[metav1.Status](),
	"meta.k8s.io/v1/WatchEvent":                reflect.TypeFor[metav1.WatchEvent](),
	"meta.k8s.io/v1/PartialObjectMetadata":     reflect.TypeFor[metav1.PartialObjectMetadata](),
	"meta.k8s.io/v1/PartialObjectMetadataList": reflect.TypeFor[metav1.PartialObjectMetadataList](),
}

// schemes hold the built-in kinds: client-go's (all built-in group
// versions, their lists and the subresource kinds: Scale, Eviction,
// Binding, TokenRequest...), and those of the API server's two other
// servers, apiextensions (CustomResourceDefinition) and the aggregator
// (APIService), which it also serves in protobuf.
var schemes = []*runtime.Scheme{scheme.Scheme, apiextensionsscheme.Scheme, aggregatorscheme.Scheme}

// roots are every kind of schemes that has a protobuf form, keyed
// "apiVersion/Kind", and metaKinds. Custom resources have none: kubetest
// serves them as JSON only, as the real server does.
func roots() map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for _, s := range schemes {
		for gvk, t := range s.AllKnownTypes() {
			if t.PkgPath() == metaPath || !hasProtobuf(t) {
				continue
			}
			out[gvk.GroupVersion().String()+"/"+gvk.Kind] = t
		}
	}
	for k, t := range metaKinds {
		out[k] = t
	}
	return out
}

// hasProtobuf reports whether struct type t has a protobuf form.
func hasProtobuf(t reflect.Type) bool {
	for i := range t.NumField() {
		if tag := t.Field(i).Tag.Get("protobuf"); tag != "" && tag != "-" {
			return true
		}
	}
	return false
}

// special are the types with a wire form of their own, by package path and
// name.
var special = map[string]string{
	"k8s.io/apimachinery/pkg/apis/meta/v1.Time":                          "time",
	"k8s.io/apimachinery/pkg/apis/meta/v1.MicroTime":                     "microtime",
	"k8s.io/apimachinery/pkg/apis/meta/v1.Duration":                      "duration",
	"k8s.io/apimachinery/pkg/apis/meta/v1.FieldsV1":                      "fieldsv1",
	"k8s.io/apimachinery/pkg/api/resource.Quantity":                      "quantity",
	"k8s.io/apimachinery/pkg/util/intstr.IntOrString":                    "intorstring",
	"k8s.io/apimachinery/pkg/runtime.RawExtension":                       "raw",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1.JSON":      "raw",
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1.JSON": "raw",
}

type layout struct {
	Kinds    map[string]string  `json:"kinds"`
	Messages map[string][][]any `json:"messages"`
}

func main() {
	out := layout{Kinds: map[string]string{}, Messages: map[string][][]any{}}
	for k, t := range roots() {
		out.Kinds[k] = message(out.Messages, t)
	}
	// One message per line, sorted, so that a regeneration diffs well.
	names := make([]string, 0, len(out.Messages))
	for n := range out.Messages {
		names = append(names, n)
	}
	sort.Strings(names)
	kinds, _ := json.Marshal(out.Kinds)
	fmt.Printf("{\"kinds\":%s,\n\"messages\":{\n", kinds)
	for i, n := range names {
		fields, _ := json.Marshal(out.Messages[n])
		sep := ","
		if i == len(names)-1 {
			sep = ""
		}
		fmt.Printf("%q:%s%s\n", n, fields, sep)
	}
	fmt.Println("}}")
}

// typeName shortens a Go type's package path for the message name.
func typeName(t reflect.Type) string {
	p := t.PkgPath()
	for _, prefix := range []string{"k8s.io/api/", "k8s.io/apimachinery/pkg/apis/", "k8s.io/apiextensions-apiserver/pkg/apis/", "k8s.io/kube-aggregator/pkg/apis/"} {
		p = strings.TrimPrefix(p, prefix)
	}
	return p + "." + t.Name()
}

// message records the layout of struct type t (and of the messages it
// holds) and returns its name.
func message(msgs map[string][][]any, t reflect.Type) string {
	name := typeName(t)
	if _, done := msgs[name]; done {
		return name
	}
	msgs[name] = nil // mark as in progress: types may refer to themselves
	var fields [][]any
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("protobuf")
		if tag == "" || tag == "-" {
			continue // TypeMeta travels in the envelope
		}
		parts := strings.Split(tag, ",")
		num, err := strconv.Atoi(parts[1])
		if err != nil {
			fail("%s.%s: protobuf tag %q", name, f.Name, tag)
		}
		jsonName, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if jsonName == "-" {
			continue
		}
		var flags string
		if _, hasJSON := f.Tag.Lookup("json"); !hasJSON {
			// a type with a JSON form of its own (JSONSchemaPropsOrBool):
			// its JSON is whichever of its fields is set
			flags, jsonName = "o", protoName(parts)
		}
		ft := f.Type
		pointer := ft.Kind() == reflect.Pointer
		if pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
			flags += "r"
			ft = ft.Elem()
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
		case strings.Contains(opts, "omitempty") && !pointer:
			flags += "z"
		}
		if strings.Contains(opts, "inline") {
			flags += "i"
		}
		kind, ref := fieldKind(msgs, ft, name+"."+f.Name)
		fields = append(fields, []any{num, jsonName, kind, ref, flags})
	}
	msgs[name] = fields
	return name
}

// fieldKind returns the kind of a (dereferenced, element) field type, and
// its message or map description.
func fieldKind(msgs map[string][][]any, t reflect.Type, where string) (kind, ref string) {
	if s, ok := special[t.PkgPath()+"."+t.Name()]; ok {
		return s, ""
	}
	switch t.Kind() {
	case reflect.String:
		return "string", ""
	case reflect.Bool:
		return "bool", ""
	case reflect.Int32:
		return "int32", ""
	case reflect.Int64, reflect.Int:
		return "int64", ""
	case reflect.Uint32:
		return "uint32", ""
	case reflect.Uint64:
		return "uint64", ""
	case reflect.Float64:
		return "double", ""
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return "bytes", ""
		}
		if t.Name() != "" { // a named list (ExtraValue) is a message of its items
			return "message", wrapper(msgs, t, where)
		}
	case reflect.Struct:
		return "message", message(msgs, t)
	case reflect.Map:
		k, _ := fieldKind(msgs, t.Key(), where)
		vt := t.Elem()
		if vt.Kind() == reflect.Pointer {
			vt = vt.Elem()
		}
		v, vref := fieldKind(msgs, vt, where)
		return "map", strings.TrimSpace(k + " " + v + " " + vref)
	}
	fail("%s: unsupported type %s", where, t)
	return "", ""
}

// protoName is the name= of a protobuf tag's parts.
func protoName(parts []string) string {
	for _, p := range parts {
		if n, ok := strings.CutPrefix(p, "name="); ok {
			return n
		}
	}
	return ""
}

// wrapper records the message of a named list type (a map's value, as
// ExtraValue): its items as field 1, flagged "a" because the JSON form is
// the list itself.
func wrapper(msgs map[string][][]any, t reflect.Type, where string) string {
	name := typeName(t)
	if _, done := msgs[name]; !done {
		kind, ref := fieldKind(msgs, t.Elem(), where)
		msgs[name] = [][]any{{1, "items", kind, ref, "ra"}}
	}
	return name
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "protodesc: "+format+"\n", args...)
	os.Exit(1)
}
