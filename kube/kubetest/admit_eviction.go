// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"strings"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/disruption"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file puts the admission webhooks before an eviction, a CREATE of
// pods/eviction whose object is the Eviction, as the real server calls
// them; the pod's deletion that follows is not admitted again, as on the
// real server.

// admitEviction calls the webhooks for the eviction body (opts decoded
// from it) and answers the options of the Eviction as they left it.
func (s *Server) admitEviction(c *call, body []byte, opts *protobuf.DeleteOptions) (*protobuf.DeleteOptions, *kube.StatusError) {
	var hooks []admission.Webhook
	var req *admission.Request
	s.withLock(func() {
		if hooks = s.webhooksLocked(); len(hooks) > 0 {
			req = s.admissionRequestLocked(c.write(), true, nil)
		}
	})
	if len(hooks) == 0 {
		return opts, nil
	}
	eviction, err := unstructured.DecodeObjectOrNull(body)
	if err != nil || eviction == nil {
		return opts, nil // DecodeEviction read it: it is JSON
	}
	req.KindGroup, req.KindVersion, req.Kind = "policy", "v1", "Eviction"
	if v, ok := strings.CutPrefix(unstructured.String(eviction, "apiVersion"), "policy/"); ok {
		req.KindVersion = v
	}
	req.Object = eviction
	s.nullCreationTimestamp(eviction)
	ctx, cancel := s.webhookContext(c)
	defer cancel()
	mutated, changed, warnings, serr := admission.Mutate(ctx, hooks, s.opts.WebhookServices, req)
	c.warnAll(warnings)
	if serr != nil {
		return nil, serr
	}
	req.Object = mutated
	warnings, serr = admission.Validate(ctx, hooks, s.opts.WebhookServices, req)
	c.warnAll(warnings)
	if serr != nil || !changed {
		return opts, serr
	}
	next, invalid := disruption.DecodeEviction(encodeObject(mutated), c.info.Name, c.info.Namespace)
	if invalid != "" {
		return nil, apierr.BadRequest(invalid)
	}
	return next, nil
}
