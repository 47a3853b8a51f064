// SPDX-License-Identifier: Apache-2.0

// Package requestinfo reads what a request is about from its method,
// path and query, as kube-apiserver's RequestInfoFactory does: the verb
// (get, list, watch, create, update, patch, delete, deletecollection),
// the group, version, resource, subresource, namespace and name.
//
// Guarantees:
//   - Pure: the request is only read.
//   - [Info] has the fields of kubetest.RequestInfo, in its order, so that
//     one converts to the other.
package requestinfo

import (
	"net/http"
	"net/url"
	"strings"
)

// Info is what [Parse] reads; kubetest.RequestInfo documents the fields.
type Info struct {
	Verb                                  string
	Group, Version, Resource, Subresource string
	Namespace, Name                       string
	User                                  string
	Path                                  string
	IsResourceRequest                     bool
}

// QueryBool reads a boolean query parameter as the server converts it:
// present and not "false" or "0" is true.
func QueryBool(q url.Values, key string) bool {
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

// Parse reads what r is about.
func Parse(r *http.Request) Info {
	ri := Info{Path: r.URL.Path, Verb: strings.ToLower(r.Method)}
	parts := SplitPath(r.URL.Path)
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
		case legacyWatch || QueryBool(q, "watch"):
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

// SplitPath splits a URL path into its segments, ignoring a leading and a
// trailing slash.
func SplitPath(p string) []string {
	p = strings.Trim(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
