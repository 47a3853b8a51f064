// SPDX-License-Identifier: Apache-2.0

// Package apierr builds the Status errors a kubetest server answers with,
// word for word as kube-apiserver builds them
// (k8s.io/apimachinery/pkg/api/errors and pkg/util/validation/field),
// and writes them and other JSON answers with the real server's headers.
//
// Guarantees:
//   - Pure: every constructor returns a new error; nothing is kept.
//   - Write never changes the error it writes; a code of zero is a 500,
//     a missing status "Failure".
package apierr

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// Write writes err as a Status body with its code, and a Retry-After
// header when the error carries one.
func Write(w http.ResponseWriter, err *kube.StatusError) {
	st := err.Status
	if err.RetryAfter > 0 {
		secs := int32((err.RetryAfter + 999_999_999) / 1_000_000_000)
		w.Header().Set("Retry-After", strconv.Itoa(int(secs)))
		if st.Details == nil {
			st.Details = &kube.StatusDetails{}
		} else {
			d := *st.Details
			st.Details = &d
		}
		if st.Details.RetryAfterSeconds == 0 {
			st.Details.RetryAfterSeconds = secs
		}
	}
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	if st.Status == "" {
		st.Status = "Failure"
	}
	WriteJSON(w, code, encode.Status(&st))
}

// WriteJSON writes body with the headers every API answer carries.
func WriteJSON(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// New builds a Failure Status error.
func New(code int, reason, message string, details *kube.StatusDetails) *kube.StatusError {
	e := kube.NewStatusError(code, reason, message)
	e.Status.Details = details
	return e
}

// Qualified is a resource as errors name it: "configmaps" or
// "deployments.apps".
func Qualified(group, plural string) string {
	if group == "" {
		return plural
	}
	return plural + "." + group
}

// NotFound is a 404 for the object name of the resource group/plural.
func NotFound(group, plural, name string) *kube.StatusError {
	return New(http.StatusNotFound, kube.ReasonNotFound,
		fmt.Sprintf("%s %q not found", Qualified(group, plural), name),
		&kube.StatusDetails{Name: name, Group: group, Kind: plural})
}

// NamespaceNotFound is a 404 for the namespace ns.
func NamespaceNotFound(ns string) *kube.StatusError {
	return New(http.StatusNotFound, kube.ReasonNotFound,
		fmt.Sprintf("namespaces %q not found", ns), &kube.StatusDetails{Name: ns, Kind: "namespaces"})
}

// AlreadyExists is a 409 for a create of an object that exists.
func AlreadyExists(group, plural, name string) *kube.StatusError {
	return New(http.StatusConflict, kube.ReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", Qualified(group, plural), name),
		&kube.StatusDetails{Name: name, Group: group, Kind: plural})
}

// Conflict is an optimistic-concurrency or precondition failure.
func Conflict(group, plural, name, msg string) *kube.StatusError {
	return New(http.StatusConflict, kube.ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", Qualified(group, plural), name, msg),
		&kube.StatusDetails{Name: name, Group: group, Kind: plural})
}

// MsgModified is the message of a Conflict on a stale resourceVersion.
const MsgModified = "the object has been modified; please apply your changes to the latest version and try again"

// Forbidden is a 403 naming the resource, the object when name is set,
// and why.
func Forbidden(group, plural, name, msg string) *kube.StatusError {
	var message string
	if name == "" {
		message = fmt.Sprintf("%s is forbidden: %s", Qualified(group, plural), msg)
	} else {
		message = fmt.Sprintf("%s %q is forbidden: %s", Qualified(group, plural), name, msg)
	}
	return New(http.StatusForbidden, kube.ReasonForbidden, message,
		&kube.StatusDetails{Name: name, Group: group, Kind: plural})
}

// BadRequest is a 400 with msg.
func BadRequest(msg string) *kube.StatusError {
	return New(http.StatusBadRequest, kube.ReasonBadRequest, msg, nil)
}

// Expired is a 410 with msg.
func Expired(msg string) *kube.StatusError {
	return New(http.StatusGone, kube.ReasonExpired, msg, nil)
}

// ResourceNotFound is the answer for a path the server does not serve.
func ResourceNotFound() *kube.StatusError {
	return New(http.StatusNotFound, kube.ReasonNotFound,
		"the server could not find the requested resource", &kube.StatusDetails{})
}

// MethodNotAllowed is a 405 for a verb the resource does not serve.
func MethodNotAllowed() *kube.StatusError {
	return New(http.StatusMethodNotAllowed, kube.ReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", &kube.StatusDetails{})
}

// UnsupportedMedia is a 415 listing the accepted media types.
func UnsupportedMedia(accepted ...string) *kube.StatusError {
	return New(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(accepted, ", "), nil)
}

// NotAcceptable is a 406 for an Accept header the server cannot answer.
func NotAcceptable() *kube.StatusError {
	return New(http.StatusNotAcceptable, kube.ReasonNotAcceptable,
		"only the following media types are accepted: application/json", nil)
}

// TooLargeRV is the answer for a resourceVersion the server has not
// reached yet (storage.NewTooLargeResourceVersionError).
func TooLargeRV(want, current uint64) *kube.StatusError {
	return New(http.StatusGatewayTimeout, kube.ReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", want, current),
		&kube.StatusDetails{
			Causes:            []kube.StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		})
}

// Invalid is a 422 Invalid naming the kind ("ConfigMap",
// "Deployment.apps") and the object, with one cause per field error; the
// message lists each different error once, as the real aggregate does.
func Invalid(group, kind, name string, errs []fielderr.Error) *kube.StatusError {
	qkind := kind
	if group != "" {
		qkind = kind + "." + group
	}
	causes := make([]kube.StatusCause, len(errs))
	for i, e := range errs {
		causes[i] = kube.StatusCause{Type: e.Type, Message: e.Body(), Field: e.Field}
	}
	return New(http.StatusUnprocessableEntity, kube.ReasonInvalid, fielderr.Aggregate(qkind, name, errs),
		&kube.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// InvalidListOptions is the answer to a bad combination of list or watch
// parameters.
func InvalidListOptions(errs []fielderr.Error) *kube.StatusError {
	return Invalid("meta.k8s.io", "ListOptions", "", errs)
}
