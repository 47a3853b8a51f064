// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"mime"
	"net/http"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategicmerge"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file serves PATCH: JSON merge patch (RFC 7386), JSON patch (RFC
// 6902), strategic merge patch of built-in kinds (internal/strategicmerge) and
// server-side apply (apply.go). The patched object then goes through the
// update rules of update.go.

const (
	mediaJSONPatch  = "application/json-patch+json"
	mediaMergePatch = "application/merge-patch+json"
	mediaStrategic  = "application/strategic-merge-patch+json"
	mediaApply      = "application/apply-patch+yaml"
)

// The real server's bounds on a JSON patch: at most maxJSONPatchOperations
// operations (more answer 413), and copy operations that copy at most
// maxJSONPatchCopyBytes of JSON in all (kube-apiserver's default
// JSONPatchMaxCopyBytes; more answer the 422 of any patch that fails).
const (
	maxJSONPatchOperations = 10000
	maxJSONPatchCopyBytes  = 3 << 20
)

// patchTypes are the media types a resource accepts for PATCH, in the real
// server's order; custom resources have no strategic merge patch.
func patchTypes(res *resource) []string {
	if res.CRD != "" {
		return []string{mediaJSONPatch, mediaMergePatch, mediaApply}
	}
	return []string{mediaJSONPatch, mediaMergePatch, mediaStrategic, mediaApply}
}

func (s *Server) servePatch(c *call) {
	mt, _, err := mime.ParseMediaType(c.r.Header.Get("Content-Type"))
	supported := patchTypes(c.res)
	ok := false
	for _, t := range supported {
		ok = ok || (err == nil && mt == t)
	}
	switch {
	case !ok && c.res.CRD == "":
		// The route of a built-in kind refuses the type before the handler
		// sees it.
		writeError(c.w, statusError(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
			"415: Unsupported Media Type", &kube.StatusDetails{}))
		return
	case !ok:
		writeError(c.w, errUnsupportedMedia(supported...))
		return
	}
	body, serr := readBody(c.r)
	if serr != nil {
		writeError(c.w, serr)
		return
	}
	if mt == mediaApply {
		s.serveApply(c, body)
		return
	}
	var ops []jsonpatch.Operation
	var patch obj
	switch mt {
	case mediaJSONPatch:
		if ops, err = jsonpatch.ParseOperations(body); err != nil {
			writeError(c.w, errBadRequest(err.Error()))
			return
		}
	case mediaMergePatch:
		if patch, err = unstructured.DecodeObjectOrNull(body); err != nil {
			writeError(c.w, errBadRequest("error decoding patch: "+err.Error()))
			return
		}
		if patch == nil {
			writeError(c.w, errBadRequest("Invalid JSON Patch"))
			return
		}
	default: // strategic merge patch; null is an empty one
		if patch, err = unstructured.DecodeObjectOrNull(body); err != nil {
			writeError(c.w, errBadRequest(err.Error()))
			return
		}
	}
	out, serr := s.patch(c.write(), c.patchFunc(mt, body, ops, patch))
	if serr != nil {
		writeError(c.w, serr)
		return
	}
	c.respond(http.StatusOK, out.raw)
}

// patchFunc is the patch of type mt, its body decoded as ops (a JSON
// patch) or patch (the others), as a function of the stored object. Each
// call after the first decodes the body again, as a merge consumes the
// decoded patch.
func (c *call) patchFunc(mt string, body []byte, ops []jsonpatch.Operation, patch obj) func(cur obj) (obj, *kube.StatusError) {
	calls := 0
	return func(cur obj) (obj, *kube.StatusError) {
		if calls++; calls > 1 && mt != mediaJSONPatch {
			patch, _ = unstructured.DecodeObjectOrNull(body) // it decoded before
		}
		switch mt {
		case mediaJSONPatch:
			if len(ops) > maxJSONPatchOperations {
				return nil, statusError(http.StatusRequestEntityTooLarge, kube.ReasonRequestEntityLarge,
					fmt.Sprintf("Request entity too large: The allowed maximum operations in a JSON patch is %d, got %d",
						maxJSONPatchOperations, len(ops)), nil)
			}
			patched, err := jsonpatch.ApplyValueLimit(cur, ops, maxJSONPatchCopyBytes)
			if err == nil {
				patched, err = unstructured.ExactNumbers(patched) // the operations' numbers are json.Number
			}
			if err != nil {
				// A failed test, a missing path: the real server answers
				// every failure to apply a JSON patch this way (wire 17).
				return nil, errPatchRejected()
			}
			o, isObj := patched.(obj)
			if !isObj {
				return nil, errBadRequest("the patched document is not a JSON object")
			}
			return o, c.checkPatched(mt, body, "", o)
		case mediaMergePatch:
			o, _ := jsonpatch.MergeValue(cur, patch).(obj)
			if o == nil {
				return nil, errBadRequest("the patched document is not a JSON object")
			}
			return o, c.checkPatched(mt, body, "", o)
		}
		o, quoted, err := strategicmerge.Merge(c.res.Schema, cur, patch)
		if err != nil {
			return nil, smpStatus(err)
		}
		return o, c.checkPatched(mt, body, quoted, o)
	}
}

// errPatchRejected is the real server's answer to a patch it cannot
// apply, short of a better one: 422 Invalid without details.
func errPatchRejected() *kube.StatusError {
	return statusError(http.StatusUnprocessableEntity, kube.ReasonInvalid,
		"the server rejected our request due to an error in our request", &kube.StatusDetails{})
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
			return nil, errNotFound(wr.res, wr.name)
		}
		cur := wr.res.fromStored(mustDecode(prev.raw)) // records are never modified
		cur["apiVersion"] = wr.res.apiVersion()
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

// smpStatus is the answer to a failed strategic merge: BadRequest, the generic Invalid of a 422 without
// details, or an internal error without reason.
func smpStatus(e *strategicmerge.Error) *kube.StatusError {
	switch e.Code {
	case http.StatusBadRequest:
		return errBadRequest(e.Msg)
	case http.StatusUnprocessableEntity:
		return errPatchRejected()
	}
	return statusError(http.StatusInternalServerError, "", e.Msg, nil)
}
