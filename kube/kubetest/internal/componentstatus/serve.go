// SPDX-License-Identifier: Apache-2.0

package componentstatus

import (
	"net/http"
	"strconv"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
)

// Serve answers a get (of the component name) or a list of
// ComponentStatuses with the deprecation warning; other verbs are not
// allowed (405), an unknown component is a 404.
func Serve(w http.ResponseWriter, verb, name string) {
	w.Header().Add("Warning", "299 - "+strconv.Quote(Deprecated))
	switch verb {
	case "get":
		for _, it := range Items() {
			if it["metadata"].(obj)["name"] == name {
				apierr.WriteJSON(w, http.StatusOK, encode.Object(it))
				return
			}
		}
		apierr.Write(w, apierr.NotFound("", "componentstatuses", name))
	case "list":
		var items []any
		for _, it := range Items() {
			delete(it, "kind")
			delete(it, "apiVersion")
			items = append(items, it)
		}
		apierr.WriteJSON(w, http.StatusOK, encode.Object(obj{"kind": "ComponentStatusList", "apiVersion": "v1",
			"metadata": obj{}, "items": items}))
	default:
		apierr.Write(w, apierr.MethodNotAllowed())
	}
}
