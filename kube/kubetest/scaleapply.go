// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves server-side apply of a Scale (PATCH .../scale with
// application/apply-patch+yaml), as kube-apiserver 1.36.3 does:
//   - of a Deployment (or another built-in kind with a scale), the
//     Scale's spec.replicas is applied to the object's spec replicas by
//     the field manager, recorded as an Apply entry of subresource
//     "scale" (without a time); a field another manager owns conflicts
//     (409, the manager named "using autoscaling/v1", the field
//     .spec.replicas) unless force=true; the answer is the Scale;
//   - of a custom resource, the real server fails to convert the Scale
//     to the resource's version: after the same conflict check it
//     answers 500 and changes nothing.

// serveScaleApply answers an apply of c's Scale.
func (s *Server) serveScaleApply(c *call) {
	if c.q.Get("fieldManager") == "" {
		apierr.Write(c.w, apierr.Invalid("meta.k8s.io", "PatchOptions", "", []fielderr.Error{{
			Type: "FieldValueRequired", Field: "fieldManager", Detail: "is required for apply patch"}}))
		return
	}
	body, serr := readBody(c.r)
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	config, err := patch.ParseApply(body)
	if err != nil {
		apierr.Write(c.w, apierr.BadRequest("error decoding YAML: "+err.Error()))
		return
	}
	if av, kind := unstructured.String(config, "apiVersion"), unstructured.String(config, "kind"); av != "autoscaling/v1" || kind != "Scale" {
		apierr.Write(c.w, apierr.BadRequest("invalid object type: "+gvkString(av, kind)))
		return
	}
	parent, serr := c.scaleApplyParent(config)
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	wr := c.write()
	wr.apply, wr.force = true, queryBool(c.q, "force")
	custom := c.res.CRD != ""
	wr.dryRun = wr.dryRun || custom
	var out updateResult
	var unowned bool
	s.withLock(func() {
		prev := c.col.objects[c.key()]
		if custom && prev != nil && !ownsPath(mustDecode(prev.raw), c.res.Scale.SpecReplicas) {
			unowned = true // the Scale has no managedFields to convert
			return
		}
		out, serr = s.applyLocked(wr, parent)
	})
	switch {
	case unowned:
		apierr.Write(c.w, errScaleConvert("failed to create manager for existing fields: failed to convert live object (/; autoscaling/v1, Kind=Scale)"))
	case serr != nil:
		apierr.Write(c.w, c.scaleConflict(serr))
	case custom:
		apierr.Write(c.w, errScaleConvert(fmt.Sprintf("failed to convert new object (%s/%s; autoscaling/v1, Kind=Scale)",
			unstructured.String(unstructured.Metadata(config), "namespace"), c.info.Name)))
	default:
		c.respondScale(out.rec)
	}
}

// scaleApplyParent turns a Scale apply configuration into one of the
// scaled object: its name and namespace, and its spec replicas where
// the kind keeps them when the Scale sets spec.replicas.
func (c *call) scaleApplyParent(config obj) (obj, *kube.StatusError) {
	meta := unstructured.Metadata(config)
	if name := unstructured.String(meta, "name"); name != "" && name != c.info.Name {
		return nil, apierr.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, c.info.Name))
	}
	parentMeta := obj{"name": c.info.Name}
	if c.res.Namespaced {
		parentMeta["namespace"] = c.info.Namespace
	}
	parent := obj{"apiVersion": c.res.apiVersion(), "kind": c.res.Kind, "metadata": parentMeta}
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
		return nil, apierr.Invalid("autoscaling", "Scale", c.info.Name, []fielderr.Error{{Type: "FieldValueInvalid",
			Field: "spec.replicas", Value: n, Detail: "must be greater than or equal to 0"}})
	}
	scale.SetField(parent, c.res.Scale.SpecReplicas, n)
	return parent, nil
}

// scaleConflict rewrites an apply conflict on the scaled object as the
// real server reports it on the Scale: every manager "using
// autoscaling/v1", the field .spec.replicas.
func (c *call) scaleConflict(serr *kube.StatusError) *kube.StatusError {
	if serr.Status.Reason != kube.ReasonConflict || serr.Status.Details == nil {
		return serr
	}
	field := "." + strings.TrimPrefix(c.res.Scale.SpecReplicas, ".")
	fix := func(s string) string {
		s = strings.ReplaceAll(s, "using "+c.res.apiVersion(), "using autoscaling/v1")
		return strings.ReplaceAll(s, field, ".spec.replicas")
	}
	serr.Status.Message = fix(serr.Status.Message)
	for i := range serr.Status.Details.Causes {
		cause := &serr.Status.Details.Causes[i]
		cause.Message, cause.Field = fix(cause.Message), fix(cause.Field)
	}
	return serr
}

// errScaleConvert is the real server's 500 for an apply of a custom
// resource's Scale: what failed, then the conversion's error.
func errScaleConvert(what string) *kube.StatusError {
	return apierr.New(http.StatusInternalServerError, "",
		what+" to proper version: request to convert CR to an invalid group/version: autoscaling/v1", nil)
}

// ownsPath reports whether a managedFields entry of o owns the field at
// the dotted path p (".spec.replicas").
func ownsPath(o obj, p string) bool {
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
