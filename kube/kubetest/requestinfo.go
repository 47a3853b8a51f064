// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/requestinfo"
)

// RequestInfo describes a request as the server's authorization and fault
// injection see it, parsed from the method, path and query as
// kube-apiserver's RequestInfoFactory does.
type RequestInfo struct {
	// Verb is get, list, watch, create, update, patch, delete or
	// deletecollection for resource requests, and the lower-case HTTP
	// method ("get") for other paths.
	Verb string
	// Group is "" for the core group. Group, Version, Resource, Subresource,
	// Namespace and Name are empty for requests that are not about a
	// resource (discovery, /version, /healthz).
	Group, Version, Resource, Subresource string
	// Namespace is the namespace of the request; for a request about a
	// namespace object it is the namespace's own name, as in the real
	// server.
	Namespace, Name string
	// User is the authenticated user name ("" when authentication failed).
	User string
	// Path is the URL path.
	Path string
	// IsResourceRequest is true for requests under /api/v1/... and
	// /apis/GROUP/VERSION/... that name a resource.
	IsResourceRequest bool
}

// String returns "verb resource" as [Server.Counts] keys it: the resource
// qualified by its group ("leases.coordination.k8s.io") and subresource
// ("deployments.apps/status"), or the path for other requests ("get /api").
func (ri RequestInfo) String() string {
	if !ri.IsResourceRequest {
		return ri.Verb + " " + ri.Path
	}
	r := apierr.Qualified(ri.Group, ri.Resource)
	if ri.Subresource != "" {
		r += "/" + ri.Subresource
	}
	return ri.Verb + " " + r
}

// parseRequestInfo reads what r is about (requestinfo.Parse).
func parseRequestInfo(r *http.Request) RequestInfo { return RequestInfo(requestinfo.Parse(r)) }
