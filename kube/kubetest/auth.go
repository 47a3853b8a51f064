// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
)

// This file authenticates bearer tokens (Options.Tokens) and authorizes
// requests against the denials set with [Server.Deny], which package
// authz keeps. Everything not denied is allowed: there is no RBAC.

// authenticate returns the user r is made by. A service account token
// a TokenRequest issued is that service account. Without configured
// tokens everyone else is "admin". With tokens, a request without one is anonymous and
// may only read health and /version (as anonymous requests may by default);
// a wrong token is always refused.
func (s *Server) authenticate(r *http.Request, info RequestInfo) (string, *kube.StatusError) {
	if token := bearerToken(r); token != "" && s.opts.Tokens[token] == "" {
		if user, ok := s.serviceAccountUser(token); ok {
			return user, nil
		}
	}
	if len(s.opts.Tokens) == 0 {
		return "admin", nil
	}
	h := r.Header.Get("Authorization")
	if h == "" {
		if !info.IsResourceRequest && authz.PublicPath(info.Path) {
			return "system:anonymous", nil
		}
		return "", errUnauthorized()
	}
	token, ok := strings.CutPrefix(h, "Bearer ")
	user, found := s.opts.Tokens[strings.TrimSpace(token)]
	if !ok || !found {
		return "", errUnauthorized()
	}
	return user, nil
}

func errUnauthorized() *kube.StatusError {
	return statusError(http.StatusUnauthorized, kube.ReasonUnauthorized, "Unauthorized", nil)
}

// Deny makes the server refuse verb on resource to user with 403 Forbidden,
// as RBAC would. verb is a [RequestInfo] verb (get, list, watch, create,
// update, patch, delete, deletecollection); resource is the plural,
// qualified by its group outside the core group and followed by
// "/status" for the subresource ("configmaps", "deployments.apps",
// "deployments.apps/status"). Either may be "*". A resource beginning
// with "/" is a non-resource URL ("/metrics"), which SubjectAccessReviews
// ask about (a caller of a program's own endpoint, authorized by the API
// server): "*" matches those too, except the paths RBAC's default roles
// let every authenticated user get (health, /version, discovery and
// OpenAPI), for a review that names the group system:authenticated.
func (s *Server) Deny(user, verb, resource string) {
	s.denials.Deny(user, verb, resource)
}

// Allow undoes [Server.Deny] with the same arguments.
func (s *Server) Allow(user, verb, resource string) {
	s.denials.Allow(user, verb, resource)
}

// authorize refuses a request that a denial matches, with the real
// server's message.
func (s *Server) authorize(info RequestInfo) *kube.StatusError {
	res := qualified(info.Group, info.Resource)
	if info.Subresource != "" {
		res += "/" + info.Subresource
	}
	if !s.denials.Denies(info.User, info.Verb, res) {
		return nil
	}
	resource := info.Resource
	if info.Subresource != "" {
		resource += "/" + info.Subresource
	}
	var msg string
	if info.Namespace != "" {
		msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
			info.User, info.Verb, resource, info.Group, info.Namespace)
	} else {
		msg = fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
			info.User, info.Verb, resource, info.Group)
	}
	name := info.Name
	if info.Verb == "watch" || info.Verb == "list" {
		name = ""
	}
	return errForbidden(info.Group, info.Resource, name, msg)
}

// tokenFor returns a token of user, the lexically first if there are
// several, or "" when none is configured.
func (s *Server) tokenFor(user string) string {
	var tokens []string
	for t, u := range s.opts.Tokens {
		if u == user {
			tokens = append(tokens, t)
		}
	}
	if len(tokens) == 0 {
		return ""
	}
	slices.Sort(tokens)
	return tokens[0]
}

// defaultToken is the token [Server.Config] uses: one of user "admin", or
// the lexically first token.
func (s *Server) defaultToken() string {
	if t := s.tokenFor("admin"); t != "" {
		return t
	}
	var tokens []string
	for t := range s.opts.Tokens {
		tokens = append(tokens, t)
	}
	slices.Sort(tokens)
	if len(tokens) == 0 {
		return ""
	}
	return tokens[0]
}
