// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// answerGrace is how long past its deadline a review waits for the
// answer of an fn that returned at the deadline before it is answered
// with a timeout.
const answerGrace = 10 * time.Millisecond

// ServeHTTP answers one AdmissionReview; see [Admission].
//
// The review is read here, within the deadline (the connection's read
// deadline is set to it, where the server allows it), and decoded,
// decided and encoded by a goroutine of its own, so that a step that
// cannot be interrupted (decoding a large object) does not delay the
// answer past the deadline. ServeHTTP waits for that goroutine before it
// returns, and the review's memory stays reserved until then.
func (h *AdmissionHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h == nil {
		notMade(w, "*webhook.AdmissionHandler")
		return
	}
	timeout, timeoutErr := requestTimeout(r)
	if timeoutErr != nil {
		timeout = DefaultTimeout // answered with 400 once the uid is known
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	deadline, _ := ctx.Deadline()
	_ = http.NewResponseController(w).SetReadDeadline(deadline) // not every writer supports it
	body, release, rerr := h.budget.read(w, r, h.limits())
	if rerr != nil {
		if ctx.Err() != nil && rerr.code == http.StatusBadRequest { // the body was cut at the deadline
			rerr = notAnswered(ctx, timeout)
		}
		writeError(w, rerr)
		return
	}
	defer release()

	answered := make(chan answer, 1)
	decoded := make(chan reviewID, 1)
	var wg sync.WaitGroup
	defer wg.Wait() // before release
	wg.Go(func() { answered <- h.answer(ctx, body, timeoutErr, decoded) })
	select {
	case a := <-answered:
		a.write(w)
		return
	case <-ctx.Done():
	}
	grace := time.NewTimer(answerGrace)
	defer grace.Stop()
	select {
	case a := <-answered:
		a.write(w)
		return
	case <-grace.C:
	}
	select {
	case id := <-decoded:
		resp := Denied(fmt.Errorf("admission webhook did not answer within the timeout of %v: %w", timeout, ctx.Err()), nil)
		resp.UID = id.uid
		encodeJSON(http.StatusOK, AdmissionReview{APIVersion: id.version, Kind: "AdmissionReview", Response: &resp}).write(w)
	default:
		writeError(w, notAnswered(ctx, timeout))
	}
	// Send the answer now, not when the work left ends.
	_ = http.NewResponseController(w).Flush()
}

// notAnswered is the HTTP error of a review whose uid was not decoded
// by its deadline.
func notAnswered(ctx context.Context, timeout time.Duration) *requestError {
	return &requestError{http.StatusGatewayTimeout, fmt.Sprintf(
		"admission review not read and decoded within the timeout of %v: %v", timeout, context.Cause(ctx))}
}

// reviewID is what a review's timeout answer needs of it.
type reviewID struct{ uid, version string }

// answer decodes body, has fn decide it, and encodes the answer. It sends
// the review's uid and version on decoded once it has them. A review
// whose deadline passed while it was decoded is denied without calling
// fn.
func (h *AdmissionHandler) answer(ctx context.Context, body []byte, timeoutErr error, decoded chan<- reviewID) (a answer) {
	defer func() { // a panic in a decoder of the review's types
		if p := recover(); p != nil {
			a = encodeError(&requestError{http.StatusInternalServerError, fmt.Sprintf("decode admission review: panic: %v", p)})
		}
	}()
	// A type error leaves the fields that did decode in place, the uid
	// among them; a syntax error leaves nothing.
	var review AdmissionReview
	decodeErr := json.Unmarshal(body, &review)
	if review.Request == nil || review.Request.UID == "" {
		msg := "admission review has no request.uid"
		if decodeErr != nil {
			msg = fmt.Sprintf("decode admission review: %v", decodeErr)
		}
		return encodeError(&requestError{http.StatusBadRequest, msg})
	}
	version, versionErr := reviewVersion(review.APIVersion, review.Kind, "AdmissionReview", AdmissionV1, AdmissionV1beta1)
	decoded <- reviewID{review.Request.UID, version}
	var resp AdmissionResponse
	switch {
	case decodeErr != nil:
		resp = Errored(http.StatusBadRequest, fmt.Errorf("decode admission review: %w", decodeErr))
	case versionErr != nil:
		resp = Errored(http.StatusBadRequest, fmt.Errorf("decode admission review: %w", versionErr))
	case timeoutErr != nil:
		resp = Errored(http.StatusBadRequest, timeoutErr)
	case ctx.Err() != nil:
		resp = Denied(fmt.Errorf("decode admission review: %w", ctx.Err()), nil)
	default:
		resp = admit(ctx, h.fn, review.Request)
	}
	resp.UID = review.Request.UID
	return encodeJSON(http.StatusOK, AdmissionReview{APIVersion: version, Kind: "AdmissionReview", Response: &resp})
}
