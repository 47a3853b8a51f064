// SPDX-License-Identifier: Apache-2.0

package admission

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
)

// This file is the AdmissionReview on the wire: the request kube-apiserver
// sends (admission.k8s.io/v1 or v1beta1, the same fields) and the checks
// it makes of the answer.

// reviewVersion is the AdmissionReview version the webhook is sent: the
// first of its admissionReviewVersions the server speaks.
func reviewVersion(w *Webhook) (string, error) {
	for _, v := range w.ReviewVersions {
		if v == "v1" || v == "v1beta1" {
			return "admission.k8s.io/" + v, nil
		}
	}
	return "", fmt.Errorf("webhook does not accept known AdmissionReview versions")
}

// review encodes the AdmissionReview of req for w, with a new uid.
func review(apiVersion string, req *Request, uid string) []byte {
	kind := obj{"group": req.Group, "version": req.Version, "kind": req.Kind}
	if req.KindVersion != "" {
		kind = obj{"group": req.KindGroup, "version": req.KindVersion, "kind": req.Kind}
	}
	r := obj{"uid": uid,
		"kind":            kind,
		"resource":        obj{"group": req.Group, "version": req.Version, "resource": req.Resource},
		"requestKind":     kind,
		"requestResource": obj{"group": req.Group, "version": req.Version, "resource": req.Resource},
		"operation":       req.Operation, "userInfo": req.UserInfo,
		"object": req.Object, "oldObject": req.OldObject, "dryRun": req.DryRun, "options": req.Options,
	}
	if req.Subresource != "" {
		r["subResource"], r["requestSubResource"] = req.Subresource, req.Subresource
	}
	if req.Name != "" {
		r["name"] = req.Name
	}
	if req.Namespace != "" {
		r["namespace"] = req.Namespace
	}
	body, _ := json.Marshal(obj{"kind": "AdmissionReview", "apiVersion": apiVersion, "request": r})
	return body
}

// response is the part of an AdmissionReview's response kubetest reads.
type response struct {
	UID       string       `json:"uid"`
	Allowed   bool         `json:"allowed"`
	Status    *kube.Status `json:"status"`
	Patch     []byte       `json:"patch"`
	PatchType *string      `json:"patchType"`
	Warnings  []string     `json:"warnings"`
}

// decodeResponse reads the webhook's answer as the real server verifies
// it; an error is what "received invalid webhook response" reports.
func decodeResponse(apiVersion, uid string, body []byte, mutating bool) (*response, error) {
	var rv struct {
		APIVersion string    `json:"apiVersion"`
		Kind       string    `json:"kind"`
		Response   *response `json:"response"`
	}
	if err := json.Unmarshal(body, &rv); err != nil {
		return nil, err
	}
	if rv.APIVersion != apiVersion || rv.Kind != "AdmissionReview" {
		return nil, fmt.Errorf("expected webhook response of %s, Kind=AdmissionReview, got %s, Kind=%s", apiVersion, rv.APIVersion, rv.Kind)
	}
	r := rv.Response
	if r == nil {
		return nil, errors.New("webhook response was absent")
	}
	if r.UID != uid {
		return nil, fmt.Errorf("expected response.uid=%q, got %q", uid, r.UID)
	}
	if apiVersion == "admission.k8s.io/v1" {
		switch {
		case !mutating && r.PatchType != nil:
			return nil, errors.New("validating webhook may not return response.patchType")
		case !mutating && len(r.Patch) > 0:
			return nil, errors.New("validating webhook may not return response.patch")
		case len(r.Patch) > 0 && r.PatchType == nil:
			return nil, errors.New("webhook returned response.patch but not response.patchType")
		case r.PatchType != nil && *r.PatchType != "JSONPatch":
			return nil, fmt.Errorf("webhook returned invalid response.patchType of %q", *r.PatchType)
		}
	}
	return r, nil
}

// newUID is a random UUID (version 4), the review's uid.
func newUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// denied is the real server's answer to a webhook that refused: the
// webhook's status with its message prefixed, 400 when it gave no error
// code (ToStatusErr).
func denied(w *Webhook, st *kube.Status) *kube.StatusError {
	s := kube.Status{}
	if st != nil {
		s = *st
	}
	s.TypeMeta = kube.TypeMeta{APIVersion: "v1", Kind: "Status"}
	if s.Code < http.StatusBadRequest {
		s.Code = http.StatusBadRequest
	}
	if s.Status == "" || s.Status == "Success" {
		s.Status = "Failure"
	}
	by := fmt.Sprintf("admission webhook %q denied the request", w.Name)
	switch {
	case s.Message != "":
		s.Message = by + ": " + s.Message
	case s.Reason != "":
		s.Message = by + ": " + s.Reason
	default:
		s.Message = by + " without explanation"
	}
	return &kube.StatusError{Status: s}
}

// internalError is kube-apiserver's NewInternalError(err): 500, reason
// InternalError, the message once more as the cause.
func internalError(msg string) *kube.StatusError {
	return &kube.StatusError{Status: kube.Status{TypeMeta: kube.TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status: "Failure", Code: http.StatusInternalServerError, Reason: "InternalError",
		Message: "Internal error occurred: " + msg,
		Details: &kube.StatusDetails{Causes: []kube.StatusCause{{Message: msg}}}}}
}

// callError is a failure to get an answer from w (ErrCallingWebhook):
// what failurePolicy Ignore ignores.
type callError struct {
	hook   string
	reason error
}

func (e *callError) Error() string {
	return fmt.Sprintf("failed calling webhook %q: %v", e.hook, e.reason)
}
