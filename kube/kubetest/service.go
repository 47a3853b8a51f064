// SPDX-License-Identifier: Apache-2.0

package kubetest

import (
	"iter"
	"net/http"

	"github.com/kubeloop/kubeloop/kube"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/apierr"
	"github.com/kubeloop/kubeloop/kube/kubetest/internal/clusterip"
)

// This file gives package clusterip the stored Services: on create a
// Service gets a cluster IP from the harness's range 10.0.0.0/24 with the
// IP family fields, which nobody owns (the defaults of the kind's
// decoding are package defaulting's).

func isServices(res *resource) bool { return res.Group == "" && res.Plural == "services" }

// allocateServiceLocked gives a Service its cluster IP and IP families
// (clusterip.Allocate); a full range is the real server's 500. The caller
// holds s.mu.
func (s *Server) allocateServiceLocked(res *resource, o obj) *kube.StatusError {
	if !clusterip.Allocate(o, serviceStore{s.cols[res.colKey()]}) {
		return apierr.New(http.StatusInternalServerError, kube.ReasonInternalError,
			"Internal error occurred: failed to allocate a serviceIP: range is full", nil)
	}
	return nil
}

// serviceStore is the collection of Services as the allocator sees it
// (clusterip.Store); col may be nil (none stored yet).
type serviceStore struct{ col *collection }

func (st serviceStore) Specs() iter.Seq[map[string]any] {
	return func(yield func(map[string]any) bool) {
		if st.col == nil {
			return
		}
		for _, rec := range st.col.objects {
			spec, _ := mustDecode(rec.raw)["spec"].(obj)
			if !yield(spec) {
				return
			}
		}
	}
}
