// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// This file answers the access reviews of authorization.k8s.io
// (SelfSubjectAccessReviews, `kubectl auth can-i`; SubjectAccessReviews;
// LocalSubjectAccessReviews). A review is not stored; its answer is what
// [Server.Deny] says about the user it names. The group is listed in
// discovery (registry.answered), not in OpenAPI.

// accessReviews, subjectReviews and localReviews are the resource paths
// of the access reviews, which [Server.serveResource] sends to
// serveAccessReview.
var (
	accessReviews = resource{Group: "authorization.k8s.io", Version: "v1",
		Plural: "selfsubjectaccessreviews", Kind: "SelfSubjectAccessReview"}
	subjectReviews = resource{Group: "authorization.k8s.io", Version: "v1",
		Plural: "subjectaccessreviews", Kind: "SubjectAccessReview"}
	localReviews = resource{Group: "authorization.k8s.io", Version: "v1",
		Plural: "localsubjectaccessreviews", Kind: "LocalSubjectAccessReview", Namespaced: true}
)

// accessReviewOf returns which access review collection info names, nil
// for none.
func accessReviewOf(info RequestInfo) *resource {
	for _, r := range []*resource{&accessReviews, &subjectReviews, &localReviews} {
		if info.Group == r.Group && info.Version == r.Version && info.Resource == r.Plural &&
			info.Subresource == "" && info.Name == "" && (info.Namespace != "") == r.Namespaced {
			return r
		}
	}
	return nil
}

// serveAccessReview answers an access review of kind res as
// kube-apiserver does: 201 with the review, its spec as sent, metadata
// holding the sender's managedFields (and the namespace of a local
// review), and status.allowed. Resource attributes are checked against
// the denials of [Server.Deny] for the requesting user (self reviews) or
// spec.user (allowed outright when spec.groups holds system:masters);
// non-resource attributes (a path and a verb) likewise, against the
// denials of paths.
// Every user may ask, whatever Deny says. Only POST is allowed; the
// review must name exactly one kind of attributes, a subject review a
// user or a group, a local review the namespace of its path; its
// metadata must be empty (but for that namespace).
func (s *Server) serveAccessReview(w http.ResponseWriter, r *http.Request, info RequestInfo, res *resource) {
	if info.Verb != "create" {
		writeError(w, errMethodNotAllowed())
		return
	}
	review, _, _, serr := decodeRequestObject(r, nil)
	if serr != nil {
		writeError(w, serr)
		return
	}
	spec, _ := review["spec"].(map[string]any)
	attrs, _ := spec["resourceAttributes"].(map[string]any)
	pathAttrs, nonResource := spec["nonResourceAttributes"].(map[string]any)
	user, groups := info.User, []any{}
	if res != &accessReviews {
		user, _ = spec["user"].(string)
		groups, _ = spec["groups"].([]any)
	}
	var errs []fielderr.Error
	if (attrs == nil) == !nonResource {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid",
			Field: "spec.resourceAttributes", Value: spec["resourceAttributes"],
			Detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified"})
	}
	if res != &accessReviews && user == "" && len(groups) == 0 {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.user", Value: "",
			Detail: "at least one of user or group must be specified"})
	}
	if ns, _ := attrs["namespace"].(string); res == &localReviews && attrs != nil && ns != info.Namespace {
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "spec.resourceAttributes.namespace",
			Value: ns, Detail: "must match metadata.namespace"})
	}
	managed := []any{obj{"manager": managerOf(r), "operation": "Update",
		"apiVersion": res.apiVersion(), "time": nowString(), "fieldsType": "FieldsV1",
		"fieldsV1": obj{"f:spec": reviewFields(spec, false)}}}
	if meta := sentMetadata(review); len(meta) > 0 {
		meta["managedFields"] = managed
		var b bytes.Buffer
		writeMeta(&b, meta)
		errs = append(errs, fielderr.Error{Type: "FieldValueInvalid", Field: "metadata",
			Value: json.RawMessage(b.Bytes()), Detail: "must be empty"})
	}
	if len(errs) > 0 {
		writeError(w, errInvalid(accessReviews.Group, "", "", errs))
		return
	}
	allowed := true
	if attrs != nil {
		str := func(k string) string { v, _ := attrs[k].(string); return v }
		asked := RequestInfo{User: user, Verb: str("verb"), Group: str("group"), Resource: str("resource"),
			Subresource: str("subresource"), Namespace: str("namespace"), Name: str("name")}
		allowed = slices.Contains(groups, any("system:masters")) || s.authorize(asked) == nil
	} else {
		path, _ := pathAttrs["path"].(string)
		verb, _ := pathAttrs["verb"].(string)
		allowed = slices.Contains(groups, any("system:masters")) || !s.denials.DeniesPath(user, groups, verb, path)
	}

	out := obj{"kind": res.Kind, "apiVersion": res.apiVersion(),
		"spec": spec, "status": map[string]any{"allowed": allowed}}
	meta := obj{"managedFields": managed}
	if res.Namespaced {
		meta["namespace"] = info.Namespace
	}
	out["metadata"] = meta
	writeJSON(w, http.StatusCreated, encodeObject(out))
}

// sentMetadata is the metadata of a review as sent, but its namespace
// (the path's, for a local review; dropped for the others, which are
// cluster-scoped) and managedFields (the server's own): what an access
// review must not have. nil when it has none.
func sentMetadata(review map[string]any) obj {
	sent, _ := review["metadata"].(map[string]any)
	var out obj
	for k, v := range sent {
		if k == "namespace" || k == "managedFields" || isEmptyValue(v) {
			continue
		}
		if out == nil {
			out = obj{}
		}
		out[k] = v
	}
	return out
}

// reviewFields is the fieldsV1 of a review's spec as the real field
// manager records it: a field for each key, and "." in every object below
// spec (pointers to structs in the Go types; spec itself is a struct).
func reviewFields(m map[string]any, dot bool) obj {
	out := obj{}
	if dot {
		out["."] = obj{}
	}
	for k, v := range m {
		if sub, ok := v.(map[string]any); ok {
			out["f:"+k] = reviewFields(sub, true)
		} else {
			out["f:"+k] = obj{}
		}
	}
	return out
}
