// SPDX-License-Identifier: Apache-2.0

package kubetest

import "net/http"

// This file answers TokenReviews (authentication.k8s.io/v1): whether a
// token is one of Options.Tokens, and whose. A review is not stored.

// tokenReviews is the resource path of TokenReviews.
var tokenReviews = resource{Group: "authentication.k8s.io", Version: "v1", Plural: "tokenreviews", Kind: "TokenReview"}

// apiAudience is the audience a token is valid for, as the harness's
// kube-apiserver reports it (its --service-account-issuer).
const apiAudience = "https://kubernetes.default.svc"

// isTokenReview reports whether info names the TokenReview collection.
func isTokenReview(info RequestInfo) bool {
	return info.Group == tokenReviews.Group && info.Version == tokenReviews.Version &&
		info.Resource == tokenReviews.Plural && info.Subresource == "" && info.Name == "" && info.Namespace == ""
}

// serveTokenReview answers a TokenReview as kube-apiserver 1.36 does:
// 201 with the spec as sent, the sender's managedFields, and a status
// that names the token's user (its uid, its groups as [Server] reports
// them in SelfSubjectReviews, the audience) or says "invalid bearer
// token"; a review without a token is a 400.
func (s *Server) serveTokenReview(w http.ResponseWriter, r *http.Request, info RequestInfo) {
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
	token, _ := spec["token"].(string)
	if token == "" {
		writeError(w, errBadRequest("token is required for TokenReview in authentication"))
		return
	}
	status := obj{"user": obj{}, "error": "invalid bearer token"}
	if name, ok := s.opts.Tokens[token]; ok {
		groups := []any{"system:authenticated"}
		if name == "admin" {
			groups = []any{"system:masters", "system:authenticated"}
		}
		user := obj{"username": name, "groups": groups}
		if uid := s.opts.UIDs[name]; uid != "" {
			user["uid"] = uid
		}
		status = obj{"authenticated": true, "user": user, "audiences": []any{apiAudience}}
	}
	out := obj{"kind": tokenReviews.Kind, "apiVersion": tokenReviews.apiVersion(), "spec": spec, "status": status}
	out["metadata"] = obj{"managedFields": []any{obj{"manager": managerOf(r), "operation": "Update",
		"apiVersion": out["apiVersion"], "time": nowString(), "fieldsType": "FieldsV1",
		"fieldsV1": obj{"f:spec": reviewFields(spec, false)}}}}
	writeJSON(w, http.StatusCreated, encodeObject(out))
}
