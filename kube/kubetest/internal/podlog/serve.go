// SPDX-License-Identifier: Apache-2.0

package podlog

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
)

// Serve answers a GET of pods/log of the pod name, its options read with
// get (a query's Get), as kube-apiserver 1.36 answers for a pod without
// a node: the options and the container checked with the real errors
// (422, 400), a missing pod a 404, and else an empty log (204 No
// Content). pod returns a decoded copy of the pod, nil when there is
// none; it is called once the options passed. Other verbs are a 405.
func Serve(w http.ResponseWriter, verb, name string, get func(string) string, pod func() map[string]any) {
	if verb != "get" {
		apierr.Write(w, apierr.MethodNotAllowed())
		return
	}
	if errs := OptionErrors(get); len(errs) > 0 {
		apierr.Write(w, apierr.Invalid("", "PodLogOptions", name, errs))
		return
	}
	o := pod()
	if o == nil {
		apierr.Write(w, apierr.NotFound("", "pods", name))
		return
	}
	if msg := CheckContainer(o, name, get("container")); msg != "" {
		apierr.Write(w, apierr.BadRequest(msg))
		return
	}
	w.Header().Set("Cache-Control", "no-cache, private")
	w.WriteHeader(http.StatusNoContent)
}
