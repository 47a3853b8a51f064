// SPDX-License-Identifier: Apache-2.0

package podsub

import (
	"fmt"
	"strings"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/defaulting"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/validation"
)

// This file writes pods/ephemeralcontainers (kubectl debug), as the real
// server's ephemeral containers strategy and ValidatePodEphemeralContainersUpdate
// do: a write changes spec.ephemeralContainers only, which may gain
// containers but never lose or change one.

// notForEphemeral are the container fields an ephemeral container may
// not set, in the order of the Go struct the real validation walks.
var notForEphemeral = []string{"ports", "resources", "resizePolicy", "restartPolicy", "restartPolicyRules",
	"livenessProbe", "readinessProbe", "startupProbe", "lifecycle"}

// PrepareEphemeral is the Pod a write of pods/ephemeralcontainers stores:
// the stored old with the body o's spec.ephemeralContainers, defaulted
// as a Pod's; everything else in o (metadata, the rest of the spec,
// status) is ignored, as the real strategy ignores it.
func PrepareEphemeral(o, old map[string]any) map[string]any {
	next := unstructured.DeepCopy(old).(obj)
	spec := unstructured.Child(next, "spec", true)
	if list, ok := unstructured.Child(o, "spec", false)["ephemeralContainers"]; ok && list != nil {
		spec["ephemeralContainers"] = unstructured.DeepCopy(list)
	} else {
		delete(spec, "ephemeralContainers")
	}
	defaulting.Default("", "pods", next)
	return next
}

// ValidateEphemeral checks next, a Pod a write of its ephemeral
// containers makes of old: each ephemeral container as the real server
// checks it (a name unique among all containers, an image, a target
// container that is not ephemeral, none of the fields of
// notForEphemeral, no subPath), then that none of old's is removed or
// changed. Nil when the write is allowed.
func ValidateEphemeral(next, old map[string]any) []fielderr.Error {
	spec := unstructured.Child(next, "spec", false)
	others := map[string]bool{}
	for _, k := range []string{"containers", "initContainers"} {
		for _, c := range objects(spec[k]) {
			others[unstructured.String(c, "name")] = true
		}
	}
	volumes := map[string]bool{}
	for _, v := range objects(spec["volumes"]) {
		volumes[unstructured.String(v, "name")] = true
	}
	all := map[string]bool{}
	for n := range others {
		all[n] = true
	}
	var errs []fielderr.Error
	for i, ec := range objects(spec["ephemeralContainers"]) {
		path := fmt.Sprintf("spec.ephemeralContainers[%d]", i)
		errs = append(errs, containerErrors(path, ec, volumes)...)
		name := unstructured.String(ec, "name")
		if all[name] {
			errs = append(errs, fielderr.Error{Type: "FieldValueDuplicate", Field: path + ".name", Value: name})
		}
		all[name] = true
		if t := unstructured.String(ec, "targetContainerName"); t != "" && !others[t] {
			errs = append(errs, fielderr.Error{Type: "FieldValueNotFound", Field: path + ".targetContainerName", Value: t})
		}
		errs = append(errs, forbiddenErrors(path, ec)...)
	}
	return append(errs, changeErrors(spec, unstructured.Child(old, "spec", false))...)
}

// containerErrors are the errors of an ephemeral container's name,
// image and volume mounts' volumes (of the pod's volumes), as the
// common container validation words them.
func containerErrors(path string, ec obj, volumes map[string]bool) []fielderr.Error {
	var errs []fielderr.Error
	name := unstructured.String(ec, "name")
	if name == "" {
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: path + ".name"})
	}
	for _, msg := range validation.IsDNS1123Label(name) {
		if name != "" {
			errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".name", Value: name, Detail: msg})
		}
	}
	switch image := unstructured.String(ec, "image"); {
	case image == "":
		errs = append(errs, fielderr.Error{Type: "FieldValueRequired", Field: path + ".image"})
	case image != strings.TrimSpace(image):
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: path + ".image", Value: image,
			Detail: "must not have leading or trailing whitespace"})
	}
	for j, vm := range objects(ec["volumeMounts"]) {
		if v := unstructured.String(vm, "name"); !volumes[v] {
			errs = append(errs, fielderr.Error{Type: "FieldValueNotFound",
				Field: fmt.Sprintf("%s.volumeMounts[%d].name", path, j), Value: v})
		}
	}
	return errs
}

// forbiddenErrors are the errors of the fields an ephemeral container
// may not set, and of its volume mounts' subPaths.
func forbiddenErrors(path string, ec obj) []fielderr.Error {
	var errs []fielderr.Error
	for _, f := range notForEphemeral {
		if set(ec[f]) {
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: path + "." + f,
				Detail: "cannot be set for an Ephemeral Container"})
		}
	}
	for j, vm := range objects(ec["volumeMounts"]) {
		for _, f := range []string{"subPath", "subPathExpr"} {
			if unstructured.String(vm, f) != "" {
				errs = append(errs, fielderr.Error{Type: "FieldValueForbidden",
					Field:  fmt.Sprintf("%s.volumeMounts[%d].%s", path, j, f),
					Detail: "cannot be set for an Ephemeral Container"})
			}
		}
	}
	return errs
}

// changeErrors refuses the removal or change of an ephemeral container
// of old's spec in spec; the message of a change ends with the real
// server's diff of the container's internal Go form (goform.go).
func changeErrors(spec, oldSpec obj) []fielderr.Error {
	byName := map[string]obj{}
	for _, ec := range objects(spec["ephemeralContainers"]) {
		byName[unstructured.String(ec, "name")] = ec
	}
	var errs []fielderr.Error
	for _, prev := range objects(oldSpec["ephemeralContainers"]) {
		name := unstructured.String(prev, "name")
		cur, ok := byName[name]
		switch {
		case !ok:
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: "spec.ephemeralContainers",
				Detail: fmt.Sprintf("existing ephemeral containers %q may not be removed\n", name)})
		case !jsonpatch.Equal(prev, cur):
			errs = append(errs, fielderr.Error{Type: "FieldValueForbidden", Field: "spec.ephemeralContainers",
				Detail: fmt.Sprintf("existing ephemeral containers %q may not be changed\n%s", name,
					unifiedDiff(goForm(prev), goForm(cur)))})
		}
	}
	return errs
}

// set reports whether a field's value is set as Go's zero test sees it:
// not null, not an empty string, list or object.
func set(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case string:
		return t != ""
	case []any:
		return len(t) > 0
	case obj:
		return len(t) > 0
	}
	return true
}

// objects are the objects of v, a JSON list.
func objects(v any) []obj {
	list, _ := v.([]any)
	out := make([]obj, 0, len(list))
	for _, it := range list {
		if m, ok := it.(obj); ok {
			out = append(out, m)
		}
	}
	return out
}
