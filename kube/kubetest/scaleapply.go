// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/requestinfo"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
)

// This file serves server-side apply of a Scale (PATCH .../scale with
// application/apply-patch+yaml), as kube-apiserver 1.36.3 does:
//   - of a Deployment (or another built-in kind with a scale), the
//     Scale's spec.replicas is applied to the object's spec replicas by
//     the field manager, recorded as an Apply entry of subresource
//     "scale" (without a time); a field another manager owns conflicts
//     (409, the manager named "using autoscaling/v1", the field
//     .spec.replicas) unless force=true; the answer is the Scale;
//   - of a custom resource, the real server fails to convert the Scale
//     to the resource's version: after the same conflict check it
//     answers 500 and changes nothing.

// serveScaleApply answers an apply of c's Scale (internal/scale reads
// the configuration and words the errors: ReadApply, ApplyError).
func (s *Server) serveScaleApply(c *call) {
	target := c.scaleTarget()
	config, parent, serr := scale.ReadApply(c.r, c.q.Get("fieldManager"), target)
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	wr := c.write()
	wr.apply, wr.force = true, requestinfo.QueryBool(c.q, "force")
	custom := c.res.CRD != ""
	wr.dryRun = wr.dryRun || custom
	var out updateResult
	var unowned bool
	s.withLock(func() {
		prev := c.col.objects[c.key()]
		if custom && prev != nil && !scale.OwnsPath(mustDecode(prev.raw), c.res.Scale.SpecReplicas) {
			unowned = true // the Scale has no managedFields to convert
			return
		}
		out, serr = s.applyLocked(wr, parent)
	})
	if serr = scale.ApplyError(serr, custom, unowned, config, target); serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	c.respondScale(out.rec)
}
