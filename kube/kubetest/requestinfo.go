// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"net/url"
	"strings"
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
	r := qualified(ri.Group, ri.Resource)
	if ri.Subresource != "" {
		r += "/" + ri.Subresource
	}
	return ri.Verb + " " + r
}

// queryBool reads a boolean query parameter as the server converts it:
// present and not "false" or "0" is true.
func queryBool(q url.Values, key string) bool {
	vs, ok := q[key]
	if !ok || len(vs) == 0 {
		return false
	}
	switch strings.ToLower(vs[0]) {
	case "false", "0":
		return false
	}
	return true
}

// parseRequestInfo reads what r is about.
func parseRequestInfo(r *http.Request) RequestInfo {
	ri := RequestInfo{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := splitPath(r.URL.Path)
	switch {
	case len(parts) >= 3 && parts[0] == "api":
		ri.Version, parts = parts[1], parts[2:]
	case len(parts) >= 4 && parts[0] == "apis":
		ri.Group, ri.Version, parts = parts[1], parts[2], parts[3:]
	default:
		return ri
	}
	legacyWatch := false
	if parts[0] == "watch" {
		legacyWatch, parts = true, parts[1:]
	}
	if len(parts) > 0 && parts[0] == "namespaces" && len(parts) > 1 {
		ri.Namespace = parts[1]
		if len(parts) > 2 && parts[2] != "status" && parts[2] != "finalize" {
			parts = parts[2:]
		}
	}
	if len(parts) == 0 || parts[0] == "" {
		return ri
	}
	ri.IsResourceRequest = true
	ri.Resource = parts[0]
	if len(parts) > 1 {
		ri.Name = parts[1]
	}
	if len(parts) > 2 {
		ri.Subresource = strings.Join(parts[2:], "/")
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		switch {
		case legacyWatch || queryBool(q, "watch"):
			ri.Verb = "watch"
		case ri.Name == "":
			ri.Verb = "list"
		default:
			ri.Verb = "get"
		}
	case http.MethodPost:
		ri.Verb = "create"
	case http.MethodPut:
		ri.Verb = "update"
	case http.MethodPatch:
		ri.Verb = "patch"
	case http.MethodDelete:
		ri.Verb = "delete"
		if ri.Name == "" {
			ri.Verb = "deletecollection"
		}
	}
	return ri
}

// splitPath splits a URL path into its segments, ignoring a leading and a
// trailing slash.
func splitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
