// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"mime"
	"net/http"
	"slices"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/scale"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves the scale subresource (kubectl scale, autoscalers):
// the autoscaling/v1 Scale of a Deployment, or of a custom resource whose
// CRD declares subresources.scale. A Scale is not stored: it is read from
// the object (spec replicas, status replicas, the selector) and a write of
// it changes the object's spec replicas only, recorded in managedFields
// as an update of subresource "scale" (without a time, as kube-apiserver
// 1.36 records it). Server-side apply of a Scale is scaleapply.go.

// scaleOf is the Scale of o, an object of res at res's version; a custom
// resource without its spec replicas is the real server's 500.
func scaleOf(res *resource, o obj) (obj, *kube.StatusError) {
	def := int64(1) // a Deployment's default
	if res.CRD != "" {
		def = 0
	}
	sc, ok := res.Scale.Of(o, def)
	if !ok {
		msg := fmt.Sprintf("the spec replicas field %q does not exist", res.Scale.SpecReplicas)
		return nil, apierr.New(http.StatusInternalServerError, kube.ReasonInternalError, "Internal error occurred: "+msg,
			&kube.StatusDetails{Causes: []kube.StatusCause{{Message: msg}}})
	}
	return sc, nil
}

// scaleForWrite is the Scale a write of o's Scale starts from: a custom
// resource without its spec replicas is written as one of 0 replicas
// (accepted, as the real server accepts it, where a read is its 500).
func scaleForWrite(res *resource, o obj) obj {
	if sc, err := scaleOf(res, o); err == nil {
		return sc
	}
	cp := unstructured.DeepCopy(o).(obj)
	scale.SetField(cp, res.Scale.SpecReplicas, int64(0))
	sc, _ := scaleOf(res, cp)
	return sc
}

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
	change, serr := c.scaleChange()
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	wr := c.write()
	rec, serr := s.patch(wr, func(cur obj) (obj, *kube.StatusError) {
		sc := scaleForWrite(c.res, cur)
		next, err := change(sc)
		if err != nil {
			return nil, err
		}
		meta := unstructured.Metadata(next)
		if name := unstructured.String(meta, "name"); name != c.info.Name {
			return nil, apierr.BadRequest(fmt.Sprintf("the name of the object (%s) does not match the name on the URL (%s)", name, c.info.Name))
		}
		if rv := unstructured.String(meta, "resourceVersion"); rv != "" && rv != unstructured.String(unstructured.Metadata(cur), "resourceVersion") {
			return nil, apierr.Conflict(c.res.Group, c.res.Plural, c.info.Name, apierr.MsgModified)
		}
		spec, _ := next["spec"].(obj)
		n, _ := unstructured.IntegerValue(spec["replicas"])
		if n < 0 {
			if c.res.CRD != "" {
				return nil, apierr.Invalid(c.res.Group, c.res.Kind, c.info.Name, []fielderr.Error{{Type: "FieldValueInvalid",
					Field: c.res.Scale.SpecReplicas, Value: n, Detail: "should be a non-negative integer"}})
			}
			return nil, apierr.Invalid("autoscaling", "Scale", c.info.Name, []fielderr.Error{{Type: "FieldValueInvalid",
				Field: "spec.replicas", Value: n, Detail: "must be greater than or equal to 0"}})
		}
		scale.SetField(cur, c.res.Scale.SpecReplicas, n)
		return cur, nil
	})
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
		sc, err = scaleOf(c.res, o)
	}
	if err != nil {
		apierr.Write(c.w, err)
		return
	}
	apierr.WriteJSON(c.w, http.StatusOK, encode.Object(sc))
}

// scaleChange reads the body of a Scale update or patch and returns what
// it does to the current Scale.
func (c *call) scaleChange() (func(sc obj) (obj, *kube.StatusError), *kube.StatusError) {
	if c.info.Verb == "update" {
		body, _, _, err := decodeRequestObject(c.r, nil)
		if err != nil {
			return nil, err
		}
		if kind := unstructured.String(body, "kind"); kind != "" && kind != "Scale" {
			return nil, apierr.BadRequest(fmt.Sprintf("the kind %q in the body does not match the kind %q of the request", kind, "Scale"))
		}
		return func(obj) (obj, *kube.StatusError) { return unstructured.DeepCopy(body).(obj), nil }, nil
	}
	mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	if err != nil || !slices.Contains(scale.PatchTypes, mt) {
		return nil, apierr.New(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
			"415: Unsupported Media Type", &kube.StatusDetails{})
	}
	body, serr := media.ReadBody(c.r)
	if serr != nil {
		return nil, serr
	}
	change, perr := scale.ParsePatch(mt, body)
	if perr != nil {
		return nil, patchStatus(perr)
	}
	return func(sc obj) (obj, *kube.StatusError) {
		o, perr := change(sc)
		if perr != nil {
			return nil, patchStatus(perr)
		}
		return o, nil
	}, nil
}
