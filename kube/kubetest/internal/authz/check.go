// SPDX-License-Identifier: Apache-2.0

package authz

import (
	"net/http"
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
)

// Attributes are what a resource request is authorized by.
type Attributes struct {
	User, Verb, Group, Resource, Subresource, Namespace, Name string
}

// Check refuses a request that a denial matches with the real server's
// 403 and message (the name left out of a list or a watch); nil when
// none does.
func (d *Denials) Check(a Attributes) *kube.StatusError {
	qualified, resource := apierr.Qualified(a.Group, a.Resource), a.Resource
	if a.Subresource != "" {
		qualified, resource = qualified+"/"+a.Subresource, resource+"/"+a.Subresource
	}
	if !d.Denies(a.User, a.Verb, qualified) {
		return nil
	}
	msg := ForbiddenMessage(a.User, a.Verb, resource, a.Group, a.Namespace)
	name := a.Name
	if a.Verb == "watch" || a.Verb == "list" {
		name = ""
	}
	return apierr.Forbidden(a.Group, a.Resource, name, msg)
}

// Authenticator returns the user of a bearer token none of the
// configured tokens is (a service account token a TokenRequest issued);
// false when it authenticates nobody.
type Authenticator func(token string) (user string, ok bool)

// AuthenticateRequest returns the user a request is made by, from its
// Authorization header: the user serviceAccount finds for a bearer
// token that is not a configured one, else as [Authenticate] says
// (public: the request reads a public path). A refusal is the real
// server's 401.
func AuthenticateRequest(tokens map[string]string, authorization string, public bool, serviceAccount Authenticator) (string, *kube.StatusError) {
	if token, ok := strings.CutPrefix(authorization, "Bearer "); ok {
		if token = strings.TrimSpace(token); token != "" && tokens[token] == "" {
			if user, ok := serviceAccount(token); ok {
				return user, nil
			}
		}
	}
	user, ok := Authenticate(tokens, authorization, public)
	if !ok {
		return "", apierr.New(http.StatusUnauthorized, kube.ReasonUnauthorized, "Unauthorized", nil)
	}
	return user, nil
}
