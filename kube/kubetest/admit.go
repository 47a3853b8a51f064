// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/disruption"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/encode"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/review"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file puts the admission webhooks around the writes of clients:
// create, update and patch (status included), apply (internal/admission's
// Admit, given the write by admitting), delete (admit_delete.go), and an
// eviction's Eviction. A write without webhook configurations takes the
// lock once, as before.

// writeFunc makes a write of o under the server's lock.
type writeFunc func(wr *write, o obj) (updateResult, *kube.StatusError)

// admitted makes a client's write of o by store, calling the admission
// webhooks around it (admission.Admit). create says the request is a
// create (POST); otherwise it creates when the object is missing.
func (s *Server) admitted(wr *write, create bool, o obj, store writeFunc) (updateResult, *kube.StatusError) {
	return admission.Admit(admitting{s, wr, store}, create, o)
}

// admitWrite is one attempt of [Server.admitted] (admission.Attempt).
// base, when not nil, is the stored object o was computed from (a
// patch's). stale says the stored object changed: nothing was written
// and the caller starts over.
func (s *Server) admitWrite(wr *write, create bool, base *record, o obj, store writeFunc) (out updateResult, stale bool, err *kube.StatusError) {
	return admission.Attempt(admitting{s, wr, store}, create, base, o)
}

// createStore is createLocked as a writeFunc.
func (s *Server) createStore(wr *write, o obj) (updateResult, *kube.StatusError) {
	rec, err := s.createLocked(wr, o)
	return updateResult{rec: rec, created: true}, err
}

// updateStore is an update by wr.manager as a writeFunc.
func (s *Server) updateStore(wr *write, o obj) (updateResult, *kube.StatusError) {
	return s.updateLocked(wr, o, nil)
}

// webhooksLocked returns the webhooks of the stored configurations
// (admission.Configured).
func (s *Server) webhooksLocked() []admission.Webhook {
	configs := func(plural string) []map[string]any {
		var out []map[string]any
		if col := s.cols["admissionregistration.k8s.io/"+plural]; col != nil {
			for _, k := range col.keys() {
				if r := col.objects[k]; r != nil {
					out = append(out, mustDecode(r.raw))
				}
			}
		}
		return out
	}
	return admission.Configured(configs("mutatingwebhookconfigurations"), configs("validatingwebhookconfigurations"))
}

// isWebhookConfiguration says whether res holds webhook configurations,
// whose writes call no webhook (lest a webhook lock itself in) and which
// admission.Check vets.
func isWebhookConfiguration(res *resource) bool {
	return res.Group == "admissionregistration.k8s.io" &&
		(res.Plural == "validatingwebhookconfigurations" || res.Plural == "mutatingwebhookconfigurations")
}

// admissionRequestLocked is the review's request for wr, but its object.
func (s *Server) admissionRequestLocked(wr *write, create bool, prev *record) *admission.Request {
	res, c := wr.res, wr.call
	req := &admission.Request{Operation: "UPDATE", Group: res.Group, Version: res.Version, Resource: res.Plural,
		Subresource: wr.sub, Kind: res.Kind, Namespaced: res.Namespaced, Namespace: wr.namespace, Name: wr.name,
		UserInfo: review.UserInfo(c.info.User, reviewServer{s}), DryRun: wr.dryRun}
	kind := "UpdateOptions"
	if create {
		req.Operation, kind = "CREATE", "CreateOptions"
	} else if prev != nil {
		req.OldObject = s.reviewed(res, prev, false)
	}
	req.Options = admission.WriteOptions(kind, c.dryRun, c.q.Get("fieldManager"), c.q.Get("fieldValidation"))
	if ns := s.cols["/namespaces"].objects[wr.namespace]; ns != nil {
		req.NamespaceLabels = ns.labels
	}
	return req
}

// reviewed is rec's object as a webhook is sent it: in the resource's
// version, and for a create before the server gave it uid and
// creationTimestamp when forMutation (1.33 sends the latter null).
func (s *Server) reviewed(res *resource, rec *record, forMutation bool) obj {
	o := res.fromStored(mustDecode(rec.raw))
	if converted, err := res.Conversion.Read(o, res.APIVersion(), false); err == nil {
		o = converted // else the stored form; the write's answer fails as this did
	}
	o["apiVersion"] = res.APIVersion()
	if forMutation {
		meta := unstructured.Metadata(o)
		for _, k := range []string{"uid", "creationTimestamp", "generation", "resourceVersion"} {
			delete(meta, k)
		}
		if s.facts.NullCreationTimestamp {
			meta["creationTimestamp"] = nil
		}
	}
	return o
}

// caller is how the webhooks of the client's request c are called.
func (s *Server) caller(c *call) admission.Caller {
	return admission.Caller{Ctx: c.r.Context(), Done: s.done, Services: s.opts.WebhookServices, Warn: c.warn,
		NullCreationTimestamp: s.facts.NullCreationTimestamp}
}

// admitEviction calls the webhooks for the eviction body (opts decoded
// from it), a CREATE of pods/eviction whose object is the Eviction, as
// the real server calls them, and answers the options of the Eviction as
// they left it. The pod's deletion that follows is not admitted again,
// as on the real server.
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
	mutated, serr := s.caller(c).ReviewEviction(hooks, req, body) // DecodeEviction read body: it is JSON
	if serr != nil || mutated == nil {
		return opts, serr
	}
	next, invalid := disruption.DecodeEviction(encode.Object(mutated), c.info.Name, c.info.Namespace)
	if invalid != "" {
		return nil, apierr.BadRequest(invalid)
	}
	return next, nil
}
