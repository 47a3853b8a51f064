// SPDX-License-Identifier: Apache-2.0

package kube

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/kubeloop/kubeloop/internal/errs"
	"github.com/kubeloop/kubeloop/internal/jsondec"
)

// Reasons the server puts in a Status, as the wire carries them.
const (
	ReasonNotFound           = "NotFound"
	ReasonAlreadyExists      = "AlreadyExists"
	ReasonConflict           = "Conflict"
	ReasonInvalid            = "Invalid"
	ReasonForbidden          = "Forbidden"
	ReasonUnauthorized       = "Unauthorized"
	ReasonGone               = "Gone"
	ReasonExpired            = "Expired"
	ReasonTooManyRequests    = "TooManyRequests"
	ReasonBadRequest         = "BadRequest"
	ReasonMethodNotAllowed   = "MethodNotAllowed"
	ReasonNotAcceptable      = "NotAcceptable"
	ReasonUnsupportedMedia   = "UnsupportedMediaType"
	ReasonInternalError      = "InternalError"
	ReasonServiceUnavailable = "ServiceUnavailable"
	ReasonTimeout            = "Timeout"
	ReasonServerTimeout      = "ServerTimeout"
	ReasonRequestEntityLarge = "RequestEntityTooLarge"
	ReasonStoreReadError     = "StorageReadError"
	ReasonUnknown            = ""
)

// knownReason reports whether reason is one of the Reason constants other
// than [ReasonUnknown]. The Is functions trust such a reason over the
// code; for any other reason they go by the code, as client-go does.
//
// Not inlined: binary size (cmd/mirror's TestBinarySize).
//
//go:noinline
func knownReason(reason string) bool {
	switch reason {
	case ReasonNotFound, ReasonAlreadyExists, ReasonConflict, ReasonInvalid, ReasonForbidden,
		ReasonUnauthorized, ReasonGone, ReasonExpired, ReasonTooManyRequests, ReasonBadRequest,
		ReasonMethodNotAllowed, ReasonNotAcceptable, ReasonUnsupportedMedia, ReasonInternalError,
		ReasonServiceUnavailable, ReasonTimeout, ReasonServerTimeout, ReasonRequestEntityLarge,
		ReasonStoreReadError:
		return true
	}
	return false
}

// Status is the server's answer to a failed call (and to a delete), as in
// shared/wire/07-create-conflict-exists.txt.
type Status struct {
	TypeMeta
	ListMeta `json:"metadata"`
	// Status is "Success" or "Failure".
	Status  string         `json:"status,omitempty"`
	Message string         `json:"message,omitempty"`
	Reason  string         `json:"reason,omitempty"`
	Details *StatusDetails `json:"details,omitempty"`
	Code    int32          `json:"code,omitempty"`
}

// StatusDetails names the object a Status is about and, for Invalid, the
// fields at fault.
type StatusDetails struct {
	Name              string        `json:"name,omitempty"`
	Group             string        `json:"group,omitempty"`
	Kind              string        `json:"kind,omitempty"`
	UID               string        `json:"uid,omitempty"`
	Causes            []StatusCause `json:"causes,omitempty"`
	RetryAfterSeconds int32         `json:"retryAfterSeconds,omitempty"`
}

// StatusCause is one reason an object is invalid.
type StatusCause struct {
	Type    string `json:"reason,omitempty"`
	Message string `json:"message,omitempty"`
	Field   string `json:"field,omitempty"`
}

// StatusError is an error the server reported. Compare with the Is
// functions ([IsNotFound], ...), which look through wrapping.
type StatusError struct {
	Status Status
	// RetryAfter is the server's Retry-After header or retryAfterSeconds,
	// zero when it gave none.
	RetryAfter time.Duration
	// plain marks an error built from a body that was not a Status.
	plain bool
}

// Error returns the server's message, or a description built from the
// code and reason when the message is empty.
func (e *StatusError) Error() string {
	if e == nil {
		return "<nil *kube.StatusError>"
	}
	if e.Status.Message != "" {
		return e.Status.Message
	}
	if e.Status.Reason != "" {
		return fmt.Sprintf("%s (%d)", e.Status.Reason, e.Status.Code)
	}
	return fmt.Sprintf("the server answered %d %s", e.Status.Code, http.StatusText(int(e.Status.Code)))
}

