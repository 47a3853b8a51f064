// SPDX-License-Identifier: Apache-2.0

// Package podsub answers the subresources of pods that kubetest adds
// beside log, eviction and binding, as kube-apiserver 1.37.2 answers
// them: the connect subresources (pods' exec, attach, portforward and
// proxy, services' and nodes' proxy: [Connect]), which stream to a
// kubelet or a pod and which kubetest, running neither, answers as the
// real server answers where there is none; and the writes of
// pods/ephemeralcontainers ([PrepareEphemeral], [ValidateEphemeral]) and
// pods/resize ([PrepareResize], [ValidateResize]).
// The server finds the objects, routes and stores.
//
// Guarantees:
//   - Nothing here keeps state or modifies what it is given, except
//     the object a Prepare function returns.
//   - A connect request never succeeds: its answer is an error Status,
//     the real server's when no node or endpoint exists.
//   - Every invalid ephemeral container is reported with the real
//     server's field paths and messages, in its order.
package podsub

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/podlog"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// obj is a decoded JSON object.
type obj = map[string]any

// IsConnect reports whether sub, a request's subresource path
// ("exec", "proxy/healthz"), of a core resource plural is one of the
// connect subresources Connect answers.
func IsConnect(plural, sub string) bool {
	name, _, _ := strings.Cut(sub, "/")
	switch plural {
	case "pods":
		return name == "exec" || name == "attach" || name == "portforward" || name == "proxy"
	case "services", "nodes":
		return name == "proxy"
	}
	return false
}

// Request is a connect request: the subresource (its first segment),
// the object's plural and name as the URL gives them, the object found
// (nil when there is none) and the container asked for (?container=).
type Request struct {
	Sub, Plural, Name, Container string
	Object                       map[string]any
	// NodeExists reports whether a node of that name exists.
	NodeExists func(name string) bool
	// EndpointsExist, when not nil, reports whether the Endpoints object
	// named like a service exists: the proxy of a service without one is
	// a 404 for the service (minor.Facts.ServiceProxyViaEndpoints).
	EndpointsExist func(name string) bool
}

// Connect is the answer to a connect request: an error Status always
// (kubetest runs no kubelet and no pod), the real server's where it has
// no node, endpoint or address to connect to.
func Connect(r Request) *kube.StatusError {
	switch r.Plural {
	case "services":
		if r.EndpointsExist != nil && !r.EndpointsExist(serviceName(r.Name)) {
			return apierr.NotFound("", "services", serviceName(r.Name))
		}
		// The real server answers this for a missing service too.
		return apierr.New(http.StatusServiceUnavailable, kube.ReasonServiceUnavailable,
			fmt.Sprintf("no endpoints available for service %q", serviceName(r.Name)), nil)
	case "nodes":
		if r.Object == nil {
			return apierr.NotFound("", "nodes", r.Name)
		}
		if addrs, _ := unstructured.Child(r.Object, "status", false)["addresses"].([]any); len(addrs) == 0 {
			return apierr.New(http.StatusInternalServerError, "", "no preferred addresses found; known addresses: []", nil)
		}
		return noKubelet("node " + r.Name)
	}
	if r.Object == nil {
		return apierr.NotFound("", "pods", r.Name)
	}
	if r.Sub == "proxy" {
		if unstructured.String(unstructured.Child(r.Object, "status", false), "podIP") == "" {
			return apierr.BadRequest("address not allowed")
		}
		return noKubelet("pod " + r.Name)
	}
	if r.Sub != "portforward" {
		if msg := podlog.CheckContainer(r.Object, r.Name, r.Container); msg != "" {
			return apierr.BadRequest(msg)
		}
	}
	node := unstructured.String(unstructured.Child(r.Object, "spec", false), "nodeName")
	switch {
	case node == "":
		return apierr.BadRequest(fmt.Sprintf("pod %s does not have a host assigned", r.Name))
	case !r.NodeExists(node):
		// The real server's words: the node is looked up as a pod.
		return apierr.NotFound("", "pods", node)
	}
	return noKubelet("node " + node)
}

// noKubelet is kubetest's answer where the real server would connect:
// a 503, as the real server answers a backend it cannot reach.
func noKubelet(what string) *kube.StatusError {
	return apierr.New(http.StatusServiceUnavailable, kube.ReasonServiceUnavailable,
		"error trying to reach service: kubetest runs no kubelet and no pod to connect to for "+what, nil)
}

// serviceName is the service's name in a proxy URL's NAME,
// "[scheme:]name[:port]".
func serviceName(s string) string {
	parts := strings.Split(s, ":")
	if len(parts) == 3 {
		return parts[1]
	}
	return parts[0]
}
