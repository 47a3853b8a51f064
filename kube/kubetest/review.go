// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/review"
)

// This file gives package review, which serves the reviews (access
// reviews, SelfSubjectReviews, SelfSubjectRulesReviews, TokenReviews),
// the server (reviewServer). No review is stored; discovery lists
// them all (registry.answered), OpenAPI none.

// reviewOf returns which review collection info names, nil for none.
func reviewOf(info RequestInfo) *review.Kind {
	return review.Of(info.Group, info.Version, info.Resource, info.Subresource, info.Name, info.Namespace)
}

// serveReview answers a POST of a review of kind k (review.Serve).
func (s *Server) serveReview(w http.ResponseWriter, r *http.Request, info RequestInfo, k *review.Kind) {
	req := review.Request{User: info.User, Namespace: info.Namespace, Now: nowString(),
		AttributesErrorAtSpec: s.facts.AccessReviewErrorAtSpec, NullCreationTimestamp: s.facts.NullCreationTimestamp,
		GoSyntaxValues: s.facts.GoSyntaxValues}
	review.Serve(w, r, info.Verb, k, req, reviewServer{s}, func(r *http.Request) (map[string]any, *kube.StatusError) {
		o, _, _, err := decodeRequestObject(r, nil)
		return o, err
	})
}

// reviewServer is the server as the review answers see it
// (review.Server).
type reviewServer struct{ s *Server }

func (v reviewServer) Denials() *authz.Denials { return &v.s.denials }

func (v reviewServer) Authorized(a review.Attributes) bool {
	return v.s.denials.Check(authz.Attributes(a)) == nil
}

func (v reviewServer) UserOf(token string) (string, bool) {
	if user, ok := v.s.opts.Tokens[token]; ok {
		return user, ok
	}
	return v.s.serviceAccountUser(token)
}

func (v reviewServer) UID(user string) string { return v.s.userUID(user) }

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
