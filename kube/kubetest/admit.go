// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"context"
	"fmt"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/review"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/unstructured"
)

// This file puts the admission webhooks (internal/admission) around the
// writes of clients: create, update and patch (status included), apply
// and delete. A write with webhooks goes in three steps, since no webhook
// is called with the server's lock held:
//
//  1. under the lock, a dry run of the write gives the object as it would
//     be stored (defaulted, with managedFields), which the mutating
//     webhooks are sent (without uid and creationTimestamp on a create,
//     as the real server sends it; the object as sent when the dry run
//     found it invalid, as a mutating webhook may mend it);
//  2. if they changed it, a dry run of writing their object gives what
//     the validating webhooks are sent;
//  3. under the lock again, the write is made for real, unless the object
//     changed since step 1: then the caller starts over, as the real
//     server's update retries on a conflict.
//
// A write without webhook configurations takes the lock once, as before.

// writeFunc makes a write of o under the server's lock.
type writeFunc func(wr *write, o obj) (updateResult, *kube.StatusError)

// webhooksLocked returns the webhooks of the stored configurations, each
// kind in the order the real server calls them.
func (s *Server) webhooksLocked() []admission.Webhook {
	var hooks []admission.Webhook
	for _, kind := range []struct {
		plural   string
		mutating bool
	}{{"mutatingwebhookconfigurations", true}, {"validatingwebhookconfigurations", false}} {
		col := s.cols["admissionregistration.k8s.io/"+kind.plural]
		if col == nil {
			continue
		}
		var some []admission.Webhook
		for _, k := range col.keys() {
			if r := col.objects[k]; r != nil {
				some = append(some, admission.Parse(mustDecode(r.raw), kind.mutating)...)
			}
		}
		admission.Sort(some)
		hooks = append(hooks, some...)
	}
	return hooks
}

// isWebhookConfiguration says whether res holds webhook configurations,
// whose writes admission.Check vets.
func isWebhookConfiguration(res *resource) bool {
	return res.Group == "admissionregistration.k8s.io" &&
		(res.Plural == "validatingwebhookconfigurations" || res.Plural == "mutatingwebhookconfigurations")
}

// admitted makes a client's write of o by store, calling the admission
// webhooks around it (see the file comment). create says the request is a
// create (POST); otherwise it creates when the object is missing.
func (s *Server) admitted(wr *write, create bool, o obj, store writeFunc) (updateResult, *kube.StatusError) {
	for {
		out, stale, err := s.admitWrite(wr, create, nil, o, store)
		if !stale {
			return out, err
		}
	}
}

// admitWrite is one attempt of [Server.admitted]. base, when not nil, is
// the stored object o was computed from (a patch's). stale says the
// stored object changed (from base, or while the webhooks were called):
// nothing was written and the caller starts over.
func (s *Server) admitWrite(wr *write, create bool, base *record, o obj, store writeFunc) (out updateResult, stale bool, err *kube.StatusError) {
	key := objectKey(wr.namespace, wr.name)
	var hooks []admission.Webhook
	slow := false
	s.withLock(func() {
		switch {
		case base != nil && wr.col.objects[key] != base:
			stale = true
		case isWebhookConfiguration(wr.res):
			// The real server calls no webhook for these, lest a
			// webhook lock itself in.
			out, err = s.storeConfigurationLocked(wr, o, store)
		case wr.call == nil:
			out, err = store(wr, o)
		default:
			hooks = s.webhooksLocked()
			if wr.sub != "" && wr.sub != "status" && len(hooks) > 0 {
				err = s.unsupportedSubresourceLocked(wr, o, hooks)
			}
			if slow = len(hooks) > 0 && err == nil && (wr.sub == "" || wr.sub == "status"); !slow && err == nil {
				out, err = store(wr, o)
			}
		}
	})
	if !slow {
		return out, stale, err
	}
	return s.callWebhooks(wr, create, base, o, store, hooks)
}

