// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"bytes"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/review"
)

// This file serves the reviews package review answers (access reviews,
// SelfSubjectReviews, SelfSubjectRulesReviews, TokenReviews): it reads
// the request and writes the answer. No review is stored; discovery lists
// them all (registry.answered), OpenAPI none.

// reviewOf returns which review collection info names, nil for none.
func reviewOf(info RequestInfo) *review.Kind {
	return review.Of(info.Group, info.Version, info.Resource, info.Subresource, info.Name, info.Namespace)
}

// serveReview answers a POST of a review of kind k with 201 (any other
// verb is a 405); what is refused is a 400 or a 422.
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request, info RequestInfo, k *review.Kind) {
	if info.Verb != "create" {
		apierr.Write(w, apierr.MethodNotAllowed())
		return
	}
	req := review.Request{User: info.User, Namespace: info.Namespace, Manager: media.ManagerOf(r), Now: nowString(),
		AttributesErrorAtSpec: s.facts.AccessReviewErrorAtSpec, NullCreationTimestamp: s.facts.NullCreationTimestamp}
	var serr *kube.StatusError
	if k == &review.Self {
		// Nothing of the body matters (kubectl sends it as protobuf, whose
		// layout kubetest does not hold), only that it can be read.
		serr = media.CheckBody(r)
	} else {
		req.Body, _, _, serr = decodeRequestObject(r, nil)
	}
	if serr != nil {
		apierr.Write(w, serr)
		return
	}
	out, refused := review.Answer(k, req, reviewServer{s})
	switch {
	case refused == nil:
		apierr.WriteJSON(w, http.StatusCreated, encodeObject(out))
	case refused.Errors != nil:
		apierr.Write(w, apierr.Invalid(k.Group, "", "", fielderr.InGoSyntax(refused.Errors, s.facts.GoSyntaxValues)))
	default:
		apierr.Write(w, apierr.BadRequest(refused.Message))
	}
}

// reviewServer is the server as the review answers see it
// (review.Server).
type reviewServer struct{ s *Server }

func (v reviewServer) Denials() *authz.Denials { return &v.s.denials }

func (v reviewServer) Authorized(a review.Attributes) bool {
	return v.s.authorize(RequestInfo{User: a.User, Verb: a.Verb, Group: a.Group, Resource: a.Resource,
		Subresource: a.Subresource, Namespace: a.Namespace, Name: a.Name}) == nil
}

func (v reviewServer) UserOf(token string) (string, bool) {
	if user, ok := v.s.opts.Tokens[token]; ok {
		return user, ok
	}
	return v.s.serviceAccountUser(token)
}

func (v reviewServer) UID(user string) string { return v.s.userUID(user) }

func (v reviewServer) EncodeMeta(meta map[string]any) []byte {
	var b bytes.Buffer
	writeMeta(&b, meta)
	return b.Bytes()
}

// answeredResources are the reviews and Bindings (create only) and
// ComponentStatuses (get and list) as discovery lists them; none is
// stored.
func answeredResources() []*resource {
	var out []*resource
	for _, k := range review.All() {
		out = append(out, &resource{Resource: kinds.Resource{Group: k.Group, Version: k.Version, Plural: k.Plural, Kind: k.Kind,
			Namespaced: k.Namespaced, Singular: k.Plural[:len(k.Plural)-1], Verbs: []string{"create"}}})
	}
	cs, b := componentStatuses, bindings
	return append(out, &cs, &b)
}
