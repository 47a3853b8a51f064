// SPDX-License-Identifier: Apache-2.0

package deleteopts

import (
	"net/http"
	"net/url"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/media"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// Read reads the DeleteOptions of a DELETE r from its body and q, its
// query ([Parse]), and answers what is wrong with them as the real server does:
// a body of a media type it does not take is a 415, one it cannot read
// a 400, invalid options a 422.
func Read(r *http.Request, q url.Values) (*protobuf.DeleteOptions, *kube.StatusError) {
	body, err := media.ReadBody(r)
	if err != nil {
		return nil, err
	}
	o, bad := Parse(r.Header.Get("Content-Type"), body, q)
	switch {
	case bad.Unsupported:
		return nil, apierr.UnsupportedMedia(media.BodyTypes...)
	case bad.Message != "":
		return nil, apierr.BadRequest(bad.Message)
	case len(bad.Invalid) > 0:
		return nil, apierr.Invalid("meta.k8s.io", "DeleteOptions", "", bad.Invalid)
	}
	return o, nil
}