// callWebhooks is the write of admitWrite when webhooks are configured.
func (s *Server) callWebhooks(wr *write, create bool, base *record, o obj, store writeFunc, hooks []admission.Webhook) (out updateResult, stale bool, err *kube.StatusError) {
	if create || wr.apply || wr.res.CreateOnUpdate {
		wr.pinned.uid = newUID() // the object's uid in every step, if it is created
	}
	key := objectKey(wr.namespace, wr.name)
	var prev *record
	var req *admission.Request
	var candidate updateResult
	var dryErr *kube.StatusError
	s.withLock(func() {
		prev = wr.col.objects[key]
		candidate, dryErr = dryRun(wr, o, store)
		req = s.admissionRequestLocked(wr, create || prev == nil, prev)
		if req.Name == "" {
			req.Name = unstructured.String(unstructured.Metadata(o), "name")
		}
	})
	if base != nil && prev != base {
		return out, true, nil
	}
	switch {
	case dryErr == nil:
		req.Object = s.reviewed(wr.res, candidate.rec, req.Operation == "CREATE")
		if create && wr.name == "" {
			unstructured.Metadata(o)["name"] = candidate.rec.name // generateName: keep the name it got
		}
	case wr.apply || dryErr.Status.Reason != kube.ReasonInvalid:
		return out, false, dryErr
	default: // a mutating webhook may mend what is invalid
		req.Object = unstructured.DeepCopy(o).(obj)
		if create {
			s.nullCreationTimestamp(req.Object)
		}
	}
	ctx, cancel := s.webhookContext(wr.call)
	defer cancel()
	mutated, changed, warnings, err := admission.Mutate(ctx, hooks, s.opts.WebhookServices, req)
	wr.call.warnAll(warnings)
	if err != nil {
		return out, false, err
	}
	final := store
	switch {
	case changed:
		if dryErr == nil {
			wr.pinned.managed, wr.pinned.managedFields = true, unstructured.Metadata(mustDecode(candidate.rec.raw))["managedFields"]
		}
		final = s.writeMutated(mutated, req.Operation == "CREATE", o, dryErr == nil)
		s.withLock(func() { candidate, err = dryRun(wr, o, final) })
		if err != nil {
			return out, false, err
		}
	case dryErr != nil:
		return out, false, dryErr
	}
	req.Object = s.reviewed(wr.res, candidate.rec, false)
	warnings, err = admission.Validate(ctx, hooks, s.opts.WebhookServices, req)
	wr.call.warnAll(warnings)
	if err != nil {
		return out, false, err
	}
	return s.storeUnlessStale(wr, key, prev, o, final)
}

// storeConfigurationLocked writes a webhook configuration unless
// admission.Check refuses what the write would store.
func (s *Server) storeConfigurationLocked(wr *write, o obj, store writeFunc) (updateResult, *kube.StatusError) {
	candidate, err := dryRun(wr, o, store)
	if err == nil {
		err = checkConfiguration(wr.res, s.reviewed(wr.res, candidate.rec, false))
	}
	if err != nil {
		return updateResult{}, err
	}
	return store(wr, o)
}

// storeUnlessStale makes the write for real if the object is still prev.
func (s *Server) storeUnlessStale(wr *write, key string, prev *record, o obj, store writeFunc) (out updateResult, stale bool, err *kube.StatusError) {
	s.withLock(func() {
		if stale = wr.col.objects[key] != prev; !stale {
			out, err = store(wr, o)
		}
	})
	return out, stale, err
}

// dryRun makes wr's write as a dry run, on a copy of o.
func dryRun(wr *write, o obj, store writeFunc) (updateResult, *kube.StatusError) {
	dry := *wr
	dry.dryRun = true
	return store(&dry, unstructured.DeepCopy(o).(obj))
}

// writeMutated is the write of the object the mutating webhooks made: a
// create, or an update that keeps the managedFields the request's own
// write gave it (the webhooks' fields are nobody's, as on the real
// server) when they were sent its dry run (dryRan), else an update by
// the request's manager. For an apply that creates, config is the
// configuration.
func (s *Server) writeMutated(mutated obj, create bool, config obj, dryRan bool) writeFunc {
	return func(wr *write, _ obj) (updateResult, *kube.StatusError) {
		o := unstructured.DeepCopy(mutated).(obj)
		if create {
			if wr.apply {
				wr.applied = config
			}
			rec, err := s.createLocked(wr, o)
			return updateResult{rec: rec, created: true}, err
		}
		if !dryRan {
			return s.updateLocked(wr, o, nil)
		}
		managed, has := unstructured.Metadata(o)["managedFields"]
		return s.updateLocked(wr, o, func(meta, _, _ obj, _ string) {
			if has {
				meta["managedFields"] = managed
			} else {
				delete(meta, "managedFields")
			}
		})
	}
}

