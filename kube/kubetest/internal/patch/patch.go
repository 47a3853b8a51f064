// SPDX-License-Identifier: Apache-2.0

// Package patch computes what a PATCH request does to an object, as
// kube-apiserver 1.36 computes it: JSON merge patches (RFC 7386), JSON
// patches (RFC 6902) within the real server's bounds, strategic merge
// patches of built-in kinds (package strategicmerge), and the reading of
// a server-side apply configuration, JSON or YAML ([ParseApply]). The
// server decides which types a resource accepts and stores the result;
// [Error.Status] is the real server's answer to a patch that failed.
//
// Guarantees:
//   - A [Patch] may be applied any number of times (the server applies it
//     again when another write came in between): each application starts
//     from the body as sent.
//   - Apply may consume the current object it is given (the result
//     shares maps with it, and a strategic merge changes it): give it a
//     fresh one each time, as the server does.
//   - Numbers come out as the server holds them (int64 when integral).
package patch

import (
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/schema"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/strategicmerge"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

type obj = map[string]any

// The media types of PATCH.
const (
	JSONPatch  = "application/json-patch+json"
	MergePatch = "application/merge-patch+json"
	Strategic  = "application/strategic-merge-patch+json"
	Apply      = "application/apply-patch+yaml"
)

// The real server's bounds on a JSON patch: at most MaxOperations
// operations (more answer 413), and copy operations that copy at most
// MaxCopyBytes of JSON in all (kube-apiserver's default
// JSONPatchMaxCopyBytes; more answer the 422 of any patch that fails).
const (
	MaxOperations = 10000
	MaxCopyBytes  = 3 << 20
)

// Types are the media types a resource accepts for PATCH, in the real
// server's order; custom resources have no strategic merge patch.
func Types(custom bool) []string {
	if custom {
		return []string{JSONPatch, MergePatch, Apply}
	}
	return []string{JSONPatch, MergePatch, Strategic, Apply}
}

// Error is why a patch failed: Code is the HTTP status (400, 413, 422,
// 500); Msg is the Status message, empty for the 422 the real server
// gives every patch it cannot apply ("the server rejected our
// request...").
type Error struct {
	Code int
	Msg  string
}

func badRequest(msg string) *Error { return &Error{Code: http.StatusBadRequest, Msg: msg} }

// rejected is the real server's answer to a patch it cannot apply, short
// of a better one.
var rejected = &Error{Code: http.StatusUnprocessableEntity}

// Patch is a parsed patch body.
type Patch struct {
	mt   string
	body []byte
	ops  []jsonpatch.Operation
	// merge is the decoded merge or strategic merge patch; applying it
	// consumes it, so that each application after the first decodes the
	// body again.
	merge   obj
	applied bool
}

// Parse reads the body of a patch of media type mt: JSONPatch,
// MergePatch or Strategic.
func Parse(mt string, body []byte) (*Patch, *Error) {
	p := &Patch{mt: mt, body: body}
	var err error
	switch mt {
	case JSONPatch:
		if p.ops, err = jsonpatch.ParseOperations(body); err != nil {
			return nil, badRequest(err.Error())
		}
	case MergePatch:
		if p.merge, err = unstructured.DecodeObjectOrNull(body); err != nil {
			return nil, badRequest("error decoding patch: " + err.Error())
		}
		if p.merge == nil {
			return nil, badRequest("Invalid JSON Patch")
		}
	default: // strategic merge patch; null is an empty one
		if p.merge, err = unstructured.DecodeObjectOrNull(body); err != nil {
			return nil, badRequest(err.Error())
		}
	}
	return p, nil
}

// Apply patches cur, an object of the kind whose schema is s (strategic
// merge patches merge lists by its keys). smpQuoted is, for a strategic
// merge patch, the patch as the merge left it, as errors quote it.
func (p *Patch) Apply(s *schema.Schema, cur obj) (patched obj, smpQuoted string, _ *Error) {
	if p.applied && p.mt != JSONPatch {
		p.merge, _ = unstructured.DecodeObjectOrNull(p.body) // it decoded before
	}
	p.applied = true
	switch p.mt {
	case JSONPatch:
		if len(p.ops) > MaxOperations {
			return nil, "", &Error{Code: http.StatusRequestEntityTooLarge, Msg: fmt.Sprintf(
				"Request entity too large: The allowed maximum operations in a JSON patch is %d, got %d", MaxOperations, len(p.ops))}
		}
		v, err := jsonpatch.ApplyValueLimit(cur, p.ops, MaxCopyBytes)
		if err == nil {
			v, err = unstructured.ExactNumbers(v) // the operations' numbers are json.Number
		}
		if err != nil {
			// A failed test, a missing path: the real server answers
			// every failure to apply a JSON patch this way (wire 17).
			return nil, "", rejected
		}
		o, isObj := v.(obj)
		if !isObj {
			return nil, "", badRequest("the patched document is not a JSON object")
		}
		return o, "", nil
	case MergePatch:
		o, _ := jsonpatch.MergeValue(cur, p.merge).(obj)
		if o == nil {
			return nil, "", badRequest("the patched document is not a JSON object")
		}
		return o, "", nil
	}
	o, quoted, err := strategicmerge.Merge(s, cur, p.merge)
	if err != nil {
		switch err.Code {
		case http.StatusBadRequest:
			return nil, "", badRequest(err.Msg)
		case http.StatusUnprocessableEntity:
			return nil, "", rejected
		}
		return nil, "", &Error{Code: http.StatusInternalServerError, Msg: err.Msg}
	}
	return o, quoted, nil
}
