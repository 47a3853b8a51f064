// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
)

// This file builds the Status errors the server answers with, word for word
// as kube-apiserver builds them (k8s.io/apimachinery/pkg/api/errors and
// pkg/util/validation/field), and writes them.

// encodeStatus renders st as the server does (encode.Status).
func encodeStatus(st *kube.Status) []byte { return encode.Status(st) }

// writeError writes err as a Status body with its code, and a Retry-After
// header when the error carries one.
func writeError(w http.ResponseWriter, err *kube.StatusError) {
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
	writeJSON(w, code, encodeStatus(&st))
}

// writeJSON writes body with the headers every API answer carries.
func writeJSON(w http.ResponseWriter, code int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-cache, private")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(code)
	_, _ = w.Write(body)
}

// statusError builds a Failure Status error.
func statusError(code int, reason, message string, details *kube.StatusDetails) *kube.StatusError {
	e := kube.NewStatusError(code, reason, message)
	e.Status.Details = details
	return e
}

// qualified is a resource as errors name it: "configmaps" or
// "deployments.apps".
func qualified(group, plural string) string {
	if group == "" {
		return plural
	}
	return plural + "." + group
}

func errNotFound(res *resource, name string) *kube.StatusError {
	return statusError(http.StatusNotFound, kube.ReasonNotFound,
		fmt.Sprintf("%s %q not found", qualified(res.Group, res.Plural), name),
		&kube.StatusDetails{Name: name, Group: res.Group, Kind: res.Plural})
}

func errNamespaceNotFound(ns string) *kube.StatusError {
	return statusError(http.StatusNotFound, kube.ReasonNotFound,
		fmt.Sprintf("namespaces %q not found", ns), &kube.StatusDetails{Name: ns, Kind: "namespaces"})
}

func errAlreadyExists(res *resource, name string) *kube.StatusError {
	return statusError(http.StatusConflict, kube.ReasonAlreadyExists,
		fmt.Sprintf("%s %q already exists", qualified(res.Group, res.Plural), name),
		&kube.StatusDetails{Name: name, Group: res.Group, Kind: res.Plural})
}

// errConflict is an optimistic-concurrency or precondition failure.
func errConflict(res *resource, name, msg string) *kube.StatusError {
	return statusError(http.StatusConflict, kube.ReasonConflict,
		fmt.Sprintf("Operation cannot be fulfilled on %s %q: %s", qualified(res.Group, res.Plural), name, msg),
		&kube.StatusDetails{Name: name, Group: res.Group, Kind: res.Plural})
}

const msgModified = "the object has been modified; please apply your changes to the latest version and try again"

func errForbidden(group, plural, name, msg string) *kube.StatusError {
	var message string
	if name == "" {
		message = fmt.Sprintf("%s is forbidden: %s", qualified(group, plural), msg)
	} else {
		message = fmt.Sprintf("%s %q is forbidden: %s", qualified(group, plural), name, msg)
	}
	return statusError(http.StatusForbidden, kube.ReasonForbidden, message,
		&kube.StatusDetails{Name: name, Group: group, Kind: plural})
}

func errBadRequest(msg string) *kube.StatusError {
	return statusError(http.StatusBadRequest, kube.ReasonBadRequest, msg, nil)
}

func errExpired(msg string) *kube.StatusError {
	return statusError(http.StatusGone, kube.ReasonExpired, msg, nil)
}

// errResourceNotFound is the answer for a path the server does not serve.
func errResourceNotFound() *kube.StatusError {
	return statusError(http.StatusNotFound, kube.ReasonNotFound,
		"the server could not find the requested resource", &kube.StatusDetails{})
}

func errMethodNotAllowed() *kube.StatusError {
	return statusError(http.StatusMethodNotAllowed, kube.ReasonMethodNotAllowed,
		"the server does not allow this method on the requested resource", &kube.StatusDetails{})
}

func errUnsupportedMedia(accepted ...string) *kube.StatusError {
	return statusError(http.StatusUnsupportedMediaType, kube.ReasonUnsupportedMedia,
		"the body of the request was in an unknown format - accepted media types include: "+strings.Join(accepted, ", "), nil)
}

func errNotAcceptable() *kube.StatusError {
	return statusError(http.StatusNotAcceptable, kube.ReasonNotAcceptable,
		"only the following media types are accepted: application/json", nil)
}

// errTooLargeRV is the answer for a resourceVersion the server has not
// reached yet (storage.NewTooLargeResourceVersionError).
func errTooLargeRV(want, current uint64) *kube.StatusError {
	return statusError(http.StatusGatewayTimeout, kube.ReasonTimeout,
		fmt.Sprintf("Timeout: Too large resource version: %d, current: %d", want, current),
		&kube.StatusDetails{
			Causes:            []kube.StatusCause{{Type: "ResourceVersionTooLarge", Message: "Too large resource version"}},
			RetryAfterSeconds: 1,
		})
}

// errInvalid is a 422 Invalid naming the kind ("ConfigMap",
// "Deployment.apps") and the object, with one cause per field error; the
// message lists each different error once, as the real aggregate does.
func errInvalid(group, kind, name string, errs []fielderr.Error) *kube.StatusError {
	qkind := kind
	if group != "" {
		qkind = kind + "." + group
	}
	causes := make([]kube.StatusCause, len(errs))
	for i, e := range errs {
		causes[i] = kube.StatusCause{Type: e.Type, Message: e.Body(), Field: e.Field}
	}
	return statusError(http.StatusUnprocessableEntity, kube.ReasonInvalid, fielderr.Aggregate(qkind, name, errs),
		&kube.StatusDetails{Name: name, Group: group, Kind: kind, Causes: causes})
}

// errInvalidListOptions is the answer to a bad combination of list or watch
// parameters.
func errInvalidListOptions(errs []fielderr.Error) *kube.StatusError {
	return errInvalid("meta.k8s.io", "ListOptions", "", errs)
}
