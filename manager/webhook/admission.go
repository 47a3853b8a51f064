// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/internal/jsonpatch"
	"github.com/kubeloop/kubeloop/kube"
)

// AdmitFunc decides one admission request. Its context is done when the
// timeout the API server gave passes, or when the API server hangs up.
// It must not keep req or its slices after it returns.
type AdmitFunc func(ctx context.Context, req *AdmissionRequest) AdmissionResponse

// Admission returns the handler that answers AdmissionReviews with fn:
//
//   - A review is answered with HTTP 200 and a review in the version it was
//     asked in (admission.k8s.io/v1 or v1beta1), whose response carries the
//     request's uid, whatever fn put there.
//   - fn's context is bounded by the timeout parameter the API server
//     appends to the URL (?timeout=10s), or by [DefaultTimeout].
//   - A review that is malformed but has a uid (a field of the wrong type,
//     an unknown apiVersion, a bad timeout parameter) is answered with
//     allowed=false and status code 400, without calling fn.
//   - A request that gives no uid to answer (not a POST, not
//     application/json, larger than [MaxAdmissionBytes], not JSON, no
//     request.uid) is answered with an HTTP error (405, 415, 413, 400) and
//     a Status body; the API server counts that as a failed call and
//     applies the webhook's failurePolicy.
//   - A panic in fn is recovered and answered with allowed=false and
//     status code 500 quoting the panic value.
func Admission(fn AdmitFunc) http.Handler { return admissionHandler(fn) }

type admissionHandler AdmitFunc

func (h admissionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, rerr := readReview(w, r, MaxAdmissionBytes)
	if rerr != nil {
		writeError(w, rerr)
		return
	}
	// A type error leaves the fields that did decode in place, the uid
	// among them; a syntax error leaves nothing.
	var review AdmissionReview
	decodeErr := json.Unmarshal(body, &review)
	if review.Request == nil || review.Request.UID == "" {
		msg := "admission review has no request.uid"
		if decodeErr != nil {
			msg = fmt.Sprintf("decode admission review: %v", decodeErr)
		}
		writeError(w, &requestError{http.StatusBadRequest, msg})
		return
	}
	version, versionErr := reviewVersion(review.APIVersion, review.Kind, "AdmissionReview", AdmissionV1, AdmissionV1beta1)
	timeout, timeoutErr := requestTimeout(r)
	var resp AdmissionResponse
	switch {
	case decodeErr != nil:
		resp = Errored(http.StatusBadRequest, fmt.Errorf("decode admission review: %w", decodeErr))
	case versionErr != nil:
		resp = Errored(http.StatusBadRequest, fmt.Errorf("decode admission review: %w", versionErr))
	case timeoutErr != nil:
		resp = Errored(http.StatusBadRequest, timeoutErr)
	default:
		ctx, cancel := context.WithTimeout(r.Context(), timeout)
		resp = admit(ctx, AdmitFunc(h), review.Request)
		cancel()
	}
	resp.UID = review.Request.UID
	writeJSON(w, http.StatusOK, AdmissionReview{APIVersion: version, Kind: "AdmissionReview", Response: &resp})
}

// admit calls fn, turning a panic into an error response.
func admit(ctx context.Context, fn AdmitFunc, req *AdmissionRequest) (resp AdmissionResponse) {
	defer func() {
		if p := recover(); p != nil {
			resp = Errored(http.StatusInternalServerError, fmt.Errorf("admission webhook panicked: %v", p))
		}
	}()
	return fn(ctx, req)
}

// Allowed admits the request, with warnings for the client.
func Allowed(warnings []string) AdmissionResponse {
	return AdmissionResponse{Allowed: true, Warnings: warnings}
}

// Denied refuses the request because of err, or admits it when err is
// nil. The client sees:
//   - for a [*kube.StatusError] (anywhere in err's chain), its status:
//     code, reason, message and details, as a handler that wants
//     "Invalid" with field causes writes it;
//   - for a deadline (context.DeadlineExceeded), code 504, reason
//     "Timeout";
//   - otherwise code 403, reason "Forbidden", and err's message.
func Denied(err error, warnings []string) AdmissionResponse {
	if err == nil {
		return Allowed(warnings)
	}
	var st kube.Status
	var se *kube.StatusError
	switch {
	case errors.As(err, &se):
		st = se.Status
		if st.Code == 0 {
			st.Code = http.StatusForbidden
		}
		if st.Message == "" {
			st.Message = err.Error()
		}
	case errors.Is(err, context.DeadlineExceeded):
		st = kube.Status{Code: http.StatusGatewayTimeout, Reason: kube.ReasonTimeout, Message: err.Error()}
	default:
		st = kube.Status{Code: http.StatusForbidden, Reason: kube.ReasonForbidden, Message: err.Error()}
	}
	st.TypeMeta = kube.TypeMeta{}
	st.Status = "Failure"
	return AdmissionResponse{Allowed: false, Result: &st, Warnings: warnings}
}

// Errored refuses a request the handler could not judge (code 400 for a
// request it cannot read, 500 for its own failure).
func Errored(code int, err error) AdmissionResponse {
	return AdmissionResponse{Allowed: false, Result: &kube.Status{
		Status: "Failure", Code: int32(code), Reason: kube.ReasonForCode(code), Message: err.Error(),
	}}
}

// patched admits the request with the operations that change the object,
// as a base64 JSON patch; with no operations it is [Allowed].
func patched(ops []jsonpatch.Operation, warnings []string) (AdmissionResponse, error) {
	if len(ops) == 0 {
		return Allowed(warnings), nil
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return AdmissionResponse{}, fmt.Errorf("encode patch: %w", err)
	}
	return AdmissionResponse{Allowed: true, Patch: patch, PatchType: PatchTypeJSONPatch, Warnings: warnings}, nil
}
