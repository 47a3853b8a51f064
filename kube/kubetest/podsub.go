// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/podsub"
)

// This file routes the pods' subresources of package podsub: the connect
// ones (exec, attach, portforward, proxy, and services' and nodes'
// proxy), answered as the real server answers without a kubelet, and the
// writes of pods/ephemeralcontainers and pods/resize, which go through
// update as a status write does (prepareUpdate, updateLocked).

// isConnect reports whether the call is to a connect subresource.
func isConnect(res *resource, info RequestInfo) bool {
	return res.Group == "" && podsub.IsConnect(res.Plural, info.Subresource)
}

// serveConnect answers a connect request (podsub.Connect).
func (s *Server) serveConnect(c *call) {
	req := podsub.Request{Plural: c.res.Plural, Name: c.info.Name, Container: c.q.Get("container")}
	req.Sub, _, _ = strings.Cut(c.info.Subresource, "/")
	s.withLock(func() {
		if rec := c.col.objects[c.key()]; rec != nil {
			req.Object = mustDecode(rec.raw)
		}
		var nodes *collection
		if res := s.reg.Lookup("", "v1", "nodes"); res != nil {
			nodes = s.cols[res.colKey()]
		}
		req.NodeExists = func(name string) bool { return nodes != nil && nodes.objects[name] != nil }
		if res := s.reg.Lookup("", "v1", "endpoints"); res != nil && s.facts.ServiceProxyViaEndpoints {
			endpoints := s.cols[res.colKey()]
			req.EndpointsExist = func(name string) bool { return endpoints.objects[objectKey(c.info.Namespace, name)] != nil }
		}
	})
	apierr.Write(c.w, podsub.Connect(req))
}

// podSubErrors are the errors of a write of a pod's ephemeral containers
// or resize (sub) that makes next of old.
func podSubErrors(res *resource, sub string, next, old obj) []fielderr.Error {
	switch {
	case res.Group != "" || res.Plural != "pods":
		return nil
	case sub == "ephemeralcontainers":
		return podsub.ValidateEphemeral(next, old)
	case sub == "resize":
		return podsub.ValidateResize(next, old)
	}
	return nil
}
