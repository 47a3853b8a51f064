// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/componentstatus"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/kinds"
)

// This file answers ComponentStatuses (core v1, deprecated): a get and a
// list of what kube-apiserver 1.36 reports in the harness
// (componentstatus.Items). Nothing is stored.

// componentStatuses is the resource path of ComponentStatuses.
var componentStatuses = resource{Resource: kinds.Resource{Version: "v1", Plural: "componentstatuses", Singular: "componentstatus",
	Kind: "ComponentStatus", ShortNames: []string{"cs"}, Verbs: []string{"get", "list"},
	Deprecated: componentstatus.Deprecated}}

// isComponentStatus reports whether info names ComponentStatuses.
func isComponentStatus(info RequestInfo) bool {
	return info.Group == "" && info.Version == "v1" && info.Resource == componentStatuses.Plural &&
		info.Subresource == "" && info.Namespace == ""
}

// serveComponentStatus answers a get or a list of ComponentStatuses
// (componentstatus.Serve).
func (s *Server) serveComponentStatus(w http.ResponseWriter, info RequestInfo) {
	componentstatus.Serve(w, info.Verb, info.Name)
}
