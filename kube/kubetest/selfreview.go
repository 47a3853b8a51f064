// SPDX-License-Identifier: Apache-2.0

package kubetest

import "net/http"

// This file answers the two reviews a user makes of itself: a
// SelfSubjectReview (authentication.k8s.io/v1, `kubectl auth whoami`) and
// a SelfSubjectRulesReview (authorization.k8s.io/v1, `kubectl auth can-i
// --list`). Neither is stored; discovery lists both (registry.answered),
// OpenAPI neither.
//
// kubetest's users are names (Options.Tokens), with the uids of
// Options.UIDs. User "admin"
// is reported in group system:masters, as the harness's admin is; every
// user is in system:authenticated. Rules are what [Server.Deny] leaves:
// the rules the real server's default RBAC grants every authenticated
// user, plus everything on everything for a user that no denial names
// (kubetest allows what it does not deny), as for system:masters. A user
// with some denials but not all is answered without the "*" rules and
// with incomplete set: Deny's exceptions cannot be written as rules.

// selfReviews and rulesReviews are the resource paths of the two reviews.
var (
	selfReviews  = resource{Group: "authentication.k8s.io", Version: "v1", Plural: "selfsubjectreviews", Kind: "SelfSubjectReview"}
	rulesReviews = resource{Group: "authorization.k8s.io", Version: "v1", Plural: "selfsubjectrulesreviews", Kind: "SelfSubjectRulesReview"}
)

// selfReviewOf returns which of the two reviews info names, nil for
// neither.
func selfReviewOf(info RequestInfo) *resource {
	for _, r := range []*resource{&selfReviews, &rulesReviews} {
		if info.Group == r.Group && info.Version == r.Version && info.Resource == r.Plural &&
			info.Subresource == "" && info.Name == "" {
			return r
		}
	}
	return nil
}

// serveSelfReview answers a POST of either review with 201, as
// kube-apiserver 1.36 does.
func (s *Server) serveSelfReview(w http.ResponseWriter, r *http.Request, info RequestInfo, res *resource) {
	if info.Verb != "create" {
		writeError(w, errMethodNotAllowed())
		return
	}
	out := obj{"kind": res.Kind, "apiVersion": res.apiVersion()}
	if res == &selfReviews {
		// Nothing of the body matters (kubectl sends it as protobuf, whose
		// layout kubetest does not hold), only that it can be read.
		if serr := checkBodyMediaType(r); serr != nil {
			writeError(w, serr)
			return
		}
		groups := []any{"system:authenticated"}
		if info.User == "admin" {
			groups = []any{"system:masters", "system:authenticated"}
		}
		out["metadata"] = obj{"creationTimestamp": nowString()}
		user := obj{"username": info.User, "groups": groups}
		if uid := s.opts.UIDs[info.User]; uid != "" {
			user["uid"] = uid
		}
		out["status"] = obj{"userInfo": user}
		writeJSON(w, http.StatusCreated, encodeObject(out))
		return
	}
	review, _, _, serr := decodeRequestObject(r, nil)
	if serr != nil {
		writeError(w, serr)
		return
	}
	spec, _ := review["spec"].(map[string]any)
	if ns, _ := spec["namespace"].(string); ns == "" {
		writeError(w, errBadRequest("no namespace on request"))
		return
	}
	out["metadata"], out["spec"] = obj{}, obj{}
	out["status"] = s.denials.Rules(info.User)
	writeJSON(w, http.StatusCreated, encodeObject(out))
}

// answeredResources are the reviews and Bindings (create only) and
// ComponentStatuses (get and list) as discovery lists them; none is
// stored.
func answeredResources() []*resource {
	var out []*resource
	for _, r := range []resource{selfReviews, tokenReviews, localReviews, accessReviews, rulesReviews, subjectReviews} {
		r.Singular, r.Verbs = r.Plural[:len(r.Plural)-1], []string{"create"}
		out = append(out, &r)
	}
	cs, b := componentStatuses, bindings
	return append(out, &cs, &b)
}