// checkConfiguration refuses a webhook configuration kubetest cannot
// honour (admission.Check).
func checkConfiguration(res *resource, o obj) *kube.StatusError {
	if errs := admission.Check(o); len(errs) > 0 {
		return apierr.Invalid(res.kindGroup(), res.Kind, unstructured.String(unstructured.Metadata(o), "name"), errs)
	}
	return nil
}

// reviewed is rec's object as a webhook is sent it: in the resource's
// version, and for a create before the server gave it uid and
// creationTimestamp when forMutation (1.33 sends the latter null).
func (s *Server) reviewed(res *resource, rec *record, forMutation bool) obj {
	o := res.fromStored(mustDecode(rec.raw))
	o["apiVersion"] = res.apiVersion()
	if forMutation {
		meta := unstructured.Metadata(o)
		for _, k := range []string{"uid", "creationTimestamp", "generation", "resourceVersion"} {
			delete(meta, k)
		}
		s.nullCreationTimestamp(o)
	}
	return o
}

// nullCreationTimestamp gives o, an object not yet created, the
// creationTimestamp: null 1.33 writes for a zero time
// (minor.Facts.NullCreationTimestamp).
func (s *Server) nullCreationTimestamp(o obj) {
	if meta := unstructured.Metadata(o); s.facts.NullCreationTimestamp && meta["creationTimestamp"] == nil {
		meta["creationTimestamp"] = nil
	}
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
	req.Options = writeOptions(kind, c)
	if ns := s.cols["/namespaces"].objects[wr.namespace]; ns != nil {
		req.NamespaceLabels = ns.labels
	}
	return req
}

// writeOptions are the options of the request as the review carries them.
func writeOptions(kind string, c *call) obj {
	o := obj{"kind": kind, "apiVersion": "meta.k8s.io/v1"}
	if c.dryRun {
		o["dryRun"] = []any{"All"}
	}
	if m := c.q.Get("fieldManager"); m != "" {
		o["fieldManager"] = m
	}
	if v := c.q.Get("fieldValidation"); v != "" && kind != "DeleteOptions" {
		o["fieldValidation"] = v
	}
	return o
}

// webhookContext is the context of a request's webhook calls: it ends
// with the request, or when the server closes.
func (s *Server) webhookContext(c *call) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(c.r.Context())
	go func() {
		select {
		case <-s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// warnAll adds the webhooks' warnings to the answer.
func (c *call) warnAll(warnings []string) {
	for _, w := range warnings {
		c.warn(w)
	}
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

// pinned is what a create stores whatever object it is given: the steps
// of a write with webhooks create the same object (same uid), and the
// managedFields of a create that mutating webhooks changed are those of
// what the client sent, as on the real server (the webhooks' fields are
// nobody's).
type pinned struct {
	uid string // empty: a new uid
	// managed says managedFields are pinned: to managedFields, or none
	// when it is nil.
	managed       bool
	managedFields any
}

// pin gives the metadata of an object being created what wr pins.
func (wr *write) pin(meta obj) {
	if wr.pinned.uid != "" {
		meta["uid"] = wr.pinned.uid
	}
	switch {
	case !wr.pinned.managed:
	case wr.pinned.managedFields == nil:
		delete(meta, "managedFields")
	default:
		meta["managedFields"] = wr.pinned.managedFields
	}
}

// unsupportedSubresourceLocked refuses a write to a subresource kubetest
// calls no webhook for (scale) when a webhook matches it, rather than
// leave the webhook out silently.
func (s *Server) unsupportedSubresourceLocked(wr *write, o obj, hooks []admission.Webhook) *kube.StatusError {
	prev := wr.col.objects[objectKey(wr.namespace, wr.name)]
	req := s.admissionRequestLocked(wr, false, prev)
	req.Object = o
	for i := range hooks {
		if hooks[i].Matches(req) {
			return apierr.New(http.StatusInternalServerError, kube.ReasonInternalError,
				fmt.Sprintf("kubetest does not call admission webhooks for %s/%s: webhook %q matches this request (see DIFFERENCES.md)",
					wr.res.Plural, wr.sub, hooks[i].Name), nil)
		}
	}
	return nil
}
