// SPDX-License-Identifier: Apache-2.0

package webhook

import (
	"fmt"
	"net/http"
	"strconv"
	"sync/atomic"
)

// limits bound the reviews one handler answers, with the defaults filled
// in. A review's cost is the memory it is expected to hold while it is
// answered; [Conversion] counts its body, [AdmissionHandler] estimates it
// from the body's JSON (admissionCost).
type limits struct {
	// what names the handler in messages: "conversion", "admission".
	what string
	// body bounds one review's body (field MaxRequestBytes); cost bounds
	// one review's cost (costField), which is at least its body.
	body, cost int64
	costField  string
	// inFlight bounds the costs of the reviews being answered at once.
	inFlight int64
	// costOf is the cost of a body; nil means its length.
	costOf func(body []byte) (cost int64, why string)
}

// budget is the cost of the reviews a handler is answering, kept within
// a limits' inFlight. The zero value holds nothing.
type budget struct {
	// inFlight is the sum of the costs reserved by the reviews being
	// answered: while a body is read, its stated length (or the body
	// limit when it states none); once read, its cost.
	inFlight atomic.Int64
}

// reserve adds n to the cost in flight if that keeps it within limit, and
// returns the cost that was in flight before.
func (b *budget) reserve(n, limit int64) (used int64, ok bool) {
	for {
		used = b.inFlight.Load()
		if used+n > limit {
			return used, false
		}
		if b.inFlight.CompareAndSwap(used, used+n) {
			return used, true
		}
	}
}

// read checks that r is a POST of application/json and reads its body
// within l: a body over l.body is refused with 413 (unread when its length
// is stated), one whose cost passes l.cost with 413, and one that would
// take the cost in flight past l.inFlight with 429 and Retry-After: 1,
// before its body is read when it states its length. On success the
// review's cost stays reserved until release is called; on failure
// nothing is.
func (b *budget) read(w http.ResponseWriter, r *http.Request, l limits) (body []byte, release func(), rerr *requestError) {
	if rerr := checkPost(w, r); rerr != nil {
		return nil, nil, rerr
	}
	if r.ContentLength > l.body {
		return nil, nil, l.tooLarge(strconv.FormatInt(r.ContentLength, 10) + " bytes")
	}
	held := r.ContentLength
	if held < 0 { // not stated: it may be as large as the limit
		held = l.body
	}
	if used, ok := b.reserve(held, l.inFlight); !ok {
		return nil, nil, l.busy(w, used, held)
	}
	body, rerr = readBody(w, r, l.body)
	if rerr != nil {
		b.inFlight.Add(-held)
		if rerr.code == http.StatusRequestEntityTooLarge {
			rerr = l.tooLarge("more than " + strconv.FormatInt(l.body, 10) + " bytes")
		}
		return nil, nil, rerr
	}
	cost, why := int64(len(body)), ""
	if l.costOf != nil {
		cost, why = l.costOf(body)
	}
	if cost > l.cost {
		b.inFlight.Add(-held)
		return nil, nil, &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"%s review of %d bytes is expected to take %d bytes of memory (%s), more than the limit of %d bytes; raise the %s webhook's %s if objects this large are expected",
			l.what, len(body), cost, why, l.cost, l.what, l.costField)}
	}
	if cost > held {
		if used, ok := b.reserve(cost-held, l.inFlight); !ok {
			b.inFlight.Add(-held)
			return nil, nil, l.busy(w, used-held, cost)
		}
	} else {
		b.inFlight.Add(cost - held)
	}
	return body, func() { b.inFlight.Add(-cost) }, nil
}

// tooLarge is the refusal of a body larger than l.body; size says how
// large it is.
func (l limits) tooLarge(size string) *requestError {
	return &requestError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
		"%s review of %s is larger than the limit of %d bytes; raise the %s webhook's MaxRequestBytes if objects this large are expected",
		l.what, size, l.body, l.what)}
}

// busy is the refusal of a review of cost n while used is in flight.
func (l limits) busy(w http.ResponseWriter, used, n int64) *requestError {
	w.Header().Set("Retry-After", "1")
	return &requestError{http.StatusTooManyRequests, fmt.Sprintf(
		"%s webhook is busy: the reviews being answered take %d bytes, and this one of %d bytes would pass the limit of %d bytes in flight; retry",
		l.what, used, n, l.inFlight)}
}

// Admission reviews are decoded several times over (the review, the
// object into its Go type and into generic JSON values, the copies a
// patch is computed from, the patch itself), and each JSON value costs
// far more once decoded than its text: measured through [MutatingFor]
// (see admission_memory_test.go), an array of one million numbers (2 MB)
// held 414 bytes per number at its peak, and an array of 160,000 objects
// of one member (5 MB) 1,730 bytes per object, 577 per structural
// character. admissionCost counts 640 bytes per structural character
// ({, [, :, ,) outside strings, plus twice the body.
const admissionBytesPerToken = 640

// admissionCost estimates the memory an admission review takes while it
// is answered. It reads body once, in time linear in its size.
func admissionCost(body []byte) (int64, string) {
	tokens := int64(0)
	inString, escaped := false, false
	for _, c := range body {
		switch {
		case escaped:
			escaped = false
		case inString:
			switch c {
			case '\\':
				escaped = true
			case '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[' || c == ':' || c == ',':
			tokens++
		}
	}
	return 2*int64(len(body)) + tokens*admissionBytesPerToken,
		fmt.Sprintf("%d JSON values and members, at %d bytes each", tokens, admissionBytesPerToken)
}
