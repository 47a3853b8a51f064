// SPDX-License-Identifier: Apache-2.0

package review

import (
	"bytes"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// access answers an access review of kind k: the review with its spec as
// sent, metadata holding the sender's managedFields (and the namespace of
// a local review), and status.allowed. Resource attributes are checked
// with [Server.Authorized] for the sender (self reviews) or spec.user
// (allowed outright when spec.groups holds system:masters); non-resource
// attributes (a path and a verb) likewise, against the denials of paths.
// The review must name exactly one kind of attributes, a subject review
// a user or a group, a local review the namespace of its path; its
// metadata must be empty (but for that namespace).
func access(k *Kind, req Request, s Server) (obj, *Refusal) {
	spec, _ := req.Body["spec"].(map[string]any)
	user, groups := req.User, []any{}
	if k != &Access {
		user, _ = spec["user"].(string)
		groups, _ = spec["groups"].([]any)
	}
	managed := managedFields(k, req, spec)
	if errs := invalidAccess(k, req, spec, user, groups, managed, s); len(errs) > 0 {
		return nil, &Refusal{Errors: errs}
	}
	allowed := slices.Contains(groups, any("system:masters"))
	if attrs, ok := spec["resourceAttributes"].(map[string]any); ok {
		str := func(k string) string { v, _ := attrs[k].(string); return v }
		allowed = allowed || s.Authorized(Attributes{User: user, Verb: str("verb"), Group: str("group"),
			Resource: str("resource"), Subresource: str("subresource"), Namespace: str("namespace"), Name: str("name")})
	} else {
		pathAttrs, _ := spec["nonResourceAttributes"].(map[string]any)
		path, _ := pathAttrs["path"].(string)
		verb, _ := pathAttrs["verb"].(string)
		allowed = allowed || !s.Denials().DeniesPath(user, groups, verb, path)
	}
	meta := obj{"managedFields": managed}
	if k.Namespaced {
		meta["namespace"] = req.Namespace
	}
	return obj{"kind": k.Kind, "apiVersion": k.APIVersion(), "metadata": meta,
		"spec": spec, "status": map[string]any{"allowed": allowed}}, nil
}

// invalidAccess returns what is wrong with an access review of kind k
// asked for user and groups, with managed the managedFields its metadata
// would show.
func invalidAccess(k *Kind, req Request, spec obj, user string, groups, managed []any, s Server) []fielderr.Error {
	attrs, _ := spec["resourceAttributes"].(map[string]any)
	nonResource, _ := spec["nonResourceAttributes"].(map[string]any)
	var errs []fielderr.Error
	const exactlyOne = "exactly one of nonResourceAttributes or resourceAttributes must be specified"
	switch {
	case (attrs == nil) != (nonResource == nil):
	case req.AttributesErrorAtSpec:
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec", Value: nonResource, Detail: exactlyOne})
	case attrs != nil:
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.nonResourceAttributes", Value: nonResource,
			Detail: "cannot be specified in combination with resourceAttributes"})
	default:
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.resourceAttributes", Value: nil, Detail: exactlyOne})
	}
	if k != &Access && user == "" && len(groups) == 0 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.user", Value: "",
			Detail: "at least one of user or group must be specified"})
	}
	if ns, _ := attrs["namespace"].(string); k == &Local && attrs != nil && ns != req.Namespace {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.resourceAttributes.namespace",
			Value: ns, Detail: "must match metadata.namespace"})
	}
	if meta := sentMetadata(req.Body); len(meta) > 0 {
		meta["managedFields"] = managed
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata",
			Value: sentMeta{raw: encodeMeta(meta), meta: meta}, Detail: "must be empty"})
	}
	return errs
}

// sentMetadata is the metadata of a review as sent, but its namespace
// (the path's, for a local review; dropped for the others, which are
// cluster-scoped) and managedFields (the server's own): what an access
// review must not have. nil when it has none.
func sentMetadata(review map[string]any) obj {
	sent, _ := review["metadata"].(map[string]any)
	var out obj
	for k, v := range sent {
		if k == "namespace" || k == "managedFields" || unstructured.IsEmpty(v) {
			continue
		}
		if out == nil {
			out = obj{}
		}
		out[k] = v
	}
	return out
}

// encodeMeta encodes metadata as the server orders it (encode.Meta).
func encodeMeta(meta map[string]any) []byte {
	var b bytes.Buffer
	encode.Meta(&b, meta)
	return b.Bytes()
}
