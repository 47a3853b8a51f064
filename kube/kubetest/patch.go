// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"mime"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
)

// This file serves PATCH: JSON merge patch (RFC 7386), JSON patch (RFC
// 6902), strategic merge patch of built-in kinds (computed by
// internal/patch) and server-side apply (apply.go). The patched object
// then goes through the update rules of update.go.

// The media types of PATCH (internal/patch).
const (
	mediaJSONPatch  = patch.JSONPatch
	mediaMergePatch = patch.MergePatch
	mediaStrategic  = patch.Strategic
	mediaApply      = patch.Apply
)

func (s *Server) servePatch(c *call) {
	mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	supported := patch.Types(c.res.CRD != "")
	ok := false
	for _, t := range supported {
		ok = ok || (err == nil && mt == t)
	}
	switch {
	case !ok && c.res.CRD == "":
		// The route of a built-in kind refuses the type before the handler
		// sees it.
		apierr.Write(c.w, apierr.New(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
			"415: Unsupported Media Type", &kube.StatusDetails{}))
		return
	case !ok:
		apierr.Write(c.w, apierr.UnsupportedMedia(supported...))
		return
	}
	body, serr := media.ReadBody(c.r)
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	if mt == mediaApply {
		s.serveApply(c, body)
		return
	}
	p, perr := patch.Parse(mt, body)
	if perr != nil {
		apierr.Write(c.w, perr.Status())
		return
	}
	out, serr := s.patch(c.write(), c.patchFunc(mt, body, p))
	if serr != nil {
		apierr.Write(c.w, serr)
		return
	}
	c.respond(http.StatusOK, out.raw)
}

// patchFunc is the patch p of type mt (body) as a function of the stored
// object, the patched object checked against the kind's schema.
func (c *call) patchFunc(mt string, body []byte, p *patch.Patch) func(cur obj) (obj, *kube.StatusError) {
	return func(cur obj) (obj, *kube.StatusError) {
		o, quoted, err := p.Apply(c.res.Schema, cur)
		if err != nil {
			return nil, err.Status()
		}
		return o, c.checkPatched(mt, body, quoted, o)
	}
}

// patch reads the object wr names, patches it with fn and stores the
// result as an update by wr.manager. The patch is computed without the
// server's lock, on the object as read; the update then commits under
// the lock if the object is still as read. If another write came in
// between, fn runs again on the new state, as kube-apiserver's patcher
// does when its update conflicts, so that neither write is lost; a
// resourceVersion in the patch still conflicts as it would have.
func (s *Server) patch(wr *write, fn func(cur obj) (obj, *kube.StatusError)) (*record, *kube.StatusError) {
	key := objectKey(wr.namespace, wr.name)
	for {
		var prev *record
		s.withLock(func() { prev = wr.col.objects[key] })
		if prev == nil {
			return nil, apierr.NotFound(wr.res.Group, wr.res.Plural, wr.name)
		}
		cur, err := wr.res.Conversion.Read(wr.res.fromStored(mustDecode(prev.raw)), wr.res.APIVersion(), false) // records are never modified
		if err != nil {
			return nil, err
		}
		cur["apiVersion"] = wr.res.APIVersion()
		patched, err := fn(cur)
		if err == nil {
			err = checkKind(wr.res, patched)
		}
		if err != nil {
			return nil, err
		}
		if s.patchComputed != nil {
			s.patchComputed()
		}
		out, stale, err := s.admitWrite(wr, false, prev, patched, s.updateStore)
		if !stale {
			return out.rec, err
		}
	}
}
