// SPDX-License-Identifier: Apache-2.0

package kubetest

import "net/http"

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"

// This file answers SelfSubjectAccessReviews (`kubectl auth can-i`): the
// one review of the authorization.k8s.io group kubetest serves. A review is
// not stored; its answer is what [Server.Deny] says about the requesting
// user. The group is listed in discovery (registry.answered), not in
// OpenAPI.

// accessReviews is the resource path of SelfSubjectAccessReviews, which
// [Server.serveResource] sends to serveAccessReview.
var accessReviews = resource{Group: "authorization.k8s.io", Version: "v1",
	Plural: "selfsubjectaccessreviews", Kind: "SelfSubjectAccessReview"}

// isAccessReview reports whether info names the SelfSubjectAccessReview
// collection.
func isAccessReview(info RequestInfo) bool {
	return info.Group == accessReviews.Group && info.Version == accessReviews.Version &&
		info.Resource == accessReviews.Plural && info.Subresource == "" && info.Name == ""
}

// serveAccessReview answers a SelfSubjectAccessReview as kube-apiserver
// does: 201 with the review, its spec as sent, metadata holding the
// sender's managedFields, and status.allowed. Resource attributes are
// checked against the denials of [Server.Deny] for the requesting user;
// non-resource attributes are always allowed (Deny names resources only).
// Every user may ask, whatever Deny says (the real server's default RBAC
// grants reviews to all authenticated users). Only POST is allowed; the
// review must name exactly one kind of attributes.
func (s *Server) serveAccessReview(w http.ResponseWriter, r *http.Request, info RequestInfo) {
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
	_, nonResource := spec["nonResourceAttributes"].(map[string]any)
	if (attrs == nil) == !nonResource {
		writeError(w, errInvalid(accessReviews.Group, "", "", []fielderr.Error{{Type: "FieldValueInvalid",
			Field: "spec.resourceAttributes", Value: spec["resourceAttributes"],
			Detail: "exactly one of nonResourceAttributes or resourceAttributes must be specified"}}))
		return
	}
	allowed := true
	if attrs != nil {
		str := func(k string) string { v, _ := attrs[k].(string); return v }
		asked := RequestInfo{User: info.User, Verb: str("verb"), Group: str("group"), Resource: str("resource"),
			Subresource: str("subresource"), Namespace: str("namespace"), Name: str("name")}
		allowed = s.authorize(asked) == nil
	}

	out := obj{"kind": accessReviews.Kind, "apiVersion": accessReviews.Group + "/" + accessReviews.Version,
		"spec": spec, "status": map[string]any{"allowed": allowed}}
	out["metadata"] = obj{"managedFields": []any{obj{"manager": managerOf(r), "operation": "Update",
		"apiVersion": out["apiVersion"], "time": nowString(), "fieldsType": "FieldsV1",
		"fieldsV1": obj{"f:spec": reviewFields(spec, false)}}}}
	writeJSON(w, http.StatusCreated, encodeObject(out))
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
