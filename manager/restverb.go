// SPDX-License-Identifier: Apache-2.0

package manager

import (
	"net/url"
	"strings"
)

// restVerb returns the verb and resource of a request to an API server,
// as kube-apiserver names them in apiserver_request_total: the verb is
// LIST or WATCH for a GET of a collection (WATCH with ?watch=true or under
// the legacy /watch/ prefix), GET for one object, DELETECOLLECTION for a
// DELETE of a collection, APPLY for a server-side apply patch, and the
// method otherwise. The resource is the plural name, qualified by its
// group when it has one and followed by its subresource: "configmaps",
// "deployments.apps", "widgets.example.kubeloop.dev/status". A request
// outside the resource paths has the method as its verb and the resource
// "<discovery>" (/api and /apis and below, down to a group version) or
// "<other>" (/version, /openapi, ...).
func restVerb(method string, u *url.URL, contentType string) (verb, resource string) {
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	var group string
	switch {
	case len(parts) > 0 && parts[0] == "api":
		parts = parts[1:]
	case len(parts) > 1 && parts[0] == "apis":
		group, parts = parts[1], parts[2:]
	case len(parts) > 0 && parts[0] == "apis":
		return method, "<discovery>"
	default:
		return method, "<other>"
	}
	if len(parts) < 2 { // /api, /api/v1, /apis/group/v1
		return method, "<discovery>"
	}
	parts = parts[1:] // the version
	watch := false
	if parts[0] == "watch" {
		watch, parts = true, parts[1:]
	}
	// /namespaces/ns/<resource>..., unless status or finalize, which are
	// the namespace's own subresources.
	if len(parts) > 2 && parts[0] == "namespaces" && parts[2] != "status" && parts[2] != "finalize" {
		parts = parts[2:]
	}
	if len(parts) == 0 {
		return method, "<discovery>"
	}
	resource = parts[0]
	if group != "" {
		resource += "." + group
	}
	if len(parts) > 2 {
		resource += "/" + parts[2]
	}
	named := len(parts) > 1
	switch {
	case method == "GET" && (watch || u.Query().Get("watch") == "true" || u.Query().Get("watch") == "1"):
		verb = "WATCH"
	case method == "GET" && !named:
		verb = "LIST"
	case method == "DELETE" && !named:
		verb = "DELETECOLLECTION"
	case method == "PATCH" && strings.HasPrefix(contentType, "application/apply-patch"):
		verb = "APPLY"
	default:
		verb = method
	}
	return verb, resource
}
