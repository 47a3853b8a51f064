// SPDX-License-Identifier: Apache-2.0

package listopts

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
)

// The messages of the real server's 410s for a list at a version it no
// longer has.
const (
	MsgListTooOld      = "The resourceVersion for the provided list is too old."
	MsgContinueExpired = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
)

// Read reads a list or (watch) a watch query in the real server's order:
// the numbers ([Parse]), then the selectors ([Selectors], given the
// object's name, supported and notSupported), then their combination
// ([Validate], which may default a watch's options). A bad number or
// selector is a 400 BadRequest, a bad combination a 422 Invalid
// ListOptions listing every error.
func Read(q url.Values, name string, supported func(string) bool, notSupported func(string) string, watch, watchList bool) (
	o Query, labels kube.Selector, fields kube.FieldSelector, err *kube.StatusError) {
	o, bad := Parse(q)
	if bad == "" {
		labels, fields, bad = Selectors(q, name, supported, notSupported)
	}
	if bad != "" {
		return o, labels, fields, apierr.BadRequest(bad)
	}
	if errs := Validate(&o.Options, watch, watchList); len(errs) > 0 {
		return o, labels, fields, apierr.InvalidListOptions(errs)
	}
	return o, labels, fields, nil
}

// ParseRV parses the resourceVersion parameter of a get or a watch; ""
// is 0. The real server's storage fails on a malformed one with an
// internal error (500, no reason).
func ParseRV(s string) (uint64, *kube.StatusError) {
	if s == "" {
		return 0, nil
	}
	rv, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, apierr.New(http.StatusInternalServerError, "",
			fmt.Sprintf("resourceVersion: Invalid value: %q: %v", s, err), nil)
	}
	return rv, nil
}

// Version is the resourceVersion a list asks for, 0 for none; a
// continue token carries its own. The real server checks it before its
// storage sees it (400).
func (o *Options) Version() (uint64, *kube.StatusError) {
	if o.RV == "" {
		return 0, nil
	}
	if o.Continue != "" {
		return 0, apierr.BadRequest("specifying resource version is not allowed when using continue")
	}
	rv, err := ParseRV(o.RV)
	if err != nil {
		return 0, apierr.BadRequest("invalid resource version: " + err.Status.Message)
	}
	return rv, nil
}

// ReadContinue reads a continue token, a bad one answered with the real
// server's 400.
func ReadContinue(s string) (Token, *kube.StatusError) {
	t, invalid := DecodeContinue(s)
	if invalid != "" {
		return t, apierr.BadRequest(invalid)
	}
	return t, nil
}

// ContinueExpired is the real server's 410 for a continue token whose
// version is gone; its token goes on after start at the latest version.
func ContinueExpired(start string) *kube.StatusError {
	e := apierr.Expired(MsgContinueExpired)
	e.Status.Continue = EncodeContinue(-1, start)
	return e
}
