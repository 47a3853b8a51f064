// SPDX-License-Identifier: Apache-2.0

package authz

import (
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
