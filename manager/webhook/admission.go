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
//   - The review is answered by its deadline: the timeout parameter the
//     API server appends to the URL (?timeout=10s), or [DefaultTimeout],
//     counted from the request's arrival, so that reading and decoding
//     the review count. fn's context ends then. A review still being read
//     or decoded at the deadline, or whose fn has not returned, is
//     answered at once (after at most 10ms given to an fn that returns
//     at its deadline): allowed=false with code 504 and reason Timeout,
//     or, when the uid is not decoded yet, an HTTP 504. The API server,
//     whose own deadline is no later, applies the webhook's
//     failurePolicy. The work left is dropped as soon as a step ends, and
//     the handler returns when it has.
//   - A review that is malformed but has a uid (a field of the wrong type,
//     an unknown apiVersion, a bad timeout parameter) is answered with
//     allowed=false and status code 400, without calling fn.
//   - A request that gives no uid to answer (not a POST, not
//     application/json, not JSON, no request.uid) is answered with an
//     HTTP error (405, 415, 400) and a Status body; the API server counts
//     that as a failed call and applies the webhook's failurePolicy. So
//     are the reviews refused by the memory limits (413, 429: see
//     [AdmissionHandler]).
//   - A panic in fn is recovered and answered with allowed=false and
//     status code 500 quoting the panic value.
func Admission(fn AdmitFunc) *AdmissionHandler { return &AdmissionHandler{fn: fn} }

// AdmissionHandler answers AdmissionReviews with a function; see
// [Admission], [ValidatingFor] and [MutatingFor], which make one. It
// bounds the memory of the reviews it answers, one by one and all
// together, as [Conversion] does:
//
//   - A review's memory is estimated from its body before it is decoded,
//     in one pass over it: twice the body, and 640 bytes per structural
//     character ({, [, : and , outside strings: about one per array
//     element, two per object member). Decoded, a small value takes
//     hundreds of bytes, and the typed handlers decode the object several
//     times over. Through [MutatingFor], a review of 30,000 small
//     objects is estimated at 57 MiB and raised the heap by 52 at its
//     peak; one of 160,000, 317 MiB and 264. A review whose body
//     is larger than MaxRequestBytes (unread when it states its length),
//     or whose estimate is larger than MaxMemoryBytes, is refused with
//     413; one that would take the estimates of the reviews being
//     answered at once past MaxInFlightBytes with 429 and Retry-After: 1,
//     which the API server retries (up to 10 times) before it fails the
//     client's request. The API server shows the message of either
//     refusal to its client.
//   - The limits are the handler's own: n handlers may hold n times
//     MaxInFlightBytes.
//
// Set the limits before the handler serves; it is safe for concurrent
// use.
type AdmissionHandler struct {
	// MaxRequestBytes bounds one review's body. Zero means
	// [MaxAdmissionBytes] (7 MiB), which holds the largest review the API
	// server sends.
	MaxRequestBytes int64
	// MaxMemoryBytes bounds the memory one review is estimated to take.
	// Zero means [MaxAdmissionMemory] (64 MiB): an object of about
	// 100,000 array elements or 50,000 object members.
	MaxMemoryBytes int64
	// MaxInFlightBytes bounds the estimated memory of the reviews being
	// answered at once (a review being read counts its stated length, or
	// MaxRequestBytes). Zero means twice MaxMemoryBytes
	// ([MaxAdmissionMemoryInFlight], 128 MiB, by default); it is never
	// less than MaxMemoryBytes or MaxRequestBytes.
	MaxInFlightBytes int64

	fn AdmitFunc
	// budget holds the estimated memory of the reviews being answered.
	budget budget
}

// limits returns the limits with the defaults filled in.
func (h *AdmissionHandler) limits() limits {
	request, memory, inFlight := h.MaxRequestBytes, h.MaxMemoryBytes, h.MaxInFlightBytes
	if request <= 0 {
		request = MaxAdmissionBytes
	}
	if memory <= 0 {
		memory = MaxAdmissionMemory
	}
	if inFlight <= 0 {
		inFlight = 2 * memory
	}
	return limits{what: "admission", body: request, cost: memory, costField: "MaxMemoryBytes",
		inFlight: max(request, memory, inFlight), costOf: admissionCost}
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
	se, isStatus := kube.AsStatusError(err)
	switch {
	case isStatus:
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
