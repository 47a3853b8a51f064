// SPDX-License-Identifier: Apache-2.0

package kubetest

import "github.com/kubeloop/kubeloop/kube/kubetest/internal/podlog"

// This file serves pods/log (kubectl logs) as kube-apiserver 1.36 serves
// it for a pod no kubelet runs: the options and the container are checked
// with the real errors, and the log is empty (204 No Content), as the real
// server answers for a pod without a node. kubetest never schedules pods;
// a pod given a spec.nodeName is answered the same, where the real server
// would ask that node's kubelet. Package podlog checks the request and
// answers.

// isPodLog reports whether the call is to pods/log.
func isPodLog(res *resource, info RequestInfo) bool {
	return res.Group == "" && res.Plural == "pods" && info.Subresource == "log"
}

// servePodLog answers a GET of pods/log (podlog.Serve).
func (s *Server) servePodLog(c *call) {
	podlog.Serve(c.w, c.info.Verb, c.info.Name, c.q.Get, func() map[string]any {
		var rec *record
		s.withLock(func() { rec = c.col.objects[c.key()] })
		if rec == nil {
			return nil
		}
		return mustDecode(rec.raw)
	})
}
