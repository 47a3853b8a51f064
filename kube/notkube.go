// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/internal/errs"
)

// NotKubernetesError says a server answered 404 without a Kubernetes
// Status, and is not a Kubernetes API server at the configured URL: a
// kubeconfig that names the wrong host, port or path, or a proxy that
// forwards elsewhere. It is not [IsNotFound]: nothing was found to be
// gone. Test for it with [IsNotKubernetes].
type NotKubernetesError struct {
	// Server is the configured server URL, without user info.
	Server string
	// Path is the path that was asked for.
	Path string
	// Answer is the start of what the server answered instead.
	Answer string
}

func (e *NotKubernetesError) Error() string {
	if e == nil {
		return "<nil *kube.NotKubernetesError>"
	}
	return fmt.Sprintf("the server at %s answered 404 to %s: not a Kubernetes API server (or the wrong path): %s",
		e.Server, e.Path, e.Answer)
}

// IsNotKubernetes reports whether err is a [*NotKubernetesError].
func IsNotKubernetes(err error) bool {
	_, ok := errs.As[*NotKubernetesError](err)
	return ok
}

// What a 404 without a Status body means for a request (request.on404).
const (
	// probe404: ask /api whether the server serves the Kubernetes API. If
	// it does, the resource is not served (the mux's own 404, as for a
	// custom resource whose CRD was deleted) and the answer is NotFound;
	// if not, a [*NotKubernetesError].
	probe404 = iota
	// wrongServer404: a path every Kubernetes API server serves (/api,
	// /apis): the answer is a [*NotKubernetesError].
	wrongServer404
	// notServed404: a group version's discovery document, asked for once
	// the server answered /api: the group version is not served
	// (NotFound).
	notServed404
)

// plainNotFound decides what a 404 without a Status body (se, built from
// the code) means for r, as the constants above say. The probe costs one
// GET of /api, on such 404s alone: a Kubernetes API server answers a
// Status for every object and collection it serves.
func (c *Client) plainNotFound(ctx context.Context, r *request, se *StatusError) error {
	switch r.on404 {
	case notServed404:
		return se
	case wrongServer404:
		return c.notKubernetes(r, se)
	}
	var versions TypeMeta
	probe := &request{method: http.MethodGet, path: "/api", safe: true, maxBody: maxDiscoveryBody, on404: wrongServer404}
	err := c.call(ctx, probe, &versions)
	switch {
	case err == nil && (versions.Kind == "APIVersions" || versions.Kind == "APIGroupDiscoveryList"):
		se.Status.Message = "the server answered 404 to " + r.path + ": the resource is not served"
		return se
	case err == nil:
		return c.notKubernetes(r, se)
	}
	if _, ok := err.(*NotKubernetesError); ok { // as do returns it
		return c.notKubernetes(r, se)
	}
	return fmt.Errorf("the server answered 404 to %s without a Status; ask whether it serves the Kubernetes API: %w", r.path, err)
}

func (c *Client) notKubernetes(r *request, se *StatusError) *NotKubernetesError {
	answer, _ := strings.CutPrefix(se.Status.Message, "the server answered 404: ")
	server := c.base.Scheme + "://" + c.base.Host + c.base.Path // never the user info
	return &NotKubernetesError{Server: server, Path: r.path, Answer: answer}
}
