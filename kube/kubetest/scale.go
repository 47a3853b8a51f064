// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"mime"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
)

// This file serves the scale subresource (kubectl scale, autoscalers):
// the autoscaling/v1 Scale of a Deployment, or of a custom resource whose
// CRD declares subresources.scale. A Scale is not stored: it is read from
// the object (spec replicas, status replicas, the selector) and a write of
// it changes the object's spec replicas only, recorded in managedFields
// as an update of subresource "scale" (without a time, as kube-apiserver
// 1.36 records it). Server-side apply of a Scale is scaleapply.go.

// serveScale answers get, update and patch of a Scale.
func (s *Server) serveScale(c *call) {
	if c.info.Verb == "get" {
		var rec *record
		s.withLock(func() { rec = c.col.objects[c.key()] })
		if rec == nil {
			apierr.Write(c.w, apierr.NotFound(c.res.Group, c.res.Plural, c.info.Name))
			return
		}
		c.respondScale(rec)
		return
	}
	if mt, _, _ := mime.ParseMediaType(c.r.Header.Get("Content-Type")); c.info.Verb == "patch" && mt == mediaApply {
		s.serveScaleApply(c)
		return
	}
	change, serr := scale.ReadChange(c.r, c.info.Verb == "update")
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	target := c.scaleTarget()
	rec, serr := s.patch(c.write(), func(cur obj) (obj, *kube.StatusError) { return c.res.Scale.Write(cur, change, target) })
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	c.respondScale(rec)
}

// respondScale answers the Scale of the stored rec.
func (c *call) respondScale(rec *record) {
	o, err := c.res.Conversion.Read(c.res.fromStored(mustDecode(rec.raw)), c.res.APIVersion(), false)
	var sc obj
	if err == nil {
		sc, err = c.res.Scale.Read(o, c.res.CRD != "")
	}
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	apierr.WriteJSON(c.w, http.StatusOK, encode.Object(sc))
}

// scaleTarget is the object whose Scale c reads or writes.
func (c *call) scaleTarget() scale.Target {
	return scale.Target{Name: c.info.Name, Namespace: c.info.Namespace, Namespaced: c.res.Namespaced,
		APIVersion: c.res.APIVersion(), Kind: c.res.Kind, SpecReplicasPath: c.res.Scale.SpecReplicas,
		Group: c.res.Group, Plural: c.res.Plural, Custom: c.res.CRD != ""}
}
