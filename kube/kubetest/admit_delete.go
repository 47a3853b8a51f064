// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/admission"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/protobuf"
)

// This file puts the admission webhooks around a client's DELETE of one
// object (internal/admission's AdmitDelete) and of a collection.

// admittedDelete deletes the object wr names with del (which the lock is
// held for, given the stored object or nil), after the webhooks for
// DELETE have admitted it (admission.AdmitDelete).
func (s *Server) admittedDelete(wr *write, opts *protobuf.DeleteOptions, del func(prev *record) (*record, bool, *kube.StatusError)) (rec *record, gone bool, err *kube.StatusError) {
	options := func() map[string]any { return admission.DeleteOptions(opts) }
	return admission.AdmitDelete(admitting{s: s, wr: wr}, options, del)
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
