// SPDX-License-Identifier: Apache-2.0

package scale

import (
	"net/http"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/patch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// PatchTypes are the media types a PATCH of a Scale may have: a JSON
// patch, a merge patch, or a strategic merge patch (merged as a merge
// patch: a Scale has no lists).
var PatchTypes = []string{patch.JSONPatch, patch.MergePatch, patch.Strategic}

// ParsePatch reads a PATCH body of a Scale of media type mt and returns
// what it does to the current Scale. Errors are the real server's: a
// body that does not parse is a 400, a JSON patch that does not apply or
// leaves no object the 422 without details (patch.Error's empty Msg), a
// merge that leaves no object a 400.
func ParsePatch(mt string, body []byte) (func(sc obj) (obj, *patch.Error), *patch.Error) {
	if mt == patch.JSONPatch {
		ops, err := jsonpatch.ParseOperations(body)
		if err != nil {
			return nil, &patch.Error{Code: http.StatusBadRequest, Msg: err.Error()}
		}
		return func(sc obj) (obj, *patch.Error) {
			patched, err := jsonpatch.ApplyValueLimit(sc, ops, patch.MaxCopyBytes)
			if err == nil {
				patched, err = unstructured.ExactNumbers(patched)
			}
			o, ok := patched.(obj)
			if err != nil || !ok {
				return nil, &patch.Error{Code: http.StatusUnprocessableEntity}
			}
			return o, nil
		}, nil
	}
	if _, err := unstructured.DecodeObjectOrNull(body); err != nil {
		return nil, &patch.Error{Code: http.StatusBadRequest, Msg: "error decoding patch: " + err.Error()}
	}
	return func(sc obj) (obj, *patch.Error) {
		p, _ := unstructured.DecodeObjectOrNull(body) // a merge consumes it
		o, _ := jsonpatch.MergeValue(sc, p).(obj)
		if o == nil {
			return nil, &patch.Error{Code: http.StatusBadRequest, Msg: "the patched document is not a JSON object"}
		}
		return o, nil
	}, nil
}
