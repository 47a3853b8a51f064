// SPDX-License-Identifier: Apache-2.0

package review

import (
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/fielderr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
)

// Serve answers r, a request of verb for a review of kind k, with 201
// and the review answered for req (any other verb than create is a 405);
// what is refused is a 400 or a 422. decode reads the body of r; a
// SelfSubjectReview's is only checked to be readable (kubectl sends it as
// protobuf, whose layout kubetest does not hold). req's Manager and Body
// are read from r.
func Serve(w http.ResponseWriter, r *http.Request, verb string, k *Kind, req Request, srv Server, decode func(*http.Request) (map[string]any, *kube.StatusError)) {
	if verb != "create" {
		apierr.Write(w, apierr.MethodNotAllowed())
		return
	}
	req.Manager = media.ManagerOf(r)
	var serr *kube.StatusError
	if k == &Self {
		serr = media.CheckBody(r)
	} else {
		req.Body, serr = decode(r)
	}
	if serr != nil {
		apierr.Write(w, serr)
		return
	}
	out, refused := Answer(k, req, srv)
	switch {
	case refused == nil:
		apierr.WriteJSON(w, http.StatusCreated, encode.Object(out))
	case refused.Errors != nil:
		apierr.Write(w, apierr.Invalid(k.Group, "", "", fielderr.InGoSyntax(refused.Errors, req.GoSyntaxValues)))
	default:
		apierr.Write(w, apierr.BadRequest(refused.Message))
	}
}
