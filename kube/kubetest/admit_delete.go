// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"encoding/json"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// This file puts the admission webhooks around a client's DELETE of one
// object (admit.go does the other writes).

// admittedDelete deletes the object wr names with del (which the lock is
// held for, given the stored object or nil), after the webhooks for
// DELETE have admitted it: the mutating ones, which may not change
// anything, then the validating ones, all sent the stored object as
// oldObject. If the object changed meanwhile, it starts over.
func (s *Server) admittedDelete(wr *write, opts *protobuf.DeleteOptions, del func(prev *record) (*record, bool, *kube.StatusError)) (rec *record, gone bool, err *kube.StatusError) {
	key := objectKey(wr.namespace, wr.name)
	for {
		var prev *record
		var hooks []admission.Webhook
		var req *admission.Request
		s.withLock(func() {
			prev = wr.col.objects[key]
			if prev != nil && wr.call != nil && !isWebhookConfiguration(wr.res) {
				hooks = s.webhooksLocked()
			}
			if len(hooks) == 0 {
				rec, gone, err = del(prev)
				return
			}
			req = s.admissionRequestLocked(wr, false, prev)
			req.Operation, req.Options = "DELETE", deleteOptions(opts)
		})
		if len(hooks) == 0 {
			return rec, gone, err
		}
		if err = s.callDeleteWebhooks(wr.call, hooks, req); err != nil {
			return nil, false, err
		}
		stale := false
		s.withLock(func() {
			if stale = wr.col.objects[key] != prev; !stale {
				rec, gone, err = del(prev)
			}
		})
		if !stale {
			return rec, gone, err
		}
	}
}

// callDeleteWebhooks calls the mutating, then the validating webhooks of
// a DELETE.
func (s *Server) callDeleteWebhooks(c *call, hooks []admission.Webhook, req *admission.Request) *kube.StatusError {
	ctx, cancel := s.webhookContext(c)
	defer cancel()
	_, _, warnings, err := admission.Mutate(ctx, hooks, s.opts.WebhookServices, req)
	c.warnAll(warnings)
	if err != nil {
		return err
	}
	warnings, err = admission.Validate(ctx, hooks, s.opts.WebhookServices, req)
	c.warnAll(warnings)
	return err
}

// deleteOptions are a delete's options as the review carries them.
func deleteOptions(opts *protobuf.DeleteOptions) obj {
	o := obj{}
	if raw, err := json.Marshal(opts); err == nil {
		_ = json.Unmarshal(raw, &o)
	}
	for k, v := range o {
		if v == nil {
			delete(o, k) // the real server's DeleteOptions omit what is unset
		}
	}
	o["kind"], o["apiVersion"] = "DeleteOptions", "meta.k8s.io/v1"
	return o
}

// admitsDeletesLocked says whether a client's deletes of wr's resource
// go through webhooks: some are configured.
func (s *Server) admitsDeletesLocked(wr *write) bool {
	return wr.call != nil && !isWebhookConfiguration(wr.res) && len(s.webhooksLocked()) > 0
}

// deleteCollectionAdmitted deletes the objects of wr's collection that
// match, one by one, each after the webhooks for its DELETE, as the real
// server's DeleteCollection deletes each item. It answers the page of
// those deleted, or the first error (the others are still deleted).
func (s *Server) deleteCollectionAdmitted(wr *write, opts *protobuf.DeleteOptions, matches func(*record) bool) (*listPage, *kube.StatusError) {
	var items []*record
	s.withLock(func() {
		for _, k := range wr.col.keys() {
			if r := wr.col.objects[k]; r != nil && matches(r) {
				items = append(items, r)
			}
		}
	})
	var deleted []*record
	var first *kube.StatusError
	for _, r := range items {
		item := *wr
		item.namespace, item.name = r.namespace, r.name
		_, _, err := s.admittedDelete(&item, opts, func(prev *record) (*record, bool, *kube.StatusError) {
			if prev == nil || !matches(prev) {
				return nil, false, nil // gone, or changed, meanwhile
			}
			rec, gone, err := s.deleteLocked(&item, prev)
			if err == nil {
				deleted = append(deleted, prev)
			}
			return rec, gone, err
		})
		if err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	var page *listPage
	s.withLock(func() { page = &listPage{items: deleted, rv: s.rv} })
	return page, nil
}
