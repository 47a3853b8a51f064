// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/authz"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/rbac"
)

// This file authenticates bearer tokens (Options.Tokens) and authorizes
// requests against the denials set with [Server.Deny], which package
// authz keeps. Everything not denied is allowed: there is no RBAC.

// authenticate returns the user r is made by: the service account of a
// token a TokenRequest issued, else as authz.Authenticate says (with
// tokens configured, a request without one may only read health and
// /version, and a wrong token is always refused): authz.AuthenticateRequest.
func (s *Server) authenticate(r *http.Request, info RequestInfo) (string, *kube.StatusError) {
	public := !info.IsResourceRequest && authz.PublicPath(info.Path)
	return authz.AuthenticateRequest(s.opts.Tokens, r.Header.Get("Authorization"), public, s.serviceAccountUser)
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
// server's message (authz.Denials.Check).
func (s *Server) authorize(info RequestInfo) *kube.StatusError {
	return s.denials.Check(authz.Attributes{User: info.User, Verb: info.Verb, Group: info.Group, Resource: info.Resource,
		Subresource: info.Subresource, Namespace: info.Namespace, Name: info.Name})
}

// Roles returns the smallest RBAC roles, as YAML documents, that allow
// every request user made of the server since it started or since
// [Server.ResetCounts], refused ones included (a request a test made
// forbidden with [Server.Deny] is still one the program makes): a
// ClusterRole named name for the requests outside any namespace
// (cluster-scoped kinds, lists and watches across namespaces,
// non-resource URLs such as /metrics), and a Role named name in each
// namespace for the requests made there that the ClusterRole does not
// allow. Each rule gives the verbs asked of the resources of one API
// group that were asked exactly those verbs. What RBAC's default roles
// let every authenticated user do (discovery, /version, health,
// SelfSubjectAccessReviews) is left out; resourceNames are never set. A
// user's first 10,000 distinct requests are kept (the YAML says when
// more were left out). "" means the user made no request that needs a
// role. Bind it to the program's identity as it runs in the cluster: a
// test's record is the permission its program needs for what the test
// made it do.
func (s *Server) Roles(user, name string) string {
	return s.asked.Roles(user, name, false)
}

// ClusterRole is [Server.Roles] with every namespace's requests folded
// into the ClusterRole: one role, for a program that does in any
// namespace what a test made it do in a few (an operator deployed with a
// ClusterRoleBinding).
func (s *Server) ClusterRole(user, name string) string {
	return s.asked.Roles(user, name, true)
}

// authorizeCreate authorizes, and records, the create that an apply of
// an object that does not exist makes: kube-apiserver asks its
// authorizer about verb create too, so a user who may patch but not
// create is refused.
func (s *Server) authorizeCreate(wr *write) *kube.StatusError {
	if wr.user == "" {
		return nil
	}
	info := RequestInfo{Verb: "create", Group: wr.res.Group, Resource: wr.res.Plural, Namespace: wr.namespace,
		Name: wr.name, User: wr.user, IsResourceRequest: true}
	s.asked.Record(wr.user, rbacRequest(info))
	return s.authorize(info)
}

// rbacRequest is info as RBAC authorizes it.
func rbacRequest(info RequestInfo) rbac.Request {
	return rbac.Of(info.Verb, info.Group, info.Resource, info.Subresource, info.Namespace, info.Path, info.IsResourceRequest)
}
