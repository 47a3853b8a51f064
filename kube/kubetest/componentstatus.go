// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"
	"strconv"
)

// This file answers ComponentStatuses (core v1, deprecated): a get and a
// list of what kube-apiserver 1.36 reports in the harness, where neither
// kube-scheduler nor kube-controller-manager serves its health port on
// the default address and etcd answers. Nothing is stored.

// componentStatuses is the resource path of ComponentStatuses.
var componentStatuses = resource{Version: "v1", Plural: "componentstatuses", Singular: "componentstatus",
	Kind: "ComponentStatus", ShortNames: []string{"cs"}, Verbs: []string{"get", "list"},
	Deprecated: "v1 ComponentStatus is deprecated in v1.19+"}

// isComponentStatus reports whether info names ComponentStatuses.
func isComponentStatus(info RequestInfo) bool {
	return info.Group == "" && info.Version == "v1" && info.Resource == componentStatuses.Plural &&
		info.Subresource == "" && info.Namespace == ""
}

// componentStatusItems are the components in the real server's order.
func componentStatusItems() []obj {
	item := func(name, status, message string) obj {
		return obj{"kind": componentStatuses.Kind, "apiVersion": "v1", "metadata": obj{"name": name},
			"conditions": []any{obj{"type": "Healthy", "status": status, "message": message}}}
	}
	refused := func(port int) string {
		addr := "127.0.0.1:" + strconv.Itoa(port)
		return `Get "https://` + addr + `/healthz": dial tcp ` + addr + `: connect: connection refused`
	}
	return []obj{
		item("controller-manager", "False", refused(10257)),
		item("scheduler", "False", refused(10259)),
		item("etcd-0", "True", "ok"),
	}
}

// serveComponentStatus answers a get or a list of ComponentStatuses with
// the deprecation warning; other verbs are not allowed.
func (s *Server) serveComponentStatus(w http.ResponseWriter, info RequestInfo) {
	w.Header().Add("Warning", "299 - "+strconv.Quote(componentStatuses.Deprecated))
	switch info.Verb {
	case "get":
		for _, it := range componentStatusItems() {
			if it["metadata"].(obj)["name"] == info.Name {
				writeJSON(w, http.StatusOK, encodeObject(it))
				return
			}
		}
		writeError(w, errNotFound(&componentStatuses, info.Name))
	case "list":
		var items []any
		for _, it := range componentStatusItems() {
			delete(it, "kind")
			delete(it, "apiVersion")
			items = append(items, it)
		}
		writeJSON(w, http.StatusOK, encodeObject(obj{"kind": "ComponentStatusList", "apiVersion": "v1",
			"metadata": obj{}, "items": items}))
	default:
		writeError(w, errMethodNotAllowed())
	}
}
