// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/podlog"
)

// This file serves pods/log (kubectl logs) as kube-apiserver 1.36 serves
// it for a pod no kubelet runs: the options and the container are checked
// with the real errors, and the log is empty (204 No Content), as the real
// server answers for a pod without a node. kubetest never schedules pods;
// a pod given a spec.nodeName is answered the same, where the real server
// would ask that node's kubelet. Package podlog checks the request.

// isPodLog reports whether the call is to pods/log.
func isPodLog(res *resource, info RequestInfo) bool {
	return res.Group == "" && res.Plural == "pods" && info.Subresource == "log"
}

// servePodLog answers a GET of pods/log.
func (s *Server) servePodLog(c *call) {
	if c.info.Verb != "get" {
		apierr.Write(c.w, apierr.MethodNotAllowed())
		return
	}
	if errs := podlog.OptionErrors(c.q.Get); len(errs) > 0 {
		apierr.Write(c.w, apierr.Invalid("", "PodLogOptions", c.info.Name, errs))
		return
	}
	var rec *record
	s.withLock(func() { rec = c.col.objects[c.key()] })
	if rec == nil {
		apierr.Write(c.w, apierr.NotFound(c.res.Group, c.res.Plural, c.info.Name))
		return
	}
	if msg := podlog.CheckContainer(mustDecode(rec.raw), c.info.Name, c.q.Get("container")); msg != "" {
		apierr.Write(c.w, apierr.BadRequest(msg))
		return
	}
	c.w.Header().Set("Cache-Control", "no-cache, private")
	c.w.WriteHeader(http.StatusNoContent)
}
