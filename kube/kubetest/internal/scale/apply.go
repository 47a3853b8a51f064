// SPDX-License-Identifier: Apache-2.0

package scale

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file holds what server-side apply of a Scale (PATCH .../scale
// with application/apply-patch+yaml) needs besides the apply itself, as
// kube-apiserver 1.36.3 answers it: the configuration read and checked,
// turned into one of the scaled object, and the conflicts and errors
// worded as on the Scale.

// Target is the object whose Scale is written: its name and namespace
// (from the URL), its apiVersion and kind, where it keeps its spec
// replicas (Paths.SpecReplicas), its resource's group and plural, and
// whether it is a custom resource.
type Target struct {
	Name, Namespace  string
	Namespaced       bool
	APIVersion, Kind string
	SpecReplicasPath string
	Group, Plural    string
	Custom           bool
}

// ParseApply reads the body of a Scale apply by fieldManager: a 422 when
// fieldManager is empty, a 400 when the body is not YAML or not an
// autoscaling/v1 Scale.
func ParseApply(fieldManager string, body []byte) (obj, *kube.StatusError) {
	if fieldManager == "" {
		return nil, apierr.Invalid("meta.k8s.io", "PatchOptions", "", []fielderr.Error{{
			Type: "FieldValueRequired", Field: "fieldManager", Detail: "is required for apply patch"}})
	}
	config, err := patch.ParseApply(body)
	if err != nil {
		return nil, apierr.BadRequest("error decoding YAML: " + err.Error())
	}
	if av, kind := unstructured.String(config, "apiVersion"), unstructured.String(config, "kind"); av != "autoscaling/v1" || kind != "Scale" {
		if !strings.Contains(av, "/") {
			av = "/" + av
		}
		return nil, apierr.BadRequest("invalid object type: " + av + ", Kind=" + kind)
	}
	return config, nil
}

// ApplyParent turns a Scale apply configuration into one of the scaled
// object t: its name and namespace, and its spec replicas where the kind
// keeps them when the Scale sets spec.replicas.
func ApplyParent(config obj, t Target) (obj, *kube.StatusError) {
	meta := unstructured.Metadata(config)
	if name := unstructured.String(meta, "name"); name != "" && name != t.Name {
		return nil, apierr.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, t.Name))
	}
	parentMeta := obj{"name": t.Name}
	if t.Namespaced {
		parentMeta["namespace"] = t.Namespace
	}
	parent := obj{"apiVersion": t.APIVersion, "kind": t.Kind, "metadata": parentMeta}
	spec, _ := config["spec"].(obj)
	v, ok := spec["replicas"]
	if !ok {
		return parent, nil
	}
	n, isInt := unstructured.IntegerValue(v)
	if !isInt {
		return nil, apierr.BadRequest(fmt.Sprintf("spec.replicas: %v is not an integer", v))
	}
	if n < 0 {
		return nil, apierr.Invalid("autoscaling", "Scale", t.Name, []fielderr.Error{{Type: "FieldValueInvalid",
			Field: "spec.replicas", Value: n, Detail: "must be greater than or equal to 0"}})
	}
	SetField(parent, t.SpecReplicasPath, n)
	return parent, nil
}

// Conflict rewrites an apply conflict on the scaled object t as the real
// server reports it on the Scale: every manager "using autoscaling/v1",
// the field .spec.replicas. It changes serr and returns it.
func Conflict(serr *kube.StatusError, t Target) *kube.StatusError {
	if serr.Status.Reason != kube.ReasonConflict || serr.Status.Details == nil {
		return serr
	}
	field := "." + strings.TrimPrefix(t.SpecReplicasPath, ".")
	fix := func(s string) string {
		s = strings.ReplaceAll(s, "using "+t.APIVersion, "using autoscaling/v1")
		return strings.ReplaceAll(s, field, ".spec.replicas")
	}
	serr.Status.Message = fix(serr.Status.Message)
	for i := range serr.Status.Details.Causes {
		cause := &serr.Status.Details.Causes[i]
		cause.Message, cause.Field = fix(cause.Message), fix(cause.Field)
	}
	return serr
}

// ErrConvert is the real server's 500 for an apply of a custom
// resource's Scale: what failed, then the conversion's error.
func ErrConvert(what string) *kube.StatusError {
	return apierr.New(http.StatusInternalServerError, "",
		what+" to proper version: request to convert CR to an invalid group/version: autoscaling/v1", nil)
}

// OwnsPath reports whether a managedFields entry of o owns the field at
// the dotted path p (".spec.replicas").
func OwnsPath(o obj, p string) bool {
	entries, _ := unstructured.Metadata(o)["managedFields"].([]any)
	for _, e := range entries {
		entry, _ := e.(obj)
		var node any = unstructured.Child(entry, "fieldsV1", false)
		for _, seg := range strings.Split(strings.TrimPrefix(p, "."), ".") {
			m, _ := node.(obj)
			node = m["f:"+seg]
		}
		if _, ok := node.(obj); ok {
			return true
		}
	}
	return false
}