// NewStatusError builds a StatusError with a code, a reason and a message,
// as a fake server or a test needs.
func NewStatusError(code int, reason, message string) *StatusError {
	return &StatusError{Status: Status{
		TypeMeta: TypeMeta{APIVersion: "v1", Kind: "Status"},
		Status:   "Failure", Code: int32(code), Reason: reason, Message: message,
	}}
}

// maxErrorBody bounds how much of a non-Status error body is quoted.
const maxErrorBody = 512

// errorFromResponse turns a failed response (code >= 400) with its body into
// a *StatusError. A body that is not a Status still gives a useful error:
// the code, a reason derived from it, and the start of the body when it is
// text (a proxy's message), its shape when it is JSON (which may be an
// object, and a Secret's data is not for error messages). What a 404 of
// that kind means depends on the request: see plainNotFound.
func errorFromResponse(jd *jsondec.Decoder, code int, header http.Header, body []byte) *StatusError {
	var st Status
	plain := false
	if err := jd.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		plain = true
		msg := strings.TrimSpace(string(body))
		switch {
		case msg == "":
			msg = http.StatusText(code)
		case msg[0] == '{' || msg[0] == '[':
			msg = "not a Status: " + shapeOf(body)
		default:
			msg = truncate(msg, maxErrorBody)
		}
		st = Status{
			TypeMeta: TypeMeta{APIVersion: "v1", Kind: "Status"},
			Status:   "Failure",
			Reason:   ReasonForCode(code),
			Message:  fmt.Sprintf("the server answered %d: %s", code, msg),
		}
	}
	if st.Code == 0 {
		st.Code = int32(code)
	}
	e := &StatusError{Status: st, plain: plain}
	if secs, err := strconv.Atoi(header.Get("Retry-After")); err == nil && secs > 0 {
		// At most what retryAfterSeconds (an int32) can say: a larger
		// count of seconds would overflow a Duration.
		e.RetryAfter = time.Duration(min(secs, math.MaxInt32)) * time.Second
	} else if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		e.RetryAfter = time.Duration(st.Details.RetryAfterSeconds) * time.Second
	}
	return e
}

// ReasonForCode is the reason the server gives with a bare HTTP status
// code: [ReasonNotFound] for 404, and so on; [ReasonUnknown] for a code it
// has no reason for.
func ReasonForCode(code int) string {
	switch code {
	case http.StatusBadRequest:
		return ReasonBadRequest
	case http.StatusUnauthorized:
		return ReasonUnauthorized
	case http.StatusForbidden:
		return ReasonForbidden
	case http.StatusNotFound:
		return ReasonNotFound
	case http.StatusMethodNotAllowed:
		return ReasonMethodNotAllowed
	case http.StatusNotAcceptable:
		return ReasonNotAcceptable
	case http.StatusConflict:
		return ReasonConflict
	case http.StatusGone:
		return ReasonGone
	case http.StatusRequestEntityTooLarge:
		return ReasonRequestEntityLarge
	case http.StatusUnsupportedMediaType:
		return ReasonUnsupportedMedia
	case http.StatusUnprocessableEntity:
		return ReasonInvalid
	case http.StatusTooManyRequests:
		return ReasonTooManyRequests
	case http.StatusInternalServerError:
		return ReasonInternalError
	case http.StatusServiceUnavailable:
		return ReasonServiceUnavailable
	case http.StatusGatewayTimeout:
		return ReasonTimeout
	}
	return ReasonUnknown
}

// AsStatusError returns the *StatusError in err's chain, if any.
func AsStatusError(err error) (*StatusError, bool) {
	return errs.As[*StatusError](err)
}

// hasReason reports whether err is a *StatusError with reason, or with
// code and a reason the client does not know (none, or a newer server's):
// a known reason decides, so that at most one Is function holds. A code of
// 0 stands for none: the reason alone decides.
func hasReason(err error, reason string, code int32) bool {
	se, ok := AsStatusError(err)
	if !ok {
		return false
	}
	if se.Status.Reason == reason {
		return true
	}
	return code != 0 && se.Status.Code == code && !knownReason(se.Status.Reason)
}

