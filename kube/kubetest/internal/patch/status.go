// SPDX-License-Identifier: Apache-2.0

package patch

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
)

// Status is the real server's answer to e: BadRequest, a 413, the
// generic Invalid of a 422 without details, or an internal error without
// reason.
func (e *Error) Status() *kube.StatusError {
	switch e.Code {
	case http.StatusBadRequest:
		return apierr.BadRequest(e.Msg)
	case http.StatusRequestEntityTooLarge:
		return apierr.New(http.StatusRequestEntityTooLarge, kube.ReasonRequestEntityLarge, e.Msg, nil)
	case http.StatusUnprocessableEntity:
		return apierr.New(http.StatusUnprocessableEntity, kube.ReasonInvalid,
			"the server rejected our request due to an error in our request", &kube.StatusDetails{})
	}
	return apierr.New(http.StatusInternalServerError, "", e.Msg, nil)
}
