// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
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

// serveComponentStatus answers a get or a list of ComponentStatuses with
// the deprecation warning; other verbs are not allowed.
func (s *Server) serveComponentStatus(w http.ResponseWriter, info RequestInfo) {
	w.Header().Add("Warning", "299 - "+strconv.Quote(componentStatuses.Deprecated))
	switch info.Verb {
	case "get":
		for _, it := range componentstatus.Items() {
			if it["metadata"].(obj)["name"] == info.Name {
				apierr.WriteJSON(w, http.StatusOK, encodeObject(it))
				return
			}
		}
		apierr.Write(w, apierr.NotFound(componentStatuses.Group, componentStatuses.Plural, info.Name))
	case "list":
		var items []any
		for _, it := range componentstatus.Items() {
			delete(it, "kind")
			delete(it, "apiVersion")
			items = append(items, it)
		}
		apierr.WriteJSON(w, http.StatusOK, encodeObject(obj{"kind": "ComponentStatusList", "apiVersion": "v1",
			"metadata": obj{}, "items": items}))
	default:
		apierr.Write(w, apierr.MethodNotAllowed())
	}
}