// IsNotFound reports whether err says the object does not exist: a
// Status with reason NotFound (or code 404 and no reason the client
// knows), the plain 404 a Kubernetes API server answers for a resource
// it does not serve, or the 409 with which kube-apiserver 1.33 refuses a
// write conditional on an object deleted meanwhile (see
// [deletedMeanwhile]; 1.36 and 1.37 answer that write 404). A 404 from a
// server that does not answer as a Kubernetes API server is a
// [*NotKubernetesError], never NotFound.
func IsNotFound(err error) bool {
	return hasReason(err, ReasonNotFound, http.StatusNotFound) || deletedMeanwhile(err)
}

// deletedMeanwhile reports whether err is how kube-apiserver 1.33 answers a
// write with a precondition (the uid a PUT's object carries, a delete's
// preconditions) on an object deleted since it was read: 409 Conflict
// whose message holds storage's "invalid object" error, code 4, and names
// an empty stored value ("Precondition failed: UID in precondition: X,
// UID in object meta: "). Measured on 1.33.13; 1.36.3 and 1.37.2 answer
// the same write 404 NotFound. A precondition that meets another value (the
// name deleted and made again) is a Conflict on every version.
func deletedMeanwhile(err error) bool {
	se, ok := AsStatusError(err)
	if !ok || se.Status.Code != http.StatusConflict || se.Status.Reason != ReasonConflict {
		return false
	}
	msg := se.Status.Message
	if !strings.Contains(msg, "StorageError: invalid object, Code: 4") {
		return false
	}
	i := strings.LastIndex(msg, " in object meta:")
	return i >= 0 && strings.TrimSpace(msg[i+len(" in object meta:"):]) == ""
}

// IsAlreadyExists reports whether a create found the name taken. It goes
// by the reason alone: a 409 without one is [IsConflict].
func IsAlreadyExists(err error) bool { return hasReason(err, ReasonAlreadyExists, 0) }

// IsConflict reports whether a write lost an optimistic-concurrency race
// (stale resourceVersion). Retry it after reading the object again; see
// [RetryOnConflict].
//
// The 409 of 1.33 for an object deleted meanwhile is [IsNotFound], not a
// Conflict: reading again finds nothing to retry on.
func IsConflict(err error) bool {
	return hasReason(err, ReasonConflict, http.StatusConflict) && !deletedMeanwhile(err)
}

// IsInvalid reports whether the server rejected the object's content.
func IsInvalid(err error) bool {
	return hasReason(err, ReasonInvalid, http.StatusUnprocessableEntity)
}

// IsForbidden reports whether authorization denied the call.
func IsForbidden(err error) bool { return hasReason(err, ReasonForbidden, http.StatusForbidden) }

// IsUnauthorized reports whether the server did not accept the credentials.
func IsUnauthorized(err error) bool {
	return hasReason(err, ReasonUnauthorized, http.StatusUnauthorized)
}

// IsGone reports whether a resourceVersion or continue token is too old
// (reason Gone or Expired, or HTTP 410 with no reason the client knows). A
// reflector relists on it.
func IsGone(err error) bool {
	return hasReason(err, ReasonGone, http.StatusGone) || hasReason(err, ReasonExpired, 0)
}

// IsTooManyRequests reports whether the server asked the client to slow
// down (reason TooManyRequests, or HTTP 429 whatever the reason).
func IsTooManyRequests(err error) bool {
	se, ok := AsStatusError(err)
	return ok && (se.Status.Reason == ReasonTooManyRequests || se.Status.Code == http.StatusTooManyRequests)
}

// IsInternalError reports whether the server failed (HTTP 500).
func IsInternalError(err error) bool {
	return hasReason(err, ReasonInternalError, http.StatusInternalServerError)
}

// IgnoreNotFound returns nil for an error [IsNotFound] reports and err
// otherwise: the usual first lines of a reconcile that reads its object.
func IgnoreNotFound(err error) error {
	if IsNotFound(err) {
		return nil
	}
	return err
}
