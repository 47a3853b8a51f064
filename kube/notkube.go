// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"fmt"
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

// plainNotFound is what a 404 without a Status body (se, built from the
// code) means for r. Every request is sent after discovery has read /api
// and /apis, which every Kubernetes API server serves: a plain 404 there
// is a server that is not one (a [*NotKubernetesError]); a plain 404
// anywhere else is a Kubernetes API server's mux answering for a
// resource it does not serve (a custom resource whose CRD was deleted),
// which is NotFound, now naming the path.
func (c *Client) plainNotFound(r *request, se *StatusError) error {
	if !r.discoveryRoot {
		se.Status.Message = "the server answered 404 to " + r.path + ": the resource is not served"
		return se
	}
	answer, _ := strings.CutPrefix(se.Status.Message, "the server answered 404: ")
	server := c.base.Scheme + "://" + c.base.Host + c.base.Path // never the user info
	return &NotKubernetesError{Server: server, Path: r.path, Answer: answer}
}
