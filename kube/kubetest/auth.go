// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
)

// This file authenticates bearer tokens (Options.Tokens) and authorizes
// requests against the denials set with [Server.Deny], which package
// authz keeps. Everything not denied is allowed: there is no RBAC.

// authenticate returns the user r is made by (authz.Authenticate): with
// tokens configured, a request without one may only read health and
// /version, and a wrong token is always refused.
func (s *Server) authenticate(r *http.Request, info RequestInfo) (string, *kube.StatusError) {
	public := !info.IsResourceRequest && authz.PublicPath(info.Path)
	user, ok := authz.Authenticate(s.opts.Tokens, r.Header.Get("Authorization"), public)
	if !ok {
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
	msg := authz.ForbiddenMessage(info.User, info.Verb, resource, info.Group, info.Namespace)
	name := info.Name
	if info.Verb == "watch" || info.Verb == "list" {
		name = ""
	}
	return errForbidden(info.Group, info.Resource, name, msg)
}

// tokenFor returns a token of user, or "" (authz.TokenFor).
func (s *Server) tokenFor(user string) string { return authz.TokenFor(s.opts.Tokens, user) }

// defaultToken is the token [Server.Config] uses (authz.DefaultToken).
func (s *Server) defaultToken() string { return authz.DefaultToken(s.opts.Tokens) }
